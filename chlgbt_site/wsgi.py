"""WSGI entry point (gunicorn chlgbt_site.wsgi)."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "chlgbt_site.settings.local")
application = get_wsgi_application()

# Every URLconf and view module is imported now, while the worker boots, not by its first request (which
# took 1.6 s importing the API schema views and their dependencies, so the first annotators after a
# deploy or a worker restart waited seconds; docs/hot_path.md).
from django.urls import get_resolver  # noqa: E402

get_resolver().url_patterns  # noqa: B018 - the property imports chlgbt_site.urls and every app's urls

# The token-weights page's parser loads once, now, in the background (calibration/warm.py).
from calibration.warm import warm_at_start  # noqa: E402

warm_at_start()
