from django.contrib import admin

from .models import AnnotatorProfile, Assignment, Batch, FinalLabel, Guideline, Judgment, JudgmentRevision, Post


@admin.register(Post)
class PostAdmin(admin.ModelAdmin):
    list_display = ("id", "external_id", "short_text", "batch", "tone", "identity", "stance")
    list_filter = ("batch",)
    search_fields = ("text", "external_id")
    readonly_fields = ("text_sha256", "raw_text", "created_at")

    @admin.display(description="text")
    def short_text(self, obj):
        return obj.text[:60]


@admin.register(Batch)
class BatchAdmin(admin.ModelAdmin):
    list_display = ("name", "annotators_per_post", "assignment_timeout_minutes", "locked_at", "created_at")
    filter_horizontal = ("annotators",)
    actions = ["lock"]

    @admin.action(description="Lock selected batches (judgments become final)")
    def lock(self, request, queryset):
        from .services import batch_lock

        for batch in queryset:
            batch_lock(batch_id=batch.id)


class RevisionInline(admin.TabularInline):
    model = JudgmentRevision
    extra = 0
    readonly_fields = ("changed_by", "changed_at", "old", "new", "guideline")
    can_delete = False


@admin.register(Judgment)
class JudgmentAdmin(admin.ModelAdmin):
    list_display = ("id", "post", "annotator", "explicit", "implicit", "emotional", "flagged", "updated_at")
    list_filter = ("flagged", "post__batch")
    list_select_related = ("post", "annotator")
    inlines = [RevisionInline]
    readonly_fields = ("created_at", "updated_at")


@admin.register(FinalLabel)
class FinalLabelAdmin(admin.ModelAdmin):
    list_display = ("post", "explicit", "implicit", "emotional", "provenance", "adjudicator", "updated_at")
    list_filter = ("provenance",)
    list_select_related = ("post", "adjudicator")


admin.site.register(Guideline)
admin.site.register(AnnotatorProfile)
admin.site.register(Assignment)
