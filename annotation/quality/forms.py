"""Forms of the quality pages: a qualification attempt, marking gold items, resetting an attempt."""
from __future__ import annotations

import re

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from ..models import DIMENSIONS
from ..scores import SCORE_MAX, SCORE_MIN

SCORE_CHOICES = [(s, str(s)) for s in range(SCORE_MIN, SCORE_MAX + 1)]


def score_field_name(post_id: int, dimension: str) -> str:
    return f"score_{post_id}_{dimension}"


class QualificationForm(forms.Form):
    """Three 1-5 scores for every post of the qualification set."""

    def __init__(self, *args, items=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.items = list(items)
        for item in self.items:
            for d in DIMENSIONS:
                self.fields[score_field_name(item.post_id, d)] = forms.TypedChoiceField(
                    choices=SCORE_CHOICES, coerce=int, widget=forms.RadioSelect, label=d)

    def answers(self) -> dict[int, dict[str, int]]:
        return {item.post_id: {d: self.cleaned_data[score_field_name(item.post_id, d)] for d in DIMENSIONS}
                for item in self.items}


def _ids(text: str) -> list[int]:
    return [int(t) for t in re.findall(r"\d{1,18}", text or "")]


class GoldFromAdjudicatedForm(forms.Form):
    posts = forms.CharField(label=_("Post ids"), help_text=_("Posts with an adjudicated label, e.g. 12, 15, 40."),
                            max_length=20000)

    def post_ids(self) -> list[int]:
        return _ids(self.cleaned_data["posts"])


class GoldFromReleaseForm(forms.Form):
    release = forms.IntegerField(label=_("Release number"), min_value=1, max_value=2**31 - 1)
    keys = forms.CharField(label=_("Post ids in the release"), required=False, max_length=20000,
                           help_text=_("The release's ids (column id of release.jsonl), separated by spaces or "
                                       "commas; or leave empty and give a sample size."))
    sample = forms.IntegerField(label=_("Random sample size"), required=False, min_value=1, max_value=100000)
    seed = forms.IntegerField(label=_("Sample seed"), required=False, min_value=0, max_value=2**31 - 1, initial=0)

    def options(self) -> dict:
        keys = [k for k in re.split(r"[\s,]+", self.cleaned_data.get("keys") or "") if k]
        return {"release_number": self.cleaned_data["release"], "keys": keys or None,
                "sample": self.cleaned_data.get("sample"), "seed": self.cleaned_data.get("seed") or 0}


class GoldUploadForm(forms.Form):
    file = forms.FileField(label=_("File"), help_text=_(
        "CSV in ChLGBT format with labels (Sentences,Explicit,Implicit,Emotional) or JSONL with labels."))

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > settings.IMPORT_MAX_BYTES:
            raise forms.ValidationError(_("The file is too large."))
        if not upload.name.lower().endswith((".csv", ".jsonl", ".ndjson", ".txt")):
            raise forms.ValidationError(_("Upload a .csv or .jsonl file."))
        return upload


class QualificationResetForm(forms.Form):
    batch = forms.IntegerField(min_value=1, max_value=2**63 - 1)
    annotator = forms.IntegerField(min_value=1, max_value=2**63 - 1)
