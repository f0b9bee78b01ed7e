from django.contrib import admin

from .models import (
    AgreementReport,
    AnnotatorProfile,
    Assignment,
    Batch,
    FinalLabel,
    Guideline,
    Judgment,
    JudgmentRevision,
    Post,
    Release,
    WorkbenchSettings,
)


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
    list_display = ("name", "annotators_per_post", "posts", "judgments", "progress", "locked_at", "created_at")
    filter_horizontal = ("annotators",)
    actions = ["lock"]

    def get_queryset(self, request):
        from django.db.models import Count

        return super().get_queryset(request).annotate(
            n_posts=Count("posts", distinct=True), n_judgments=Count("posts__judgments", distinct=True))

    @admin.display(description="posts", ordering="n_posts")
    def posts(self, obj):
        return obj.n_posts

    @admin.display(description="judgments", ordering="n_judgments")
    def judgments(self, obj):
        return obj.n_judgments

    @admin.display(description="progress")
    def progress(self, obj):
        wanted = obj.n_posts * obj.annotators_per_post
        return f"{100 * obj.n_judgments / wanted:.0f}%" if wanted else "–"

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


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    list_display = ("number", "content_hash", "created_by", "created_at")
    readonly_fields = [f.name for f in Release._meta.fields]
    actions = ["publish"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_urls(self):
        from django.urls import path

        return [path("publish/", self.admin_site.admin_view(self.publish_view), name="annotation_release_publish"),
                *super().get_urls()]

    def publish_view(self, request):
        from django.shortcuts import redirect

        if request.method == "POST":
            self._publish(request)
        return redirect("admin:annotation_release_changelist")

    def _publish(self, request) -> None:
        from .adjudication import final_labels_refresh
        from .exporters import release_publish
        from core.errors import DomainError
        from core.permissions import user_has_role

        if not user_has_role(request.user, "researcher"):
            self.message_user(request, "Only researchers publish releases.", level="error")
            return
        try:
            final_labels_refresh()
            release = release_publish(created_by=request.user)
        except DomainError as exc:
            self.message_user(request, str(exc), level="error")
        else:
            self.message_user(request, f"Published release {release.number}.")

    @admin.action(description="Publish a new release from the current final labels")
    def publish(self, request, queryset):
        self._publish(request)


admin.site.register(WorkbenchSettings)
admin.site.register(AgreementReport)
