"""WSGI entry point (gunicorn chlgbt_site.wsgi)."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "chlgbt_site.settings.local")
application = get_wsgi_application()

# What no person's first request should pay for, done while the worker boots (core/warm.py): every URLconf
# and view module imported and every URL reversible, plotly's figure classes made, and in the background
# the token-weights parser and the newest agreement report's figures.
from core.warm import warm_web_process  # noqa: E402

warm_web_process()
