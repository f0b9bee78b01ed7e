"""The token-weights page's Myopia (jieba's dictionary and tag tables: about 4 s to load on a busy
2-core machine), loaded once per web process and per lexicon version, in the background: when the
web server starts (chlgbt_site/wsgi.py, which runserver and gunicorn both import) and when a lexicon
term is saved or deleted (calibration/apps.py). A request that arrives while it loads waits for that
load instead of starting a second one; the page itself never pays for it after start-up."""
from __future__ import annotations

import threading

_lock = threading.Lock()
_cache: dict = {}
_serving = False  # set in a web server's process (warm_at_start): only there does a lexicon change warm again


def myopia_for(lexicon):
    """The Myopia for this lexicon version (the newest one only: an older version is dropped)."""
    from modeling.maam.myopia import Myopia

    with _lock:
        if lexicon.version not in _cache:
            _cache.clear()
            _cache[lexicon.version] = Myopia(lexicon=lexicon)
        return _cache[lexicon.version]


def loaded_versions() -> list[str]:
    return list(_cache)


def _warm() -> None:
    from modeling.services import lexicon_current

    myopia_for(lexicon_current())


def warm_in_background() -> threading.Thread:
    from core.warm import in_background

    return in_background(_warm, name="myopia-warm",
                         failure="Token weights: could not load the parser in the background; the first request will.")


def warm_at_start() -> threading.Thread:
    """A web server's process starting (chlgbt_site/wsgi.py)."""
    global _serving
    _serving = True
    return warm_in_background()


def warm_after_lexicon_change(**kwargs) -> None:
    """post_save / post_delete of a lexicon term: the new version loads once the change commits."""
    from django.db import transaction

    if _serving:
        transaction.on_commit(warm_in_background)
