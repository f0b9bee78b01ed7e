"""Review of issue 27: Batch.post_count is a Django field, so any full save of a Batch instance read
before posts were added writes its stale count back over the one the triggers keep (the admin's
change form does a full save; an import into the same batch may commit in between). Nothing
recounts until the next `migrate`, and the progress bar's total is wrong meanwhile."""
from __future__ import annotations

import pytest

from annotation.importing.services import import_posts
from annotation.models import Batch

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_full_save_of_a_batch_read_before_an_import_keeps_the_count():
    import_posts("Sentences\r\n一条帖子\r\n".encode(), batch_name="open")
    seen_by_admin = Batch.objects.get(name="open")  # the admin's change form reads the row ...
    assert seen_by_admin.post_count == 1
    csv = "Sentences\r\n" + "".join(f"第{i}条新帖子，内容各不相同。\r\n" for i in range(5))
    import_posts(csv.encode(), batch_name="open")  # ... an import into the batch commits meanwhile ...
    seen_by_admin.annotators_per_post = 4
    seen_by_admin.save()  # ... and the form is saved (ModelAdmin.save_model: obj.save())
    batch = Batch.objects.get(name="open")
    assert batch.posts.count() == 6
    assert batch.post_count == batch.posts.count(), "the stale count was written back over the triggers' one"
