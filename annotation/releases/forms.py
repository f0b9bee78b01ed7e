from django import forms
from django.utils.translation import gettext_lazy as _

from ..models import SplitScheme
from .files import DEFAULT_FOLDS


class PublishForm(forms.Form):
    seed = forms.IntegerField(required=False, min_value=0, max_value=2**31 - 1, initial=0, label=_("Split seed"),
                              help_text=_("Seed of the train/test split."))
    split = forms.ChoiceField(
        choices=[("auto", _("Automatic: stratified 80/20 above 2,000 labelled posts, else the paper's 1,000 / rest")),
                 *SplitScheme.choices],
        required=False, initial="auto", label=_("Split"),
        help_text=_("How the release divides its posts into training and test data."))
    # The range is checked by release_publish, whose message names it (this form's errors speak of the seed).
    folds = forms.IntegerField(required=False, initial=DEFAULT_FOLDS, label=_("Folds"), help_text=_("For k folds only."))
    force = forms.BooleanField(required=False, label=_("Force"),
                               help_text=_("Publish even when the data equal the latest release."))

    include_gold = forms.BooleanField(required=False, label=_("List the gold items"),
                                      help_text=_("Add gold.csv: the posts with known labels used to measure "
                                                  "annotators, apart from the data."))

    include_provisional = forms.BooleanField(
        required=False, label=_("Include provisional labels"),
        help_text=_("Also release posts still being scored in open batches (fewer than k counted judgments, not "
                    "adjudicated), each marked provisional in every file that holds labels."))

    public = forms.BooleanField(required=False, label=_("Public release"),
                                help_text=_("Only confirmed rewrites that are not searchable; no original text."))

    def publish_options(self) -> dict:
        return {"kind": "public" if self.cleaned_data.get("public") else "internal",
                "seed": self.cleaned_data.get("seed") or 0, "force": self.cleaned_data.get("force", False),
                "include_gold": self.cleaned_data.get("include_gold", False),
                "include_provisional": self.cleaned_data.get("include_provisional", False),
                "split": self.cleaned_data.get("split") or "auto",
                "folds": self.cleaned_data.get("folds") or DEFAULT_FOLDS}
