"""Settings shared by every environment; everything environment-specific comes from env.py."""
from __future__ import annotations

import dj_database_url

from chlgbt_site.env import BASE_DIR, env_bool, env_int, env_list, env_str

SECRET_KEY = env_str("DJANGO_SECRET_KEY", "dev-insecure-change-me")
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "core",
    "annotation",
    "modeling",
    "calibration",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.middleware.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "chlgbt_site.urls"
WSGI_APPLICATION = "chlgbt_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "core.context_processors.roles",
            ],
        },
    },
]

# SQLite by default (embedded, zero set-up); PostgreSQL when DATABASE_URL is set.
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,  # a connection broken by a database restart is replaced, not reused
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Concurrent writers wait instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
MEDIA_ROOT = env_str("MEDIA_ROOT", str(BASE_DIR / "media"))
MEDIA_URL = "/media/"
ARTIFACT_ROOT = env_str("ARTIFACT_ROOT", str(BASE_DIR / "artifacts"))

# Login throttle (annotation/auth_views.py) and sessions.
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_FAILURE_WINDOW_SECONDS = env_int("LOGIN_FAILURE_WINDOW_SECONDS", 900)
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 12 * 3600)
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": env_str("CACHE_URL")}
          if env_str("CACHE_URL") else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Uploads: posts files are size-limited here and again in the importer.
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
IMPORT_MAX_BYTES = env_int("IMPORT_MAX_BYTES", 50 * 1024 * 1024)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.errors.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "ChLGBT Workbench API",
    "DESCRIPTION": "Blind annotation, adjudication and MAAM modeling for the ChLGBT dataset.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
}

# Celery: a real Redis broker when CELERY_BROKER_URL is set; otherwise tasks run in-process,
# which is what the embedded default (SQLite, one process) needs.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "")
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", "") or None
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {"modeling.tasks.fail_stale_runs": {"queue": "default"}, "modeling.tasks.*": {"queue": "gpu"},
                      "calibration.tasks.*": {"queue": "default"}}
# The default worker runs beat embedded (-B): the stale-run check, so no page writes on GET.
CELERY_BEAT_SCHEDULE = {"fail-stale-runs": {"task": "modeling.tasks.fail_stale_runs", "schedule": 60.0}}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 6 * 3600}

# Annotation workflow defaults.
ANNOTATORS_PER_POST = env_int("ANNOTATORS_PER_POST", 6)
ASSIGNMENT_TIMEOUT_MINUTES = env_int("ASSIGNMENT_TIMEOUT_MINUTES", 30)
ADJUDICATION_SPAN = env_int("ADJUDICATION_SPAN", 2)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# A running training run whose row has not moved for this long lost its worker.
RUN_STALE_SECONDS = env_int("RUN_STALE_SECONDS", 900)
