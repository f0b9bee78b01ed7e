from django.apps import AppConfig


class CoreConfig(AppConfig):
    """Infrastructure every app shares: job rows, domain errors, roles, middleware, URL converters."""

    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from . import converters

        converters.register()
