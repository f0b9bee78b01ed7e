"""What a web process does once while it boots (chlgbt_site/wsgi.py, which gunicorn and runserver both
import) so that no person's first request pays for it (issue 31: every page <= 1 s; docs/performance.md).

- Every URLconf and view module is imported, and every URL name is made reversible: the first page that
  reversed a URL used to build the whole reverse table (~110 ms), and importing the API schema views took
  1.6 s (docs/hot_path.md).
- plotly's figure classes are made once for each trace type the pages draw: the first figure a process
  built loaded plotly's schema and validators (~160-210 ms on the researcher's landing page).
- In the background: the token-weights page's parser (calibration/warm.py) and the agreement dashboard's
  figures of the newest report in every language (annotation/agreement/views.py's cache), so a
  researcher's first login after a restart finds them built.
"""
from __future__ import annotations

import logging
import threading

log = logging.getLogger(__name__)


def url_reversal_warm() -> int:
    """Imports every URLconf and builds every URL table a page's {% url %} reads, in every language (Django
    keeps one table per language, and one resolver per namespace, made by the first reverse() into it): one
    reverse() into each namespace. Returns how many were made."""
    from django.conf import settings
    from django.urls import NoReverseMatch, URLResolver, get_resolver, reverse
    from django.utils import translation

    one_name_per_namespace: dict[str, str] = {}
    stack = [(get_resolver(), "")]
    while stack:
        resolver, namespace = stack.pop()
        for pattern in resolver.url_patterns:
            if isinstance(pattern, URLResolver):
                stack.append((pattern, f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace))
            elif pattern.name:
                one_name_per_namespace.setdefault(namespace, namespace + pattern.name)
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            for name in one_name_per_namespace.values():
                try:
                    reverse(name)
                except NoReverseMatch:  # it takes arguments: the tables are built all the same
                    pass
    return len(one_name_per_namespace) * len(settings.LANGUAGES)


def plotly_warm() -> None:
    """One figure of each trace type the figure builders draw, with a layout, thrown away."""
    import plotly.graph_objects as go

    figure = go.Figure(layout={"title": {"text": "warm"}, "height": 300, "barmode": "group"})
    figure.add_trace(go.Bar(x=[1], y=[1]))
    figure.add_trace(go.Heatmap(z=[[1]]))
    figure.add_scatter(x=[1], y=[1], mode="lines+markers")
    figure.to_json()


def agreement_figures_warm() -> int:
    """The newest agreement report's dashboard figures in every language, into the cache. Returns how many."""
    from django.conf import settings
    from django.utils import translation

    from annotation.agreement.selectors import dashboard_report
    from annotation.agreement.views import dashboard_figures

    from django.core.cache import cache

    report = dashboard_report()
    if report is None:
        return 0
    try:  # one web process builds them; the others (gunicorn's workers boot together) find them in the cache
        if not cache.add(f"agreement-figures-warming:{report.pk}", True, 300):
            return 0
    except Exception:  # the cache (Redis) is down: build them here, as a page would
        pass
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            dashboard_figures(report)
    return len(settings.LANGUAGES)


def in_background(work, *, name: str, failure: str) -> threading.Thread:
    """Runs work() in a daemon thread with its own database connection, closed at the end. A failure (a
    database not migrated yet, say) is logged with `failure` and left to the first request that needs it."""
    def run() -> None:
        from django.db import connection

        try:
            work()
        except Exception:
            log.warning(failure, exc_info=True)
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread


def warm_web_process() -> threading.Thread:
    """Called once by chlgbt_site/wsgi.py. The quick parts now; the rest in a background thread (returned)."""
    from calibration.warm import warm_at_start

    url_reversal_warm()
    plotly_warm()
    warm_at_start()
    return in_background(agreement_figures_warm, name="web-warm",
                         failure="Start-up: could not build the agreement figures in the background; the first page will.")
