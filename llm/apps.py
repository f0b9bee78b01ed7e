from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LlmConfig(AppConfig):
    name = "llm"
    verbose_name = _("LLM baselines")

    def ready(self) -> None:
        # An LLM run kept as a rater is shown to adjudicators and may join the aggregation (llm/rater.py);
        # annotation asks through core.predictions and never imports llm.
        from core.predictions import pseudo_raters_register

        from . import rater

        pseudo_raters_register(rater)
