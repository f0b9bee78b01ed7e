"""Every admin list (and change page, with a row) renders: the job rows, releases and the rest."""
from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import reverse

from annotation.importing.services import import_posts
from annotation.models import AgreementReport
from calibration.models import RebuildRequest
from modeling.models import ScoringJob, TrainingRun

pytestmark = pytest.mark.django_db


def test_every_admin_changelist_and_change_page_renders(client, make_user, settings, tmp_path):
    from annotation.releases.services import release_publish

    settings.MEDIA_ROOT = str(tmp_path / "media")
    import_posts("Sentences,Explicit,Implicit,Emotional\n支持平等,1,1,2\n他们真恶心,4,3,5\n".encode(), with_labels=True)
    release = release_publish(bootstrap=0)
    AgreementReport.objects.create(bootstrap=20)
    run = TrainingRun.objects.create(launch_group="g", release=release, variant="full", dimensions=["explicit"])
    ScoringJob.objects.create(run=run)
    RebuildRequest.objects.create(release=release)
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    for model in admin.site._registry:
        opts = model._meta
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        assert client.get(changelist).status_code == 200, changelist
        row = model._default_manager.first()
        if row is not None:
            change = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[row.pk])
            assert client.get(change).status_code == 200, change
