"""Celery application. Without CELERY_BROKER_URL tasks run in-process (see settings)."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "chlgbt_site.settings.local")

app = Celery("chlgbt_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
