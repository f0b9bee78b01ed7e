from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    """Infrastructure every app shares: job rows, domain errors, roles, middleware, URL converters."""

    name = "core"
    verbose_name = _("Core")

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from . import converters
        from .immutable import register_sqlite_function

        converters.register()
        connection_created.connect(register_sqlite_function, dispatch_uid="core-immutable-sqlite-function")

        from django.contrib import admin

        from .admin_guard import guard_changelists

        guard_changelists(admin.site)  # (the admin app, listed first, has registered every model by now)
