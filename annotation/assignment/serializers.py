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


class JudgmentSubmitIn(ScoreFields):
    post = serializers.IntegerField(min_value=1, max_value=MAX_ID)
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
    post = serializers.IntegerField(source="post_id")
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
        return obj.revisions.count()


class ProgressOut(serializers.Serializer):
    done = serializers.IntegerField()
    skipped = serializers.IntegerField()
    total = serializers.IntegerField()


class QueueItemOut(serializers.Serializer):
    post = serializers.IntegerField(allow_null=True)
    text = serializers.CharField(allow_null=True)
    batch = serializers.IntegerField()
    batch_locked = serializers.BooleanField()
    progress = ProgressOut()
    guideline_version = serializers.IntegerField(allow_null=True)


class SubmitAndNextOut(serializers.Serializer):
    """A submitted judgment and the next item of the queue, in one response."""

    judgment = JudgmentOut()
    next = QueueItemOut()


class SkipIn(serializers.Serializer):
    post = serializers.IntegerField(min_value=1, max_value=MAX_ID)


class BatchOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    locked = serializers.BooleanField(source="is_locked")


def scores_of(validated: dict) -> dict[str, int]:
    """The scores present in a validated request."""
    return {d: validated[d] for d in DIMENSIONS if d in validated}
