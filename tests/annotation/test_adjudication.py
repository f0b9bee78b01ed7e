"""Adjudication routing, rounding, optimistic locking, consistency warnings and feedback."""
from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.assignment import services
from annotation.adjudication import rounding
from annotation.adjudication import selectors as adjudication_selectors
from annotation.adjudication import services as adjudication_services
from annotation.models import FinalLabel, Judgment, Provenance
from core.errors import Conflict, DomainError

pytestmark = pytest.mark.django_db


def judge(post, annotators, rows, flagged_by=()):
    for a, (e, i, m) in zip(annotators, rows):
        Judgment.objects.create(post=post, annotator=a, explicit=e, implicit=i, emotional=m, flagged=a in flagged_by)


@pytest.fixture
def posts(make_annotators, make_batch):
    annotators = make_annotators(6)
    batch = make_batch(n_posts=5, annotators=annotators)
    return annotators, list(batch.posts.order_by("id"))


def test_round_half_up_not_bankers():
    assert [rounding.round_half_up(v) for v in (0.5, 1.5, 2.5, 3.5, 4.49)] == [1, 2, 3, 4, 4]
    assert rounding.rounded_mean([2, 3]) == 3 and round(2.5) == 2


def test_queue_uses_ordinal_distance_and_flags(posts):
    annotators, (agree, near, far, flagged, _unjudged) = posts
    judge(agree, annotators, [(2, 2, 3)] * 6)
    judge(near, annotators, [(4, 2, 3), (5, 2, 3)] * 3)  # a 4-vs-5 split is not a disagreement
    judge(far, annotators, [(1, 2, 3), (3, 2, 3)] * 3)
    judge(flagged, annotators, [(2, 2, 3)] * 6, flagged_by=annotators[:1])
    assert set(adjudication_selectors.adjudication_queue().values_list("id", flat=True)) == {far.id, flagged.id}
    assert set(adjudication_selectors.adjudication_queue(span=1).values_list("id", flat=True)) == {near.id, far.id, flagged.id}


def test_auto_labels_are_rounded_means_and_keep_adjudicated_ones(posts, make_user):
    annotators, (p1, p2, *_rest) = posts
    judge(p1, annotators, [(2, 1, 3), (3, 1, 3), (2, 2, 4), (3, 2, 4), (2, 1, 3), (3, 2, 4)])  # means 2.5, 1.5, 3.5
    judge(p2, annotators, [(1, 1, 1), (5, 5, 5)] * 3)
    adjudication_services.post_adjudicate(adjudicator=make_user("adj", role="adjudicator"), post_id=p2.id,
                                 scores={"explicit": 4, "implicit": 4, "emotional": 4}, rationale="discussed",
                                 expected_version=0)
    assert adjudication_services.final_labels_refresh() == 1
    auto = FinalLabel.objects.get(post=p1)
    assert auto.scores() == {"explicit": 3, "implicit": 2, "emotional": 4} and auto.provenance == Provenance.AUTO
    kept = FinalLabel.objects.get(post=p2)
    assert kept.scores() == {"explicit": 4, "implicit": 4, "emotional": 4} and kept.provenance == Provenance.ADJUDICATED
    assert kept.adjudicator.username == "adj" and kept.rationale == "discussed"
    assert p2.id not in set(adjudication_selectors.adjudication_queue().values_list("id", flat=True))


def test_second_adjudicator_gets_a_conflict_not_an_overwrite(posts, make_user):
    annotators, (post, *_rest) = posts
    judge(post, annotators, [(1, 1, 1), (5, 5, 5)] * 3)
    first, second = make_user("adj1", role="adjudicator"), make_user("adj2", role="adjudicator")
    seen_by_both = 0  # both opened the page before anyone saved
    adjudication_services.post_adjudicate(adjudicator=first, post_id=post.id, scores={"explicit": 2, "implicit": 2, "emotional": 2},
                                 rationale="first", expected_version=seen_by_both)
    with pytest.raises(Conflict, match="adj1 changed this label"):
        adjudication_services.post_adjudicate(adjudicator=second, post_id=post.id,
                                     scores={"explicit": 5, "implicit": 5, "emotional": 5}, rationale="second",
                                     expected_version=seen_by_both)
    label = FinalLabel.objects.get(post=post)
    assert label.scores() == {"explicit": 2, "implicit": 2, "emotional": 2} and label.version == 1
    # having reloaded (version 1), the second adjudicator may change it, and that is recorded
    adjudication_services.post_adjudicate(adjudicator=second, post_id=post.id, scores={"explicit": 3, "implicit": 3, "emotional": 3},
                                 rationale="after discussion", expected_version=1)
    label.refresh_from_db()
    assert label.version == 2 and label.adjudicator == second


def test_conflict_shown_on_the_page(client, posts, make_user):
    annotators, (post, *_rest) = posts
    judge(post, annotators, [(1, 1, 1), (5, 5, 5)] * 3)
    adjudication_services.post_adjudicate(adjudicator=make_user("adj1", role="adjudicator"), post_id=post.id,
                                 scores={"explicit": 2, "implicit": 2, "emotional": 2}, rationale="first", expected_version=0)
    client.force_login(make_user("adj2", role="adjudicator"))
    response = client.post(reverse("review:adjudicate", args=[post.id]),
                           {"explicit": 5, "implicit": 5, "emotional": 5, "rationale": "mine", "version": 0})
    assert response.status_code == 200 and "changed this label while you were looking" in response.content.decode()
    assert FinalLabel.objects.get(post=post).explicit == 2


def test_rationale_is_required(posts, make_user):
    annotators, (post, *_rest) = posts
    with pytest.raises(DomainError, match="rationale"):
        adjudication_services.post_adjudicate(adjudicator=make_user("a", role="adjudicator"), post_id=post.id,
                                     scores={"explicit": 2, "implicit": 2, "emotional": 2}, rationale=" ", expected_version=0)
    assert not FinalLabel.objects.exists()


def test_adjudicator_page_pseudonymises_unless_allowed(client, posts, make_user):
    from annotation.models import WorkbenchSettings

    annotators, (post, *_rest) = posts
    judge(post, annotators, [(1, 1, 1), (5, 5, 5)] * 3)
    client.force_login(make_user("adj", role="adjudicator"))
    body = client.get(reverse("review:adjudicate", args=[post.id])).content.decode()
    assert annotators[0].username not in body and annotators[0].annotator_profile.pseudonym in body
    assert "Rounded mean" in body
    WorkbenchSettings.objects.update_or_create(pk=1, defaults={"show_annotator_names_to_adjudicators": True})
    body = client.get(reverse("review:adjudicate", args=[post.id])).content.decode()
    assert annotators[0].username in body


def test_annotators_cannot_reach_adjudication(client, posts):
    annotators, (post, *_rest) = posts
    client.force_login(annotators[0])
    for url in (reverse("review:adjudication"), reverse("review:adjudicate", args=[post.id]),
                reverse("review:consistency"), reverse("review:releases")):
        assert client.get(url).status_code == 403


def test_consistency_warnings(posts):
    annotators, (p1, p2, *_rest) = posts
    FinalLabel.objects.create(post=p1, explicit=5, implicit=1, emotional=3, provenance=Provenance.IMPORTED)
    FinalLabel.objects.create(post=p2, explicit=3, implicit=2, emotional=3, provenance=Provenance.IMPORTED)
    rows = adjudication_selectors.consistency_warnings()
    assert [r["post"].id for r in rows] == [p1.id]
    assert rows[0]["reasons"] == ["explicit and implicit bias are four points apart"]


def test_feedback_only_after_lock_and_only_own_items(client, make_annotators, make_batch):
    a, b = make_annotators(2)
    batch = make_batch(n_posts=1, k=2, annotators=[a, b])
    for who, score in ((a, 1), (b, 5)):
        item = services.assignment_next(annotator=who, batch_id=batch.id)
        services.judgment_submit(annotator=who, post_id=item.post_id,
                                 scores={"explicit": score, "implicit": score, "emotional": score})
    client.force_login(a)
    assert client.get(reverse("review:feedback", args=[batch.id])).status_code == 404
    services.batch_lock(batch_id=batch.id)
    adjudication_services.final_labels_refresh()
    body = client.get(reverse("review:feedback", args=[batch.id])).content.decode()
    assert "1/1/1" in body and "3/3/3" in body and "5/5/5" not in body  # own judgment and final label, not b's


def test_adjudicator_sets_context_tags_with_the_label(client, posts, make_user):
    annotators, (post, *_rest) = posts
    judge(post, annotators, [(1, 1, 1), (5, 5, 5)] * 3)
    client.force_login(make_user("adj", role="adjudicator"))
    client.post(reverse("review:adjudicate", args=[post.id]), {
        "explicit": 4, "implicit": 3, "emotional": 4, "rationale": "r", "version": 0,
        "tone": "Funny", "identity": "Outgroup", "stance": "Anti"})
    post.refresh_from_db()
    assert (post.tone, post.identity, post.stance) == ("Funny", "Outgroup", "Anti")
    response = client.post(reverse("review:adjudicate", args=[post.id]), {
        "explicit": 4, "implicit": 3, "emotional": 4, "rationale": "r", "version": 1, "tone": "Sarcastic"})
    assert "tone must be one of" in response.content.decode()
    assert FinalLabel.objects.get(post=post).version == 1  # the bad tag rolled the whole save back


def test_a_label_created_between_lookup_and_insert_is_a_conflict(posts, make_user, monkeypatch):
    """The create branch: no label when this adjudicator looked, one by the time they insert (another
    adjudicator got there first). The unique constraint turns that into a Conflict, not an overwrite."""
    annotators, (post, *_rest) = posts
    judge(post, annotators, [(1, 1, 1), (5, 5, 5)] * 3)
    first, second = make_user("adj1", role="adjudicator"), make_user("adj2", role="adjudicator")
    real_create = FinalLabel.objects.create
    raced = []

    def create_after_someone_else(**fields):
        if not raced:  # the other adjudicator's insert lands first
            raced.append(real_create(post_id=post.id, explicit=2, implicit=2, emotional=2, adjudicator=first,
                                     provenance=Provenance.ADJUDICATED, rationale="theirs", version=1))
        return real_create(**fields)

    monkeypatch.setattr(FinalLabel.objects, "create", create_after_someone_else)
    with pytest.raises(services.Conflict, match="Another adjudicator labelled this post at the same moment"):
        adjudication_services.post_adjudicate(adjudicator=second, post_id=post.id, rationale="mine",
                                              scores={"explicit": 5, "implicit": 5, "emotional": 5}, expected_version=0)
    assert raced and not FinalLabel.objects.filter(rationale="mine").exists()


def test_queue_page_is_bounded_and_pages_by_id(make_annotators, make_batch, make_user, client, monkeypatch):
    """Issue 13: the queue page reads one page of posts (keyset on the post id), never the whole queue."""
    from annotation.adjudication import views as adjudication_views

    monkeypatch.setattr(adjudication_views, "QUEUE_PAGE", 4)
    annotators = make_annotators(2)
    posts = list(make_batch(n_posts=11, annotators=annotators).posts.order_by("id"))
    for post in posts[:10]:
        judge(post, annotators, [(1, 2, 3), (4, 2, 3)])
    judge(posts[10], annotators, [(2, 2, 3), (2, 2, 3)])  # agreement: never listed
    client.force_login(make_user("adj", role="adjudicator"))
    seen, after, pages = [], 0, 0
    while True:
        page = client.get(reverse("review:adjudication") + (f"?after={after}" if after else ""))
        assert page.status_code == 200
        rows = [p.pk for p in page.context["posts"]]
        assert len(rows) <= 4 and rows == sorted(rows)
        seen += rows
        pages += 1
        after = page.context["next_after"]
        if after is None:
            break
        assert f"?after={after}" in page.content.decode() and after == rows[-1]
    assert seen == [p.pk for p in posts[:10]] and pages == 3
    # The selector reads only what a page needs: ids after the cursor, up to the limit.
    ids = adjudication_selectors.disagreement_post_ids(after=posts[5].pk)
    assert list(ids[:2]) == [posts[6].pk, posts[7].pk]
    assert client.get(reverse("review:adjudication") + "?after=abc").status_code == 200  # a bad cursor: first page
