"""What the quality API takes and returns."""
from __future__ import annotations

from rest_framework import serializers

from ..assignment.serializers import MAX_ID, ScoreFields
from ..models import DIMENSIONS, GoldSource

MAX_LIST = 5000


class DimensionFloats(serializers.Serializer):
    explicit = serializers.FloatField(allow_null=True)
    implicit = serializers.FloatField(allow_null=True)
    emotional = serializers.FloatField(allow_null=True)


class Scores(serializers.Serializer):
    explicit = serializers.IntegerField(allow_null=True)
    implicit = serializers.IntegerField(allow_null=True)
    emotional = serializers.IntegerField(allow_null=True)


# --- Annotators: the qualification round --------------------------------------------------------

class QualificationItemOut(serializers.Serializer):
    post = serializers.IntegerField(source="post_id")
    text = serializers.CharField(source="post.text")


class QualificationReviewOut(serializers.Serializer):
    post = serializers.IntegerField()
    text = serializers.CharField()
    scores = Scores()
    gold = Scores(allow_null=True, help_text="null for an item of a round you may still take")


class QualificationAttemptOut(serializers.Serializer):
    number = serializers.IntegerField()
    passed = serializers.BooleanField()
    mae = DimensionFloats()
    thresholds = DimensionFloats()
    submitted_at = serializers.DateTimeField()
    reset = serializers.SerializerMethodField()

    def get_reset(self, obj) -> bool:
        return obj.reset_at is not None


class QualificationOut(serializers.Serializer):
    batch = serializers.IntegerField()
    required = serializers.BooleanField()
    passed = serializers.BooleanField()
    can_attempt = serializers.BooleanField()
    awaiting_reset = serializers.BooleanField()
    items = QualificationItemOut(many=True, help_text="The posts to score, while an attempt is allowed.")
    attempts = QualificationAttemptOut(many=True)
    review = QualificationReviewOut(many=True, help_text="After a failed attempt: your scores beside gold.")


class QualificationAnswerIn(ScoreFields):
    post = serializers.IntegerField(min_value=1, max_value=MAX_ID)


class QualificationIn(serializers.Serializer):
    answers = QualificationAnswerIn(many=True, max_length=MAX_LIST)


# --- Researchers ----------------------------------------------------------------------------------

WITHHELD_HELP = "null where withheld from someone who also annotates (see `withheld`)"


class GoldFigureOut(serializers.Serializer):
    n = serializers.IntegerField(allow_null=True, help_text=WITHHELD_HELP)
    mae = serializers.FloatField(allow_null=True)
    within_one = serializers.FloatField(allow_null=True)


class GoldFiguresOut(serializers.Serializer):
    explicit = GoldFigureOut()
    implicit = GoldFigureOut()
    emotional = GoldFigureOut()


class AlertOut(serializers.Serializer):
    annotator = serializers.IntegerField()
    username = serializers.CharField()
    kind = serializers.ChoiceField(choices=["low_agreement", "gold_error_rising", "gold_error_high", "biased",
                                            "speeding"])
    dimension = serializers.CharField(allow_null=True)
    value = serializers.FloatField(allow_null=True)
    threshold = serializers.FloatField(allow_null=True)
    since = serializers.FloatField(help_text="epoch seconds of the first judgment behind the alert")
    until = serializers.FloatField(help_text="epoch seconds of the last judgment behind the alert")


class ReliabilityOut(serializers.Serializer):
    bias = serializers.FloatField(allow_null=True)
    scale = serializers.FloatField(allow_null=True)
    spam_rate = serializers.FloatField(allow_null=True)
    accuracy = serializers.FloatField(allow_null=True)
    expected_abs_error = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField()


class ReliabilitiesOut(serializers.Serializer):
    explicit = ReliabilityOut(required=False)
    implicit = ReliabilityOut(required=False)
    emotional = ReliabilityOut(required=False)


class AnnotatorQualityOut(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    pseudonym = serializers.CharField()
    rank = serializers.IntegerField(allow_null=True, help_text=WITHHELD_HELP)
    n_judgments = serializers.IntegerField()
    n_gold = serializers.IntegerField(allow_null=True, help_text=WITHHELD_HELP)
    gold = GoldFiguresOut()
    recent_alpha = DimensionFloats()
    median_seconds = serializers.FloatField(allow_null=True)
    reliability = ReliabilitiesOut(allow_null=True)
    alerts = AlertOut(many=True)


class ThresholdsOut(serializers.Serializer):
    min_alpha = serializers.FloatField()
    alpha_window = serializers.IntegerField()
    alpha_min_pairs = serializers.IntegerField()
    gold_window = serializers.IntegerField()
    gold_baseline = serializers.IntegerField()
    gold_rise = serializers.FloatField()
    gold_min_z = serializers.FloatField()
    seconds_floor = serializers.FloatField()
    seconds_window = serializers.IntegerField()
    seconds_min_judgments = serializers.IntegerField()


class QualityReportOut(serializers.Serializer):
    computed_at = serializers.DateTimeField(allow_null=True, help_text="when the newest quality run computed it")
    current = serializers.BooleanField(help_text="nothing it reads has changed since")
    thresholds = ThresholdsOut()
    n_judgments = serializers.IntegerField()
    n_gold_judgments = serializers.IntegerField(allow_null=True, help_text=WITHHELD_HELP)
    n_gold_items = serializers.IntegerField()
    annotators = AnnotatorQualityOut(many=True)
    withheld = serializers.CharField(allow_null=True, help_text="why some figures are not shown to you (null: none)")


class AnnotatorQualityDetailOut(serializers.Serializer):
    annotator = AnnotatorQualityOut(allow_null=True)
    series = serializers.JSONField(help_text="alpha and gold_error: {dimension: [times, values]}; seconds: "
                                             "[times, values]; times in epoch seconds")
    qualification_attempts = serializers.ListField(child=serializers.DictField())
    withheld = serializers.CharField(allow_null=True, help_text="why some figures are not shown to you (null: none)")


class GoldItemOut(serializers.Serializer):
    post = serializers.IntegerField(source="post_id")
    text = serializers.CharField(source="post.text")
    explicit = serializers.IntegerField()
    implicit = serializers.IntegerField()
    emotional = serializers.IntegerField()
    source = serializers.ChoiceField(choices=GoldSource.choices)
    release = serializers.IntegerField(source="release.number", allow_null=True, default=None)
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()


class GoldRowIn(ScoreFields):
    text = serializers.CharField(max_length=10_000)


class GoldMarkIn(serializers.Serializer):
    source = serializers.ChoiceField(choices=GoldSource.choices)
    posts = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=MAX_ID), required=False,
                                  max_length=MAX_LIST, help_text="adjudicated: the posts whose labels become gold")
    release = serializers.IntegerField(required=False, min_value=1, max_value=2**31 - 1)
    keys = serializers.ListField(child=serializers.CharField(max_length=64), required=False, max_length=MAX_LIST,
                                 help_text="release: the release's post ids")
    sample = serializers.IntegerField(required=False, min_value=1, max_value=100_000,
                                      help_text="release: a random sample of this size instead of keys")
    seed = serializers.IntegerField(required=False, default=0, min_value=0, max_value=2**31 - 1)
    rows = GoldRowIn(many=True, required=False, max_length=MAX_LIST, help_text="upload: texts with labels")

    def validate(self, data):
        needs = {"adjudicated": "posts", "release": "release", "upload": "rows"}[data["source"]]
        if not data.get(needs):
            raise serializers.ValidationError({needs: f"required when source is {data['source']}"})
        return data


class BatchQualityIo(serializers.Serializer):
    gold_rate = serializers.FloatField(required=False, min_value=0, max_value=0.5)
    qualification_required = serializers.BooleanField(required=False)
    qualification_posts = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
                                                required=False, max_length=1000)
    pass_max_mae = DimensionFloats(required=False)


class ResetIn(serializers.Serializer):
    batch = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    annotator = serializers.IntegerField(min_value=1, max_value=MAX_ID)


class ResearcherAttemptOut(QualificationAttemptOut):
    batch = serializers.IntegerField(source="batch_id")
    annotator = serializers.IntegerField(source="annotator_id")
    username = serializers.CharField(source="annotator.username")


class AggregationRunOut(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    summary = serializers.JSONField(allow_null=True)


class AggregationOut(serializers.Serializer):
    latest = AggregationRunOut(allow_null=True)
    current = serializers.BooleanField(help_text="fitted on the judgments as they are now")
    pending = AggregationRunOut(allow_null=True)


class AggregateOut(serializers.Serializer):
    post = serializers.IntegerField()
    aggregate = Scores()
    confidence = DimensionFloats()
    rounded_mean = Scores()
    disagrees = serializers.BooleanField()


def scores_in(validated: dict) -> dict[str, int]:
    return {d: validated[d] for d in DIMENSIONS}

