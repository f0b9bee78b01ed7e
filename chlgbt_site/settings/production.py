"""Production: secrets and hosts must come from the environment; HTTPS everywhere."""
import os

# Checked before base.py reads it. No silent SQLite fallback: a db.sqlite3 beside the code would hold the campaign and be lost
# with the container. SQLite on purpose is still possible, by naming its file.
if not os.environ.get("DATABASE_URL", "").strip():
    raise RuntimeError("Set DATABASE_URL to the production database, e.g. "
                       "postgres://chlgbt:PASSWORD@postgres:5432/chlgbt (docker-compose.yml sets it); production "
                       "does not fall back to SQLite. To run on SQLite deliberately, name its file: "
                       "DATABASE_URL=sqlite:////srv/chlgbt/db.sqlite3.")

from .base import *  # noqa: E402,F401,F403
from chlgbt_site.env import BASE_DIR, env_int, env_str
from chlgbt_site.env import env_list
from chlgbt_site.installation_secret import secret_key_weakness

DEBUG = False
SECRET_KEY = env_str("DJANGO_SECRET_KEY")
if weakness := secret_key_weakness(SECRET_KEY):  # an error, not check --deploy's warning
    raise RuntimeError(f"DJANGO_SECRET_KEY is too weak for production ({weakness}). Set it to a long random value: "
                       "python -c \"import secrets; print(secrets.token_urlsafe(50))\"")
# No silent localhost fallback (base.py's default serves the developer's machine only).
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", [])
if not ALLOWED_HOSTS:
    raise RuntimeError("Set DJANGO_ALLOWED_HOSTS to the host names this site answers to, comma-separated "
                       "(e.g. chlgbt.example.org).")
if CELERY_EMBEDDED_BROKER:  # noqa: F405
    raise RuntimeError("Set CELERY_BROKER_URL to the Redis broker in production; the filesystem broker serves one machine's "
                       "embedded default only.")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
LANGUAGE_COOKIE_SECURE = True  # the header's language switch
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_AGE = 8 * 3600
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
STATIC_ROOT = env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles"))  # what `collectstatic` fills, WhiteNoise serves
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
