from django import forms
from django.utils.translation import gettext_lazy as _


class PublishForm(forms.Form):
    seed = forms.IntegerField(required=False, min_value=0, max_value=2**31 - 1, initial=0, label=_("Split seed"),
                              help_text=_("Seed of the train/test split."))
    force = forms.BooleanField(required=False, label=_("Force"),
                               help_text=_("Publish even when the data equal the latest release."))

    include_gold = forms.BooleanField(required=False, label=_("List the gold items"),
                                      help_text=_("Add gold.csv: the posts with known labels used to measure "
                                                  "annotators, apart from the data."))

    def publish_options(self) -> dict:
        return {"seed": self.cleaned_data.get("seed") or 0, "force": self.cleaned_data.get("force", False),
                "include_gold": self.cleaned_data.get("include_gold", False)}
