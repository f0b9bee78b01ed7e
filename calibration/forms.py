from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.models import Release


class RebuildForm(forms.Form):
    release = forms.ModelChoiceField(queryset=Release.objects.all(), required=False,
                                     label=_("Release"), help_text=_("Empty: the current final labels."))
