"""An LLM run as a rater (issue 28 §3): kept only when a researcher says so, shown to adjudicators beside
the model's prediction, its agreement with final labels and annotators, the qualification rounds it
would pass (by the round's own rule, checked against a real attempt), and the model-based aggregation,
which counts it only when switched in - the crowd's alpha never does."""
from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from django.urls import reverse

from annotation.models import FinalLabel, Judgment, Post
from llm.models import LLMAnswer, LLMRun
from llm.rater import llm_rater_set
from modeling.splits import run_split

from .test_pages import make_llm_run, parse

pytestmark = pytest.mark.django_db
DIMS = ("explicit", "implicit", "emotional")


def split_test_posts(release) -> list[Post]:
    keys = [r["id"] for r in run_split(release)["test"]]
    from annotation.releases.files import post_key

    by_key = {post_key(p.external_id, p.text_sha256): p for p in Post.objects.all()}
    return [by_key[k] for k in keys]


def add_answers(run: LLMRun, posts: list[Post], scores_per_index) -> None:
    """scores_per_index(post, index) -> (explicit, implicit, emotional) or None (unparsed)."""
    rows = []
    for index in range(run.runs):
        for post in posts:
            scores = scores_per_index(post, index)
            final = FinalLabel.objects.filter(post=post).first()
            rows.append(LLMAnswer(run=run, run_index=index, post=post, post_key=f"k{post.pk}",
                                  gold=final.scores() if final else {d: 3 for d in DIMS}, answer="{...}",
                                  parsed=scores is not None, cache_key=f"c{run.pk}-{index}-{post.pk}",
                                  **(dict(zip(DIMS, scores)) if scores else {})))
    LLMAnswer.objects.bulk_create(rows)


@pytest.fixture
def rater_world(release, make_user, make_annotators):
    posts = split_test_posts(release)
    run = make_llm_run(release, model="qwen3-max")
    LLMRun.objects.filter(pk=run.pk).update(runs=3)
    run.refresh_from_db()
    first = posts[0]
    per_index = {0: (2, 3, 4), 1: (2, 3, 5), 2: (4, 1, 4)}  # majority: 2, 3, 4

    def scores(post, index):
        if post == first:
            return per_index[index]
        final = FinalLabel.objects.get(post=post)
        return final.explicit, final.implicit, min(5, final.emotional + 1)

    add_answers(run, posts, scores)
    return {"run": run, "posts": posts, "first": first,
            "researcher": make_user("res", role="researcher", is_staff=True, is_superuser=True),
            "adjudicator": make_user("adj", role="adjudicator")}


def rater_rows(client, post) -> list:
    page = parse(client.get(reverse("review:adjudicate", args=[post.pk])))
    return page.find_all("tr", class_="llm-rater")


def test_a_run_is_shown_to_adjudicators_only_once_a_researcher_keeps_it(rater_world, client):
    run, first = rater_world["run"], rater_world["first"]
    client.force_login(rater_world["adjudicator"])
    assert rater_rows(client, first) == []  # off by default
    client.force_login(rater_world["researcher"])
    client.post(reverse("llm:run-action", args=[run.pk, "rater-on"]))
    assert LLMRun.objects.get(pk=run.pk).rater_enabled is True
    assert LLMRun.objects.get(pk=run.pk).rater_in_aggregation is False
    client.force_login(rater_world["adjudicator"])
    (row,) = rater_rows(client, first)
    assert row.attrs["data-llm-run"] == str(run.pk) and "qwen3-max" in row.find("th").text
    assert [td.text for td in row.find_all("td")[:3]] == ["2", "3", "4"]  # the majority over the three runs
    client.force_login(rater_world["researcher"])
    client.post(reverse("llm:run-action", args=[run.pk, "rater-off"]))
    client.force_login(rater_world["adjudicator"])
    assert rater_rows(client, first) == []


def test_only_a_finished_run_can_be_kept_and_the_switch_is_audited(rater_world, release, client):
    from auditlog.models import LogEntry

    running = make_llm_run(release, status="running")
    client.force_login(rater_world["researcher"])
    client.post(reverse("llm:run-action", args=[running.pk, "rater-on"]))
    assert LLMRun.objects.get(pk=running.pk).rater_enabled is False
    run = llm_rater_set(run_id=rater_world["run"].pk, by=rater_world["researcher"], in_aggregation=True)
    assert run.rater_enabled and run.rater_in_aggregation  # joining the aggregation implies being shown
    entry = LogEntry.objects.filter(object_pk=str(run.pk), content_type__model="llmrun").latest("id")
    assert entry.additional_data["event"] == "settings" and entry.changes["rater_in_aggregation"] == ["False", "True"]
    run = llm_rater_set(run_id=run.pk, by=rater_world["researcher"], shown=False)
    assert not run.rater_enabled and not run.rater_in_aggregation  # not shown: out of the aggregation too


def test_agreement_with_final_labels_and_each_annotator(rater_world, client, make_annotators):
    run, posts = rater_world["run"], rater_world["posts"]
    alice, bob = make_annotators(2)
    for post in posts[:12]:
        final = FinalLabel.objects.get(post=post)
        Judgment.objects.create(post=post, annotator=alice, **final.scores())
        Judgment.objects.create(post=post, annotator=bob, explicit=final.explicit,
                                implicit=max(1, final.implicit - 1), emotional=final.emotional)
    client.force_login(rater_world["researcher"])
    page = parse(client.get(reverse("llm:rater", args=[run.pk])))
    rows = {r.attrs["data-dimension"]: r for r in page.find("table", id="versus-final").find_all("tr")
            if "data-dimension" in r.attrs}
    finals = {p.pk: FinalLabel.objects.get(post=p) for p in posts}
    llm = {p.pk: ((2, 3, 4) if p == rater_world["first"] else
                  (finals[p.pk].explicit, finals[p.pk].implicit, min(5, finals[p.pk].emotional + 1))) for p in posts}
    for k, d in enumerate(DIMS):
        a = np.array([llm[p.pk][k] for p in posts], float)
        b = np.array([getattr(finals[p.pk], d) for p in posts], float)
        assert int(rows[d].find("td", class_="n").text) == len(posts)
        assert float(rows[d].find("td", class_="exact").text) == pytest.approx(np.mean(a == b), abs=5e-4)
        assert float(rows[d].find("td", class_="mae").text) == pytest.approx(np.mean(np.abs(a - b)), abs=5e-4)
        expected = krippendorff.alpha(reliability_data=np.vstack([a, b]), level_of_measurement="ordinal",
                                      value_domain=[1, 2, 3, 4, 5])
        assert float(rows[d].find("td", class_="alpha").text) == pytest.approx(expected, abs=5e-4)
    # With the crowd: alpha of the two annotators, and with the LLM as a third rater on the same posts.
    crowd = {r.attrs["data-dimension"]: r for r in page.find("table", id="crowd-alpha").find_all("tr")
             if "data-dimension" in r.attrs}
    judged = posts[:12]
    for k, d in enumerate(DIMS):
        people = np.array([[getattr(j, d) for j in Judgment.objects.filter(annotator=who, post__in=judged)
                            .order_by("post_id")] for who in (alice, bob)], float)
        machine = np.array([[llm[p.pk][k] for p in sorted(judged, key=lambda p: p.pk)]], float)
        for cls, data in (("crowd", people), ("with-llm", np.vstack([people, machine]))):
            cell = crowd[d].find("td", class_=cls).text
            try:
                expected = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal",
                                              value_domain=[1, 2, 3, 4, 5])
            except ValueError:  # a single value used: undefined, shown as –
                assert cell == "–"
            else:
                assert float(cell) == pytest.approx(expected, abs=5e-4), (d, cls)
    # Pairwise with each annotator: alice agrees with the final labels exactly, so with the LLM as the labels do.
    pairs = page.find("table", id="versus-annotators").find_all("tr", data_annotator=str(alice.pk))
    assert len(pairs) == 1 and len(pairs[0].find_all("td", class_="alpha")) == 3


def test_qualification_verdict_follows_the_rounds_own_rule(rater_world, release, make_batch, make_annotators, client):
    from annotation.models import BatchQuality, GoldItem, GoldSource
    from annotation.quality.services import qualification_submit

    posts = rater_world["posts"]
    annotator, retaker = make_annotators(2, prefix="q")
    batch = make_batch(n_posts=2, name="qualified", annotators=[annotator, retaker])
    items = [GoldItem.objects.create(post=p, source=GoldSource.UPLOAD, **FinalLabel.objects.get(post=p).scores())
             for p in posts[1:5]]
    quality = BatchQuality.objects.create(batch=batch, qualification_required=True, pass_max_mae_emotional=0.5)
    quality.qualification_items.set(items)
    client.force_login(rater_world["researcher"])

    def verdict(run) -> str:
        page = parse(client.get(reverse("llm:rater", args=[run.pk])))
        return page.find("tr", data_batch=str(batch.pk)).find("td", class_="passed").attrs["data-passed"]

    # The run's emotional scores are one point high on every item: MAE 1.0 > 0.5, explicit/implicit exact.
    assert verdict(rater_world["run"]) == "no"
    llm_scores = {g.post_id: {"explicit": g.explicit, "implicit": g.implicit, "emotional": min(5, g.emotional + 1)}
                  for g in items}
    assert qualification_submit(annotator=annotator, batch_id=batch.pk, answers=llm_scores).passed is False
    # A run that matches gold exactly passes, as an annotator giving the same answers does.
    exact = make_llm_run(release, model="exact")
    LLMRun.objects.filter(pk=exact.pk).update(runs=1)
    exact.refresh_from_db()
    add_answers(exact, posts, lambda p, i: tuple(FinalLabel.objects.get(post=p).scores().values()))
    assert verdict(exact) == "yes"
    assert qualification_submit(annotator=retaker, batch_id=batch.pk,
                                answers={g.post_id: g.scores() for g in items}).passed is True
    # A run that did not score every item cannot be judged by the rule.
    partial = make_llm_run(release, model="partial")
    LLMRun.objects.filter(pk=partial.pk).update(runs=1)
    partial.refresh_from_db()
    add_answers(partial, posts[2:], lambda p, i: tuple(FinalLabel.objects.get(post=p).scores().values()))
    assert verdict(partial) == "unknown"


def test_the_aggregation_counts_the_llm_only_when_switched_in_and_alpha_never(rater_world, make_annotators):
    from annotation.agreement.selectors import agreement_report
    from annotation.models import AggregateLabel
    from annotation.quality import selectors as quality_selectors
    from annotation.quality.services import aggregation_run_now

    run, posts = rater_world["run"], rater_world["posts"]
    people = make_annotators(3)
    for i, post in enumerate(posts[:10]):
        final = FinalLabel.objects.get(post=post)
        for k, who in enumerate(people):
            Judgment.objects.create(post=post, annotator=who, explicit=max(1, final.explicit - (i + k) % 2),
                                    implicit=final.implicit, emotional=final.emotional)
    alpha_before = agreement_report(bootstrap=0, with_trend=False)["dimensions"]
    llm_rater_set(run_id=run.pk, by=None, shown=True)  # shown to adjudicators: still not in the aggregation
    plain = aggregation_run_now()
    assert plain.summary["extra_raters"] == {}
    assert quality_selectors.aggregation_is_current(plain)

    llm_rater_set(run_id=run.pk, by=None, in_aggregation=True)
    assert not quality_selectors.aggregation_is_current(plain)  # the set of raters changed: out of date
    mixed = aggregation_run_now()
    assert set(mixed.summary["extra_raters"]) == {str(-run.pk)}
    assert all(int(a) > 0 for a in mixed.summary["annotators"])  # the panel's annotators only
    assert mixed.summary["judgments"] == plain.summary["judgments"] + 10  # its scores on the 10 judged posts
    # Posts only the LLM scored get no aggregate label: it is an extra rater, never the only one.
    assert set(AggregateLabel.objects.values_list("post_id", flat=True)) == {p.pk for p in posts[:10]}
    assert agreement_report(bootstrap=0, with_trend=False)["dimensions"] == alpha_before
