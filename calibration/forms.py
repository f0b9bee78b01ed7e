from django import forms

from annotation.models import Release


class RebuildForm(forms.Form):
    release = forms.ModelChoiceField(queryset=Release.objects.all(), required=False,
                                     help_text="Empty: the current final labels.")
