"""Developer machine: the embedded default (SQLite; jobs on the Celery worker `make run` starts, over a
filesystem broker) unless the env says otherwise."""
from .base import *  # noqa: F401,F403
from chlgbt_site.env import env_bool

DEBUG = env_bool("DJANGO_DEBUG", True)
