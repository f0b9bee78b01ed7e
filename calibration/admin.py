from django.contrib import admin
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .models import PriorSnapshot, RebuildRequest
from .services import rebuild_request


@admin.register(PriorSnapshot)
class PriorSnapshotAdmin(admin.ModelAdmin):
    list_display = ("id", "source", "n_posts", "inferer", "lexicon_version", "created_at")
    readonly_fields = [f.name for f in PriorSnapshot._meta.fields]
    actions = ["rebuild_same_data"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.action(description=gettext_lazy("Rebuild priors from the same data (new snapshot)"))
    def rebuild_same_data(self, request, queryset):
        for snap in queryset:
            rebuild_request(release_id=snap.release_id, inferer=snap.inferer, created_by=request.user)
        self.message_user(request, _("Rebuild queued."))


@admin.register(RebuildRequest)
class RebuildRequestAdmin(admin.ModelAdmin):
    list_display = ("id", "release", "status", "snapshot", "created_at", "finished_at")
    readonly_fields = [f.name for f in RebuildRequest._meta.fields]
