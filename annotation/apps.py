from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = _("Annotation")

    def ready(self):
        from django.contrib import admin

        from .visibility import admin_site_guard

        admin_site_guard(admin.site)  # after the admin's autodiscover (listed first in INSTALLED_APPS)
