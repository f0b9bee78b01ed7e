"""Reads shared by the annotation sub-domains: the guideline in force, annotators' pseudonyms."""
from __future__ import annotations

from .models import AnnotatorProfile, Guideline


def guideline_current() -> Guideline | None:
    return Guideline.objects.filter(is_active=True).order_by("-version").first()


def pseudonym_fallback(user_id: int) -> str:
    """The name shown for an annotator who has no profile: never the username."""
    return f"A-{user_id}"


def annotator_pseudonyms(user_ids=None) -> dict[int, str]:
    """Pseudonym per annotator id (all profiles, or those of `user_ids`); look up with
    `.get(uid) or pseudonym_fallback(uid)`."""
    qs = AnnotatorProfile.objects.all() if user_ids is None else AnnotatorProfile.objects.filter(user_id__in=user_ids)
    return dict(qs.values_list("user_id", "pseudonym"))
