from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModelingConfig(AppConfig):
    name = "modeling"
    verbose_name = _("Modeling (MAAM)")

    def ready(self) -> None:
        from core.predictions import prediction_provider_register

        from .selectors import latest_prediction

        # Adjudication pages show the newest prediction without importing this app.
        prediction_provider_register(latest_prediction)
