from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WellbeingConfig(AppConfig):
    """Annotator wellbeing (content notices, exposure pacing, setting distressing posts aside) and
    annotator data rights (erasure, export): issue 22."""

    name = "wellbeing"
    verbose_name = _("Annotator wellbeing")
    default_auto_field = "django.db.models.BigAutoField"
