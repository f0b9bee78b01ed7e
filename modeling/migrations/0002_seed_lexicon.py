from django.db import migrations

from modeling.maam.lexicon import CODED_TERMS, PAPER_TOP30


def seed(apps, schema_editor):
    LexiconTerm = apps.get_model("modeling", "LexiconTerm")
    for term in PAPER_TOP30:
        LexiconTerm.objects.get_or_create(term=term, defaults={"kind": "identity", "note": "paper top-30"})
    for term in CODED_TERMS:
        LexiconTerm.objects.get_or_create(term=term, defaults={"kind": "coded"})


class Migration(migrations.Migration):
    dependencies = [("modeling", "0001_initial")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
