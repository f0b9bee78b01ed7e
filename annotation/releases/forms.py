from django import forms


class PublishForm(forms.Form):
    seed = forms.IntegerField(required=False, min_value=0, max_value=2**31 - 1, initial=0,
                              help_text="Seed of the train/test split.")
    force = forms.BooleanField(required=False, help_text="Publish even when the data equal the latest release.")

    def publish_options(self) -> dict:
        return {"seed": self.cleaned_data.get("seed") or 0, "force": self.cleaned_data.get("force", False)}
