"""Developer machine: the embedded default (SQLite; jobs on the Celery worker `make run` starts, over a
filesystem broker) unless the env says otherwise."""
from .base import *  # noqa: F401,F403
from chlgbt_site.env import BASE_DIR, env_bool, env_str
from chlgbt_site.installation_secret import installation_secret_key

DEBUG = env_bool("DJANGO_DEBUG", True)
# No collectstatic on a developer machine: WhiteNoise serves the static files from where they live.
WHITENOISE_USE_FINDERS = True
# No shared development key: each installation makes its own on first start (var/secret_key, 0600) and
# keeps it, so sessions survive restarts and the keyed gold draw cannot be computed by anyone else.
SECRET_KEY = env_str("DJANGO_SECRET_KEY") or installation_secret_key(
    env_str("SECRET_KEY_FILE") or BASE_DIR / "var" / "secret_key")
