"""Issue 22 review: export_annotator holds everything the workbench keeps about the person, including
what they wrote in other roles - the rationales of labels they adjudicated, their rewrites - and the
batches they are assigned to (the export used to leave these out)."""
from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from annotation.models import FinalLabel, Post, Provenance
from publication.rewrite_models import Rewrite

pytestmark = pytest.mark.django_db


def test_the_export_holds_adjudications_rewrites_and_batches(make_annotators, make_batch, tmp_path):
    (person,) = make_annotators(1, prefix="multi")
    batch = make_batch(n_posts=2, annotators=[person])
    first, second = Post.objects.filter(batch=batch).order_by("id")
    FinalLabel.objects.create(post=first, provenance=Provenance.ADJUDICATED, adjudicator=person, version=1,
                              rationale="我的裁定理由", explicit=3, implicit=2, emotional=4)
    Rewrite.objects.create(post=second, version=1, text="我改写的文本", author=person, created_by=person)
    out = tmp_path / "export"
    call_command("export_annotator", person.username, str(out))
    text = {p.name: p.read_text("utf-8") for p in out.iterdir()}
    everything = "".join(text.values())
    assert "我的裁定理由" in everything and "我改写的文本" in everything
    assert batch.name in json.dumps(json.loads(text["profile.json"]), ensure_ascii=False)
    manifest = json.loads(text["MANIFEST.json"])["files"]
    assert set(manifest) == set(text) - {"MANIFEST.json"}
