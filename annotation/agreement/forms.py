from django import forms


class BootstrapForm(forms.Form):
    bootstrap = forms.IntegerField(required=False, initial=1000, min_value=0, max_value=10**9)

    def resamples(self) -> int:
        """Between 20 and 5,000 resamples; 1,000 when missing or not a number."""
        value = self.cleaned_data.get("bootstrap") if self.is_valid() else None
        return min(max(value or 1000, 20), 5000)
