from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AuditConfig(AppConfig):
    """The audit log of privileged actions (issue 22), kept with django-auditlog."""

    name = "audit"
    verbose_name = _("Audit log")

    def ready(self) -> None:
        from . import registry

        registry.register_models()
