"""Writes shared by the annotation sub-domains: annotator accounts with their pseudonyms. Each
sub-domain keeps its own writes: importing/, assignment/, adjudication/, agreement/, releases/."""
from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model

from core.permissions import Role, role_groups_ensure

from .models import AnnotatorProfile


def annotator_ensure(*, username: str, password: str | None = None, community_member: bool | None = None):
    """Get or create an annotator account with a pseudonym (used wherever names must not show)."""
    User = get_user_model()
    user, created = User.objects.get_or_create(username=username)
    if created:
        if password:
            user.set_password(password)
        else:
            user.set_unusable_password()
        user.save()
    user.groups.add(role_groups_ensure()[Role.ANNOTATOR])
    profile, made = AnnotatorProfile.objects.get_or_create(
        user=user, defaults={"pseudonym": f"A-{secrets.token_hex(3).upper()}", "community_member": community_member}
    )
    if not made and community_member is not None and profile.community_member != community_member:
        profile.community_member = community_member
        profile.save(update_fields=["community_member"])
    return user
