"""The adjudication page's form: three scores, a rationale, the label version seen, C-I-S tags."""
from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from ..models import DIMENSIONS, Identity, Stance, Tone
from ..scores import SCORE_MAX, SCORE_MIN

CONTEXT_FIELDS = (("tone", _("Tone (C)"), Tone), ("identity", _("Identity (I)"), Identity), ("stance", _("Stance (S)"), Stance))


class AdjudicationForm(forms.Form):
    explicit = forms.IntegerField(min_value=SCORE_MIN, max_value=SCORE_MAX)
    implicit = forms.IntegerField(min_value=SCORE_MIN, max_value=SCORE_MAX)
    emotional = forms.IntegerField(min_value=SCORE_MIN, max_value=SCORE_MAX)
    rationale = forms.CharField(required=False, max_length=2000)
    # The label version the adjudicator saw; anything unreadable counts as "none" (0), as before.
    version = forms.CharField(required=False)
    # Free text here: the service names the allowed values when one is wrong.
    tone = forms.CharField(required=False)
    identity = forms.CharField(required=False)
    stance = forms.CharField(required=False)

    def resolve_arguments(self) -> dict:
        from core.converters import parse_id

        data = self.cleaned_data
        return {"scores": {d: data[d] for d in DIMENSIONS}, "rationale": data["rationale"],
                "expected_version": parse_id(data["version"]) or 0,
                "tone": data["tone"], "identity": data["identity"], "stance": data["stance"]}


def context_choices(post) -> list[dict]:
    return [{"name": name, "label": label, "choices": choices.choices, "value": getattr(post, name)}
            for name, label, choices in CONTEXT_FIELDS]
