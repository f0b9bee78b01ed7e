"""WSGI entry point (gunicorn chlgbt_site.wsgi)."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "chlgbt_site.settings.local")
application = get_wsgi_application()

# The token-weights page's parser loads once, now, in the background (calibration/warm.py).
from calibration.warm import warm_at_start  # noqa: E402

warm_at_start()
