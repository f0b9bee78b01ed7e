"""Test run: PostgreSQL when DATABASE_URL is set (CI), SQLite otherwise; Celery eager."""
from .base import *  # noqa: F401,F403
from .base import BASE_DIR

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True
MEDIA_ROOT = str(BASE_DIR / "var" / "test-media")
ARTIFACT_ROOT = str(BASE_DIR / "var" / "test-artifacts")
