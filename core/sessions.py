"""Session store: Django's cached_db (the cache first, the database behind it), except that a cache
that cannot be reached is skipped when a session is read, so people stay logged in and annotation
goes on while Redis is down. Forgetting a session (logging out) needs the cache: it fails before
anything changes when the cache cannot forget it, since a cached copy would come back with Redis."""
from __future__ import annotations

import logging

from django.contrib.sessions.backends import cached_db

logger = logging.getLogger(__name__)


class SessionStore(cached_db.SessionStore):
    def load(self):
        cache_works = True
        try:
            data = self._cache.get(self.cache_key)
        except Exception:  # noqa: BLE001 - an unreachable cache, or a key it refuses: read the database
            logger.warning("session cache unavailable; reading the session from the database", exc_info=True)
            data, cache_works = None, False
        if data is not None:
            return data
        stored = self._get_session_from_db()
        if not stored:
            return {}
        data = self.decode(stored.session_data)
        if cache_works:  # (a cache that just failed is not waited on twice)
            try:
                self._cache.set(self.cache_key, data, self.get_expiry_age(expiry=stored.expire_date))
            except Exception:  # noqa: BLE001 - the database copy is the truth; the cache is only faster
                logger.warning("session cache unavailable; session not cached", exc_info=True)
        return data

    def delete(self, session_key=None):
        """Forget the session: the cache first, and an unreachable cache fails the whole delete, so a
        logout during an outage changes nothing (the person visibly stays logged in) instead of
        leaving a cached copy to come back with Redis; then the database; then the cache again, in
        case a request re-cached the session from the database in between."""
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        self._cache.delete(self.cache_key_prefix + session_key)
        super(cached_db.SessionStore, self).delete(session_key)
        try:
            self._cache.delete(self.cache_key_prefix + session_key)
        except Exception:  # noqa: BLE001 - forgotten once already, before the database row went
            logger.warning("session cache unavailable on the second forget", exc_info=True)

    def exists(self, session_key):
        """Whether a session key is taken (asked when a new session is made, at login)."""
        try:
            if self.cache_key_prefix + session_key in self._cache:
                return True
        except Exception:  # noqa: BLE001 - the database answers alone
            logger.warning("session cache unavailable; checking the session key in the database", exc_info=True)
        return super(cached_db.SessionStore, self).exists(session_key)
