"""REST API for annotators: their batches, claiming the next post, submit, revise, skip.
Thin: validate with a serializer, call one service, serialise the result."""
from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import NotFound
from core.permissions import IsAnnotator
from wellbeing.api import QueueGate, capped, paused_item

from . import selectors, services
from .serializers import (
    BatchOut,
    JudgmentOut,
    JudgmentReviseIn,
    JudgmentSubmitIn,
    QueueItemOut,
    SkipIn,
    SubmitAndNextOut,
    scores_of,
)

JUDGMENTS_LISTED = 500


def _next_item(annotator, batch_id: int) -> dict:
    """Claim the annotator's next post (or resume their open one) and describe it."""
    return _describe(annotator, batch_id, services.assignment_next(annotator=annotator, batch_id=batch_id))


def _describe(annotator, batch_id: int, assignment) -> dict:
    """The queue item for a claimed assignment (or for none left in the batch)."""
    if assignment is None:
        batch = selectors.batch_for_annotator(annotator, batch_id)
    else:  # a gold item is answered for the batch it was served in
        batch = assignment.gold_batch if assignment.gold_batch_id else assignment.post.batch
    return selectors.queue_item(annotator=annotator, batch=batch, assignment=assignment)


def _taken(exc: services.PostTaken, validated: dict) -> Response:
    """409 for a refused late submission. Give the annotator back what they typed: it was not
    saved, and it must not vanish silently."""
    entered = {**scores_of(validated), "note": validated["note"], "flagged": validated["flagged"]}
    return Response({"detail": str(exc), "entered": entered}, status=status.HTTP_409_CONFLICT)


class BatchListApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=BatchOut(many=True))
    def get(self, request):
        return Response(BatchOut(selectors.batches_for_annotator(request.user), many=True).data)


class QueueNextApi(APIView):
    """POST: claiming a post is a write (it holds one of the post's k slots), so it is never a GET."""

    permission_classes = [IsAnnotator, QueueGate]  # QueueGate: the batch's content notice, the daily cap

    @extend_schema(request=None, responses=QueueItemOut)
    def post(self, request, batch_id: int):
        if capped(request):
            return Response(QueueItemOut(paused_item(request.user, batch_id)).data)
        return Response(QueueItemOut(_next_item(request.user, batch_id)).data)


class QueueSkipApi(APIView):
    permission_classes = [IsAnnotator, QueueGate]

    @extend_schema(request=SkipIn, responses=QueueItemOut)
    def post(self, request, batch_id: int):
        data = SkipIn(data=request.data)
        data.is_valid(raise_exception=True)
        services.assignment_skip(annotator=request.user, claim_id=data.validated_data["item"])
        if capped(request):
            return Response(QueueItemOut(paused_item(request.user, batch_id)).data)
        return Response(QueueItemOut(_next_item(request.user, batch_id)).data)


class QueueSubmitApi(APIView):
    """One scoring step in one request: submit the judgment, get the next item back (the annotator
    page uses this; POST judgments/ then POST next/ still work)."""

    permission_classes = [IsAnnotator, QueueGate]

    @extend_schema(request=JudgmentSubmitIn, responses={201: SubmitAndNextOut})
    def post(self, request, batch_id: int):
        data = JudgmentSubmitIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        scores = scores_of(v)
        if capped(request, scored_now=1):  # this post reaches the day's cap: submit it, claim nothing
            try:
                judgment = services.judgment_submit(annotator=request.user, claim_id=v["item"], scores=scores,
                                                    seconds_spent=v["seconds_spent"], note=v["note"],
                                                    flagged=v["flagged"])
            except services.PostTaken as exc:
                return _taken(exc, v)
            out = {"judgment": judgment, "next": paused_item(request.user, batch_id)}
            return Response(SubmitAndNextOut(out).data, status=status.HTTP_201_CREATED)
        try:
            judgment, assignment = services.judgment_submit_and_next(
                annotator=request.user, batch_id=batch_id, claim_id=v["item"], scores=scores,
                seconds_spent=v["seconds_spent"], note=v["note"], flagged=v["flagged"],
            )
        except services.PostTaken as exc:
            return _taken(exc, v)
        out = {"judgment": judgment, "next": _describe(request.user, batch_id, assignment)}
        return Response(SubmitAndNextOut(out).data, status=status.HTTP_201_CREATED)


class JudgmentListApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=JudgmentOut(many=True))
    def get(self, request):
        qs = selectors.judgments_of(request.user).select_related("guideline").prefetch_related("revisions")
        return Response(JudgmentOut(qs[:JUDGMENTS_LISTED], many=True).data)

    @extend_schema(request=JudgmentSubmitIn, responses={201: JudgmentOut})
    def post(self, request):
        data = JudgmentSubmitIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        scores = scores_of(v)
        try:
            judgment = services.judgment_submit(
                annotator=request.user, claim_id=v["item"], scores=scores,
                seconds_spent=v["seconds_spent"], note=v["note"], flagged=v["flagged"],
            )
        except services.PostTaken as exc:
            return _taken(exc, v)
        return Response(JudgmentOut(judgment).data, status=status.HTTP_201_CREATED)


class JudgmentDetailApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=JudgmentOut)
    def get(self, request, judgment_id: int):
        judgment = selectors.judgments_of(request.user).filter(pk=judgment_id).first()
        if judgment is None:
            raise NotFound(_("No such judgment of yours."))
        return Response(JudgmentOut(judgment).data)

    @extend_schema(request=JudgmentReviseIn, responses=JudgmentOut)
    def patch(self, request, judgment_id: int):
        data = JudgmentReviseIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        judgment = services.judgment_revise(
            annotator=request.user, judgment_id=judgment_id, scores=scores_of(v) or None,
            note=v.get("note"), flagged=v.get("flagged"), seconds_spent=v["seconds_spent"],
        )
        return Response(JudgmentOut(judgment).data)
