from django import forms

from annotation.models import DIMENSIONS, Release

from .maam.backbones import OFFLINE_BACKBONES
from .models import DevicePreference, ScoringScope, Variant


def parse_seeds(text: str) -> list[int]:
    try:
        seeds = sorted({int(part) for part in text.replace(" ", "").split(",") if part})
    except ValueError:
        raise forms.ValidationError("Seeds are integers separated by commas, e.g. 0,1,2,3,4.")
    if not seeds or len(seeds) > 20:
        raise forms.ValidationError("Give between 1 and 20 seeds.")
    return seeds


class LaunchForm(forms.Form):
    release = forms.ModelChoiceField(Release.objects.all(), required=False,
                                     help_text="Train on its train split, evaluate on its test split. "
                                               "Empty: the current final labels, split by seed.")
    variants = forms.MultipleChoiceField(choices=Variant.choices, initial=list(Variant.values),
                                         widget=forms.CheckboxSelectMultiple)
    dimensions = forms.MultipleChoiceField(choices=[(d, d) for d in DIMENSIONS], initial=list(DIMENSIONS),
                                           widget=forms.CheckboxSelectMultiple)
    seeds = forms.CharField(initial="0,1,2,3,4")
    backbone = forms.CharField(initial="char-ngram", max_length=500,
                               help_text="char-ngram, use-m3 or hybrid (offline), or a transformers model name / "
                                         "local path (e.g. /models/macbert)")
    epochs = forms.IntegerField(initial=3, min_value=1, max_value=50, help_text="transformer backbones")
    learning_rate = forms.FloatField(initial=2e-5, min_value=1e-7, max_value=1.0, help_text="transformer backbones")
    batch_size = forms.IntegerField(initial=16, min_value=1, max_value=512)
    C = forms.FloatField(initial=2.0, min_value=1e-4, help_text="char-ngram, use-m3, hybrid: inverse regularisation")
    device = forms.ChoiceField(choices=DevicePreference.choices, initial=DevicePreference.AUTO)

    def clean_seeds(self):
        return parse_seeds(self.cleaned_data["seeds"])

    def hyperparameters(self) -> dict:
        c = self.cleaned_data
        if c["backbone"] in OFFLINE_BACKBONES:
            return {"C": c["C"]}
        return {"epochs": c["epochs"], "lr": c["learning_rate"], "batch_size": c["batch_size"]}


class ScoreForm(forms.Form):
    scope = forms.ChoiceField(choices=ScoringScope.choices, initial=ScoringScope.ALL)
    release = forms.ModelChoiceField(Release.objects.all(), required=False)
    file = forms.FileField(required=False, help_text="CSV in ChLGBT format (scope: uploaded file)")
