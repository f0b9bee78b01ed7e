"""`backup` and `restore --check` count the same files (issue 31, item 8: 117 vs 118): the media files,
the database's own file said apart."""
from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command

from tests.backups.test_backup import media, signing_key_file  # noqa: F401  (fixtures)


@pytest.mark.django_db
def test_backup_and_restore_check_count_the_same_files(media):  # noqa: F811
    made, checked = io.StringIO(), io.StringIO()
    call_command("backup", str(media / "backup"), stdout=made)
    call_command("restore", str(media / "backup"), "--check", stdout=checked)
    (backed_up,) = re.findall(r"(\d+) files", made.getvalue())
    (verified,) = re.findall(r"(\d+) files", checked.getvalue())
    assert backed_up == verified == "3"  # release.csv, the upload and the model; the database apart
    assert "the database and 3 files" in checked.getvalue()
