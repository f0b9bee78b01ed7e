"""Production: secrets and hosts must come from the environment; HTTPS everywhere."""
from .base import *  # noqa: F401,F403
from chlgbt_site.env import env_int, env_str

DEBUG = False
SECRET_KEY = env_str("DJANGO_SECRET_KEY")
if not SECRET_KEY or SECRET_KEY.startswith("dev-"):
    raise RuntimeError("Set DJANGO_SECRET_KEY to a long random value in production.")
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
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
