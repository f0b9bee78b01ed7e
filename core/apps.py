from django.apps import AppConfig


class CoreConfig(AppConfig):
    """Infrastructure every app shares: job rows, domain errors, roles, middleware, URL converters."""

    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from . import converters
        from .immutable import register_sqlite_function

        converters.register()
        connection_created.connect(register_sqlite_function, dispatch_uid="core-immutable-sqlite-function")
