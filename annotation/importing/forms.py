from django import forms
from django.conf import settings
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _


class PostUploadForm(forms.Form):
    file = forms.FileField(label=_("File"), help_text=_("CSV in ChLGBT format (Sentences[,Explicit,Implicit,Emotional]) or JSONL."))
    batch = forms.CharField(required=False, max_length=120, label=_("Batch"),
                            help_text=_("Put the posts in this batch (created if new)."))
    with_labels = forms.BooleanField(required=False, label=_("With labels"),
                                     help_text=_("The file's labels become final labels (provenance: imported). "
                                                 "Labelled posts are reference data: a new batch for them is "
                                                 "created locked, in no annotator's queue."))
    as_work = forms.BooleanField(required=False, label=_("Score them as well"),
                                 help_text=_("With labels and a batch: put the labelled posts in the batch as "
                                             "annotation work all the same."))

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > settings.IMPORT_MAX_BYTES:
            raise forms.ValidationError(_("The file is %(size)s bytes; the limit is %(limit)s.") % {
                "size": number_format(upload.size, force_grouping=True),
                "limit": number_format(settings.IMPORT_MAX_BYTES, force_grouping=True)})
        if not upload.name.lower().endswith((".csv", ".jsonl", ".ndjson", ".txt")):
            raise forms.ValidationError(_("Upload a .csv or .jsonl file."))
        return upload
