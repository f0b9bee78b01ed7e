"""Guideline v2: the rubric in force, with each of the paper's explanations also in Simplified
Chinese. A new version, so every judgment still records the exact text its annotator was shown."""
from django.db import migrations

from annotation.rubric import rubric_with_chinese

TITLE = "MAAM paper annotation guidance (English and Simplified Chinese)"


def forward(apps, schema_editor):
    Guideline = apps.get_model("annotation", "Guideline")
    current = Guideline.objects.filter(is_active=True).order_by("-version").first()
    if current is None:
        return
    rubric = rubric_with_chinese(current.rubric)
    if rubric != current.rubric:  # nothing to add (a researcher's own wording, or already bilingual): no new version
        Guideline.objects.create(version=current.version + 1, title=TITLE, rubric=rubric)


def backward(apps, schema_editor):
    apps.get_model("annotation", "Guideline").objects.filter(title=TITLE).delete()


class Migration(migrations.Migration):
    dependencies = [("annotation", "0007_annotator_quality")]
    operations = [migrations.RunPython(forward, backward)]
