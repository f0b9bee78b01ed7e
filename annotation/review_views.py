"""plotly.js served from the Python package (no CDN), for every page that draws a figure."""
from __future__ import annotations

from functools import lru_cache

from django.http import HttpResponse
from django.views.decorators.cache import cache_control




@lru_cache(maxsize=1)
def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


@cache_control(max_age=86400, public=True)
def plotly_js(request):
    """plotly.js as shipped inside the plotly Python package: no CDN."""
    return HttpResponse(_plotly_js(), content_type="application/javascript")
