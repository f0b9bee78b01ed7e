from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CalibrationConfig(AppConfig):
    name = "calibration"
    verbose_name = _("Calibration (C-I-S priors)")

    def ready(self) -> None:
        from annotation.signals import release_published

        from .services import rebuild_after_release

        release_published.connect(rebuild_after_release, dispatch_uid="calibration-rebuild-after-release")

        from django.db.models.signals import post_delete, post_save

        from modeling.models import LexiconTerm

        from .warm import warm_after_lexicon_change

        for signal in (post_save, post_delete):
            signal.connect(warm_after_lexicon_change, sender=LexiconTerm, dispatch_uid=f"calibration-warm-{signal is post_save}")
