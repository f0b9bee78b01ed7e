from django import forms
from django.conf import settings


class PostUploadForm(forms.Form):
    file = forms.FileField(help_text="CSV in ChLGBT format (Sentences[,Explicit,Implicit,Emotional]) or JSONL.")
    batch = forms.CharField(required=False, max_length=120, help_text="Put the posts in this batch (created if new).")
    with_labels = forms.BooleanField(required=False, help_text="The file's labels become final labels (provenance: imported).")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > settings.IMPORT_MAX_BYTES:
            raise forms.ValidationError(f"The file is {upload.size:,} bytes; the limit is {settings.IMPORT_MAX_BYTES:,}.")
        if not upload.name.lower().endswith((".csv", ".jsonl", ".ndjson", ".txt")):
            raise forms.ValidationError("Upload a .csv or .jsonl file.")
        return upload
