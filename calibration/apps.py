from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CalibrationConfig(AppConfig):
    name = "calibration"
    verbose_name = _("Calibration (C-I-S priors)")

    def ready(self) -> None:
        from annotation.signals import release_published

        from .services import rebuild_after_release

        release_published.connect(rebuild_after_release, dispatch_uid="calibration-rebuild-after-release")
