"""REST API for annotators: queue, submit, revise, skip. Thin: validate, call a service, serialise."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import NotFound
from core.permissions import IsAnnotator

from . import selectors, services


class ScoreFields(serializers.Serializer):
    explicit = serializers.IntegerField(min_value=1, max_value=5)
    implicit = serializers.IntegerField(min_value=1, max_value=5)
    emotional = serializers.IntegerField(min_value=1, max_value=5)


MAX_ID = 2**63 - 1


class JudgmentSubmitIn(ScoreFields):
    post = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    seconds_spent = serializers.FloatField(required=False, default=0.0, min_value=0, max_value=86400)
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000)
    flagged = serializers.BooleanField(required=False, default=False)


class JudgmentReviseIn(serializers.Serializer):
    explicit = serializers.IntegerField(min_value=1, max_value=5, required=False)
    implicit = serializers.IntegerField(min_value=1, max_value=5, required=False)
    emotional = serializers.IntegerField(min_value=1, max_value=5, required=False)
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


class SkipIn(serializers.Serializer):
    post = serializers.IntegerField(min_value=1, max_value=MAX_ID)


class BatchOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    locked = serializers.BooleanField(source="is_locked")


class BatchListApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=BatchOut(many=True))
    def get(self, request):
        return Response(BatchOut(selectors.batches_for_annotator(request.user), many=True).data)


def queue_item_payload(*, annotator, batch_id: int) -> dict:
    assignment = services.assignment_next(annotator=annotator, batch_id=batch_id)
    batch = assignment.post.batch if assignment else services.batch_for_annotator(annotator, batch_id)
    guideline = services.guideline_current()
    return {
        "post": assignment.post_id if assignment else None,
        "text": assignment.post.text if assignment else None,
        "batch": batch.id,
        "batch_locked": batch.is_locked,
        "progress": selectors.batch_progress(annotator=annotator, batch=batch),
        "guideline_version": guideline.version if guideline else None,
    }


class QueueNextApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=QueueItemOut)
    def get(self, request, batch_id: int):
        return Response(QueueItemOut(queue_item_payload(annotator=request.user, batch_id=batch_id)).data)


class QueueSkipApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(request=SkipIn, responses=QueueItemOut)
    def post(self, request, batch_id: int):
        data = SkipIn(data=request.data)
        data.is_valid(raise_exception=True)
        services.assignment_skip(annotator=request.user, post_id=data.validated_data["post"])
        return Response(QueueItemOut(queue_item_payload(annotator=request.user, batch_id=batch_id)).data)


class JudgmentListApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=JudgmentOut(many=True))
    def get(self, request):
        qs = selectors.judgments_of(request.user).select_related("guideline").prefetch_related("revisions")[:500]
        return Response(JudgmentOut(qs, many=True).data)

    @extend_schema(request=JudgmentSubmitIn, responses={201: JudgmentOut})
    def post(self, request):
        data = JudgmentSubmitIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        scores = {d: v[d] for d in ("explicit", "implicit", "emotional")}
        try:
            judgment = services.judgment_submit(
                annotator=request.user, post_id=v["post"], scores=scores,
                seconds_spent=v["seconds_spent"], note=v["note"], flagged=v["flagged"],
            )
        except services.PostTaken as exc:
            # Give the annotator back what they typed: it was not saved, and it must not vanish silently.
            return Response({"detail": str(exc), "entered": {**scores, "note": v["note"], "flagged": v["flagged"]}},
                            status=status.HTTP_409_CONFLICT)
        return Response(JudgmentOut(judgment).data, status=status.HTTP_201_CREATED)


class JudgmentDetailApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=JudgmentOut)
    def get(self, request, judgment_id: int):
        judgment = selectors.judgments_of(request.user).filter(pk=judgment_id).first()
        if judgment is None:
            raise NotFound("No such judgment of yours.")
        return Response(JudgmentOut(judgment).data)

    @extend_schema(request=JudgmentReviseIn, responses=JudgmentOut)
    def patch(self, request, judgment_id: int):
        data = JudgmentReviseIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        scores = {d: v[d] for d in ("explicit", "implicit", "emotional") if d in v}
        judgment = services.judgment_revise(
            annotator=request.user, judgment_id=judgment_id, scores=scores or None,
            note=v.get("note"), flagged=v.get("flagged"), seconds_spent=v["seconds_spent"],
        )
        return Response(JudgmentOut(judgment).data)
