"""Issue 31, item 9: erasure takes the name out of rewrites of posts (Rewrite.text) and out of every
background job's text and JSON columns (errors, parameters, results), as it does from notes."""
from __future__ import annotations

import pytest

from annotation.importing.services import import_posts
from annotation.models import AgreementReport, Post
from modeling.models import TrainingRun
from publication.rewrite_models import Rewrite, RewriteSource
from wellbeing.data_rights import annotator_erase

pytestmark = pytest.mark.django_db


def test_erasure_takes_the_name_out_of_rewrites_and_job_payloads(make_annotators):
    (ann,) = make_annotators(1, prefix="linxm")
    name = ann.username  # linxm1
    import_posts("Sentences,Explicit,Implicit,Emotional\n同事出柜被嘲笑，太过分了,1,2,4\n".encode(), with_labels=True)
    post = Post.objects.get()
    rewrite = Rewrite.objects.create(post=post, version=1, text=f"有人出柜被嘲笑（{name} 改写），太过分了",
                                     source=RewriteSource.IMPORT)
    run = TrainingRun.objects.create(launch_group="g", variant="full", dimensions=["explicit"],
                                     error=f"stopped by {name}", hyperparameters={"note": f"asked by {name}"})
    report = AgreementReport.objects.create(error=f"{name}: no judgments")
    keep = TrainingRun.objects.create(launch_group="g", variant="full", dimensions=["explicit"], error="linxm10 only")

    erasure = annotator_erase(username=name, reason="request")

    rewrite.refresh_from_db()
    run.refresh_from_db()
    report.refresh_from_db()
    keep.refresh_from_db()
    assert name not in rewrite.text and erasure.username in rewrite.text and "太过分了" in rewrite.text
    assert run.error == f"stopped by {erasure.username}"
    assert run.hyperparameters == {"note": f"asked by {erasure.username}"}
    assert report.error == f"{erasure.username}: no judgments"
    assert keep.error == "linxm10 only"  # another account's name is not touched
