"""Rows of the publication app: rewrites of posts for public releases and takedown requests."""

from .personal_data.models import PersonalDataScan  # noqa: E402,F401  (personal data found at import)
from .rewrite_models import Rewrite, Takedown  # noqa: E402,F401  (rewrites and takedown requests)
