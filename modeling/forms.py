from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.models import DIMENSIONS, Dimension, Release

from .maam.backbones import OFFLINE_BACKBONES
from .models import DevicePreference, ScoringScope, Variant


def parse_seeds(text: str) -> list[int]:
    try:
        seeds = sorted({int(part) for part in text.replace(" ", "").split(",") if part})
    except ValueError:
        raise forms.ValidationError(_("Seeds are integers separated by commas, e.g. 0,1,2,3,4."))
    if not seeds or len(seeds) > 20:
        raise forms.ValidationError(_("Give between 1 and 20 seeds."))
    return seeds


class LaunchForm(forms.Form):
    release = forms.ModelChoiceField(Release.objects.all(), required=False, label=_("Release"),
                                     help_text=_("Train on its train split, evaluate on its test split (on a k-fold "
                                                 "release seed s tests on fold s mod k). Empty: the current final "
                                                 "labels, split by seed."))
    final_fit_all = forms.BooleanField(
        required=False, initial=True, label=_("Final model on all posts"),
        help_text=_("After the evaluation, train the saved scoring model on every labelled post (train and test); "
                    "the test metrics stay those of the model trained on the train split."))
    include_provisional = forms.BooleanField(
        required=False, initial=False, label=_("Include provisional labels"),
        help_text=_("A release published with provisional labels (posts still being scored): train and evaluate "
                    "on them too. Left out by default; the run's metrics count them."))
    variants = forms.MultipleChoiceField(choices=Variant.choices, initial=list(Variant.values), label=_("Variants"),
                                         widget=forms.CheckboxSelectMultiple)
    dimensions = forms.MultipleChoiceField(choices=Dimension.choices, initial=list(DIMENSIONS), label=_("Dimensions"),
                                           widget=forms.CheckboxSelectMultiple)
    seeds = forms.CharField(initial="0,1,2,3,4", label=_("Seeds"))
    backbone = forms.CharField(initial="hybrid", max_length=500, label=_("Backbone"),
                               help_text=_("<code>char-ngram</code>, <code>use-m3</code> or <code>hybrid</code> (offline), or a "
                                           "transformers model name / local path (e.g. <code>/models/macbert</code>)"))
    epochs = forms.IntegerField(initial=3, min_value=1, max_value=50, label=_("Epochs"), help_text=_("transformer backbones"))
    learning_rate = forms.FloatField(initial=2e-5, min_value=1e-7, max_value=1.0, label=_("Learning rate"),
                                     help_text=_("transformer backbones"))
    batch_size = forms.IntegerField(initial=16, min_value=1, max_value=512, label=_("Batch size"))
    C = forms.FloatField(initial=2.0, min_value=1e-4, label="C",
                         help_text=_("<code>char-ngram</code>, <code>use-m3</code>, <code>hybrid</code>: inverse regularisation"))
    device = forms.ChoiceField(choices=DevicePreference.choices, initial=DevicePreference.AUTO, label=_("Device"))
    preset = forms.ChoiceField(
        choices=[("best-offline", _("best-offline: the best configuration measured offline")),
                 ("paper", _("paper: the paper's reading (Table 2 reproduction)"))],
        initial="best-offline", required=False, label=_("Preset"),
        help_text=_("C-I-S inference, prior mode, decoding and Myopia mode (docs/maam_offline.md)"))

    def clean_preset(self):
        return self.cleaned_data.get("preset") or "best-offline"

    def clean_seeds(self):
        return parse_seeds(self.cleaned_data["seeds"])

    def hyperparameters(self) -> dict:
        c = self.cleaned_data
        if c["backbone"] == "use-m3-ft":
            return {"epochs": c["epochs"], "batch_size": c["batch_size"]}
        if c["backbone"] in OFFLINE_BACKBONES:
            return {"C": c["C"]}
        return {"epochs": c["epochs"], "lr": c["learning_rate"], "batch_size": c["batch_size"]}


class ScoreForm(forms.Form):
    scope = forms.ChoiceField(choices=ScoringScope.choices, initial=ScoringScope.ALL, label=_("Scope"))
    release = forms.ModelChoiceField(Release.objects.all(), required=False, label=_("Release"))
    file = forms.FileField(required=False, label=_("File"), help_text=_("CSV in ChLGBT format (scope: uploaded file)"))
