from django.db import migrations

from annotation.rubric import PAPER_RUBRIC


def seed(apps, schema_editor):
    Guideline = apps.get_model("annotation", "Guideline")
    Group = apps.get_model("auth", "Group")
    Guideline.objects.get_or_create(version=1, defaults={"title": "MAAM paper annotation guidance", "rubric": PAPER_RUBRIC})
    for name in ("annotator", "adjudicator", "researcher"):
        Group.objects.get_or_create(name=name)


class Migration(migrations.Migration):
    dependencies = [("annotation", "0001_initial"), ("auth", "0012_alter_user_first_name_max_length")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
