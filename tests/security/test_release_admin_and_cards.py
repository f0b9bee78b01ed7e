"""Issue 30, hole 2: label changes of hidden posts through the release admin and the data cards.
`diff.json` is refused to someone with a hidden post it names, but the release's admin page showed the
same `changed_ids`, and two releases' DATACARD.md label distributions then gave the hidden post's new
label. A release's diff, summary and data cards now follow the rule of its diff.json and data files
(annotation/visibility/releases.py). And while gold is hidden from someone, no release file names them
by their pseudonym: judgments.csv and the data card's annotator table leave out their gold answers, so
set beside their own judgment list they would mark them."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from .conftest import HIDDEN_EXTERNAL_ID, body_of, client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def relabelled(world):
    """Release 2: the hidden post's label changed since release 1 (its key in diff.json's changed_ids)."""
    from annotation.models import FinalLabel
    from annotation.releases.services import release_publish

    FinalLabel.objects.filter(post=world["hidden"]).update(explicit=1)
    second = release_publish(bootstrap=0)
    assert HIDDEN_EXTERNAL_ID in second.diff["changed_ids"]["explicit"]
    return {**world, "second": second}


def admin_fields(response) -> set[str]:
    """The fields the admin page shows (its parsed form, not its text)."""
    return {name for fieldset in response.context["adminform"] for line in fieldset for field in line
            for name in ([field.field["name"]] if isinstance(field.field, dict) else [field.field.name])}


def viewer(world, superuser: bool):
    multi = world["multi"]
    if superuser:
        multi.is_superuser = True
        multi.save(update_fields=["is_superuser"])
    else:
        multi.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    return client_for(multi)


def test_a_plain_researcher_sees_the_changes_and_the_cards(relabelled, make_user):
    """The control: the checks below can fail."""
    client = client_for(make_user("root", role="researcher", is_staff=True, is_superuser=True))
    page = client.get(reverse("admin:annotation_release_change", args=[relabelled["second"].pk]))
    assert {"diff", "summary"} <= admin_fields(page) and HIDDEN_EXTERNAL_ID in page.content.decode()
    for name in ("DATACARD.md", "README.md", "diff.json"):
        assert client.get(f"/releases/{relabelled['second'].number}/{name}").status_code == 200, name


@pytest.mark.parametrize("superuser", [False, True], ids=["staff-with-view-permissions", "superuser"])
def test_hole_2_the_release_admin_shows_no_changes_of_a_hidden_post(relabelled, superuser):
    client = viewer(relabelled, superuser)
    assert client.get(f"/releases/{relabelled['second'].number}/diff.json").status_code == 403  # the files' rule
    for release in (relabelled["release"], relabelled["second"]):
        page = client.get(reverse("admin:annotation_release_change", args=[release.pk]))
        assert page.status_code == 200
        assert not {"diff", "summary"} & admin_fields(page)
        assert HIDDEN_EXTERNAL_ID not in page.content.decode()


@pytest.mark.parametrize("name", ["DATACARD.md", "README.md"])
def test_hole_2_no_data_card_of_a_release_describing_a_hidden_post_is_served(relabelled, name):
    client = viewer(relabelled, superuser=True)
    for release in (relabelled["release"], relabelled["second"]):
        response = client.get(f"/releases/{release.number}/{name}")
        assert response.status_code == 403, (release.number, name)
        assert b"Explicit" not in body_of(response) or b"| explicit |" not in body_of(response)


def test_hole_2_no_release_file_names_someone_who_annotates_by_their_pseudonym(world, make_user):
    """multi judged a post of the locked batch: judgments.csv and the data card name them by pseudonym."""
    from annotation.models import AnnotatorProfile, Judgment, Post
    from annotation.releases.services import release_publish

    multi = world["multi"]
    post = Post.objects.filter(batch=world["old"]).exclude(pk=world["gold"].post_id).first()
    Judgment.objects.create(post=post, annotator=multi, explicit=3, implicit=3, emotional=3)
    Post.objects.filter(pk=world["hidden"].pk).update(batch=world["old"])  # nothing hidden: only the gold rule
    release = release_publish(bootstrap=0)
    pseudonym = AnnotatorProfile.objects.get(user=multi).pseudonym
    researcher = client_for(make_user("plain-researcher", role="researcher"))
    served = body_of(researcher.get(f"/releases/{release.number}/judgments.csv")).decode()
    assert pseudonym in served  # what the file would tell them
    client = client_for(multi)
    for name in ("judgments.csv", "DATACARD.md", "README.md"):
        assert client.get(f"/releases/{release.number}/{name}").status_code == 403, name
    assert client.get(f"/releases/{release.number}/release.csv").status_code == 200  # names nobody
