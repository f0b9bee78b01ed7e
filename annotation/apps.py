from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def pick_function_install(sender, using="default", **kwargs):
    """After every `migrate`: (re)install the claim path's pick function on PostgreSQL, so the
    database always holds the version this code calls (annotation/assignment/selectors.py)."""
    from django.db import connections

    from .assignment.selectors import pick_function_sql

    connection = connections[using]
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(pick_function_sql())


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = _("Annotation")

    def ready(self):
        from django.contrib import admin

        from .visibility import admin_site_guard

        admin_site_guard(admin.site)  # after the admin's autodiscover (listed first in INSTALLED_APPS)
        post_migrate.connect(pick_function_install, sender=self, dispatch_uid="annotation_pick_function")
