"""What the annotation API takes and returns."""
from __future__ import annotations

from rest_framework import serializers

from ..models import DIMENSIONS
from ..scores import SCORE_MAX, SCORE_MIN


def score_field(**kwargs) -> serializers.IntegerField:
    """A score in a request; the services check it again with the one score rule."""
    return serializers.IntegerField(min_value=SCORE_MIN, max_value=SCORE_MAX, **kwargs)


class ScoreFields(serializers.Serializer):
    explicit = score_field()
    implicit = score_field()
    emotional = score_field()


MAX_ID = 2**63 - 1


def item_field() -> serializers.IntegerField:
    """The queue item: the id of the annotator's claim on a post, never the post's own id. Post ids
    are global, so a gold item (a post of an older batch, or an uploaded one) would stand out by its
    id; claims are numbered as they are made, gold or not (issue 12)."""
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="The queue item's id (from next/).")


class JudgmentSubmitIn(ScoreFields):
    item = item_field()
    seconds_spent = serializers.FloatField(required=False, default=0.0, min_value=0, max_value=86400)
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000)
    flagged = serializers.BooleanField(required=False, default=False)


class JudgmentReviseIn(serializers.Serializer):
    explicit = score_field(required=False)
    implicit = score_field(required=False)
    emotional = score_field(required=False)
    seconds_spent = serializers.FloatField(required=False, default=0.0, min_value=0, max_value=86400)
    note = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    flagged = serializers.BooleanField(required=False)


class JudgmentOut(serializers.Serializer):
    id = serializers.IntegerField()
    item = serializers.IntegerField(allow_null=True, help_text="The queue item this judgment answers (null for a "
                                                               "judgment imported without a claim).")
    post_text = serializers.CharField(source="post.text")
    explicit = serializers.IntegerField(allow_null=True)
    implicit = serializers.IntegerField(allow_null=True)
    emotional = serializers.IntegerField(allow_null=True)
    note = serializers.CharField()
    flagged = serializers.BooleanField()
    seconds_spent = serializers.FloatField()
    guideline_version = serializers.IntegerField(source="guideline.version", allow_null=True, default=None)
    revisions = serializers.SerializerMethodField()
    updated_at = serializers.DateTimeField()

    def get_revisions(self, obj) -> int:
        known = getattr(obj, "revision_count", None)  # a judgment just created has none
        return obj.revisions.count() if known is None else known


class ProgressOut(serializers.Serializer):
    done = serializers.IntegerField()
    skipped = serializers.IntegerField()
    total = serializers.IntegerField()


class QueueItemOut(serializers.Serializer):
    item = serializers.IntegerField(allow_null=True, help_text="Send it back with submit/ or skip/; null when "
                                                               "nothing is left.")
    text = serializers.CharField(allow_null=True)
    batch = serializers.IntegerField()
    batch_locked = serializers.BooleanField()
    progress = ProgressOut()
    guideline_version = serializers.IntegerField(allow_null=True)
    pause = serializers.CharField(allow_null=True, required=False, default=None,
                                  help_text="Why no item is served although the batch has some: daily_cap (the "
                                            "batch's daily cap is reached; wellbeing/).")


class SubmitAndNextOut(serializers.Serializer):
    """A submitted judgment and the next item of the queue, in one response."""

    judgment = JudgmentOut()
    next = QueueItemOut()


class SkipIn(serializers.Serializer):
    item = item_field()


class BatchOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    locked = serializers.BooleanField(source="is_locked")


def scores_of(validated: dict) -> dict[str, int]:
    """The scores present in a validated request."""
    return {d: validated[d] for d in DIMENSIONS if d in validated}
