"""Chinese everywhere (issue 31, item 7): the run page's device, split and topic names; each release's
real split (its counts, not "the paper's 1,000 / rest" for a release of one post)."""
from __future__ import annotations

from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
from django.urls import reverse

from annotation.importing.services import import_posts
from annotation.templatetags.annotation_tags import release_split
from annotation.releases.services import release_publish
from modeling.models import TrainingRun
from tests.modeling.conftest import synthetic_csv

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en-US,en;q=0.9"}


class Texts(HTMLParser):
    """The text of each element matched by id or class (one selector), as a reader sees it."""

    def __init__(self, html: str, *, id: str = "", cls: str = ""):
        super().__init__()
        self.id, self.cls, self.depth, self.found, self.current = id, cls, 0, [], []
        self.feed(html)

    VOID = {"br", "img", "input", "hr", "meta", "link", "wbr"}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in self.VOID:
            if self.depth:
                self.current.append(" ")
            return
        if self.depth:
            self.depth += 1
        elif (self.id and attrs.get("id") == self.id) or (self.cls and self.cls in (attrs.get("class") or "").split()):
            self.depth, self.current = 1, []

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1
            if not self.depth:
                self.found.append(" ".join("".join(self.current).split()))

    def handle_data(self, data):
        if self.depth:
            self.current.append(data)


@pytest.mark.django_db
def test_the_run_page_names_device_split_and_topics_in_chinese(client, make_user):
    run = TrainingRun.objects.create(variant="full", dimensions=["explicit"], status="succeeded", device="auto",
                                     device_used="cpu",
                                     metrics={"split": {"scheme": "paper"}, "test": {"explicit": {
                                         "by_topic": {"other": {"n": 12, "macro_f1": 0.367}, "跨性别": {"n": 4, "macro_f1": 0.1}}}}})
    client.force_login(make_user("res", role="researcher"))
    html = client.get(reverse("modeling:run", args=[run.pk]), **ZH).content.decode()
    assert Texts(html, id="split").found == ["论文的协议"]
    assert Texts(html, cls="topic").found == ["其他主题 (12): 0.367", "跨性别 (4): 0.100"]
    line = Texts(html, cls="muted").found[0]
    assert "设备 自动 (实际使用 CPU)" in line and "auto" not in line
    english = client.get(reverse("modeling:run", args=[run.pk]), **EN).content.decode()
    assert Texts(english, id="split").found == ["the paper's protocol"]


@pytest.mark.django_db
def test_each_release_says_its_real_split(client, make_user, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    import_posts(synthetic_csv(10), with_labels=True)
    release = release_publish(bootstrap=0)
    assert release.summary["split"] == {"train": 5, "test": 5}  # the paper's rule below 2,000 posts: at most half
    client.force_login(make_user("res", role="researcher"))
    cells = Texts(client.get(reverse("review:releases"), **EN).content.decode(), cls="split").found
    assert cells == ["5 train / 5 test the paper's protocol"]
    cells = Texts(client.get(reverse("review:releases"), **ZH).content.decode(), cls="split").found
    assert cells == ["训练 5 / 测试 5 论文的协议"]
    # A release published before the counts were recorded (releases are immutable: its stand-in) is
    # counted from its split.csv.
    older = SimpleNamespace(summary={k: v for k, v in release.summary.items() if k != "split"},
                            directory=release.directory)
    assert release_split(older) == {"train": 5, "test": 5}


def test_a_state_source_named_by_its_inferer_reads_in_chinese():
    from django.utils import translation

    from calibration.models import state_source_display

    with translation.override("zh-hans"):
        assert state_source_display("inferred:use-m3") == "推断：use-m3"
        assert state_source_display("inferred:cues") == "推断：线索规则"
        assert state_source_display(None) is None
