"""Test run: PostgreSQL when DATABASE_URL is set (CI), SQLite otherwise; Celery eager."""
from .base import *  # noqa: F401,F403
from chlgbt_site.env import env_str

from .base import BASE_DIR

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True
MEDIA_ROOT = str(BASE_DIR / "var" / "test-media")
ARTIFACT_ROOT = str(BASE_DIR / "var" / "test-artifacts")
# Tests import posts without the name recogniser unless they ask for it (settings.PERSONAL_DATA_NER =
# "lac" in tests/publication/test_personal_data_names.py): the default masks names, which would change
# the texts other tests plant. CI sets nothing, so this is what it runs.
PERSONAL_DATA_NER = env_str("PERSONAL_DATA_NER", "none")
