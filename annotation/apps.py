from django.apps import AppConfig
from django.db.models.signals import post_migrate, pre_migrate
from django.utils.translation import gettext_lazy as _


def database_code_install(sender, using="default", **kwargs):
    """After every `migrate`: (re)install what the database runs for this code - the claim path's
    pick function on PostgreSQL (annotation/assignment/selectors.py) and the triggers that keep
    Batch.post_count (annotation/counters.py) - so the database always holds this code's version."""
    from django.db import connections

    from .assignment.selectors import pick_function_sql
    from .counters import counters_install

    connection = connections[using]
    counters_install(connection)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(pick_function_sql())


def database_code_lift(sender, using="default", **kwargs):
    """Before every `migrate` on SQLite: the counter triggers go (reinstalled after it), so that a
    migration rebuilding the batches' or posts' table never meets a trigger naming it."""
    from django.db import connections

    from .counters import counters_uninstall

    if connections[using].vendor == "sqlite":
        counters_uninstall(connections[using])


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = _("Annotation")

    def ready(self):
        from django.contrib import admin

        from .visibility import admin_site_guard

        admin_site_guard(admin.site)  # after the admin's autodiscover (listed first in INSTALLED_APPS)
        pre_migrate.connect(database_code_lift, sender=self, dispatch_uid="annotation_database_code_lift")
        post_migrate.connect(database_code_install, sender=self, dispatch_uid="annotation_database_code")
