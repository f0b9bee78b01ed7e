"""Wellbeing API for annotators: the queue gate (a DRF permission the queue endpoints use), accepting
a batch's content notice, and setting the current post aside as too distressing to score."""
from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.assignment import selectors as assignment_selectors
from annotation.assignment import services as assignment_services
from annotation.assignment.serializers import QueueItemOut, item_field
from core.errors import DomainError
from core.permissions import IsAnnotator

from . import selectors, services

DAILY_CAP = "daily_cap"  # QueueItemOut.pause: no item now, the day's cap is reached


class NoticeRequired(DomainError):
    status_code = 403


class QueueGate(BasePermission):
    """For the queue endpoints (next, submit, skip, set aside): refuses (403, with where to accept it)
    until the annotator has accepted the batch's content notice, and leaves the day's cap on the
    request (`request.wellbeing_gate`) for the view. One statement (selectors.queue_gate)."""

    def has_permission(self, request, view) -> bool:
        batch_id = view.kwargs.get("batch_id")
        if batch_id is None or not request.user.is_authenticated:
            return True
        gate = selectors.queue_gate(annotator=request.user, batch_id=batch_id)
        request.wellbeing_gate = gate
        if gate.notice_pending:
            raise NoticeRequired(_("Read and accept this batch's content notice before scoring: %(url)s")
                                 % {"url": reverse("wellbeing:notice", args=[batch_id])})
        return True


def capped(request, scored_now: int = 0) -> bool:
    """Whether the annotator reached the day's cap (after `scored_now` more posts this request)."""
    gate = getattr(request, "wellbeing_gate", None)
    return gate is not None and gate.cap_left is not None and gate.cap_left - scored_now <= 0


def paused_item(annotator, batch_id: int) -> dict:
    """The queue item served when the day's cap is reached: no post, and why."""
    batch = assignment_selectors.batch_for_annotator(annotator, batch_id)
    return {**assignment_selectors.queue_item(annotator=annotator, batch=batch, assignment=None), "pause": DAILY_CAP}


class SetAsideIn(serializers.Serializer):
    item = item_field()


class SetAsideApi(APIView):
    """"Too distressing to score": the item goes back to the pool for others, is never served to you
    again, and counts neither as a skip nor against you; answers with your next item."""

    permission_classes = [IsAnnotator, QueueGate]

    @extend_schema(request=SetAsideIn, responses=QueueItemOut)
    def post(self, request, batch_id: int):
        data = SetAsideIn(data=request.data)
        data.is_valid(raise_exception=True)
        services.claim_set_aside(annotator=request.user, claim_id=data.validated_data["item"])
        if capped(request):
            return Response(QueueItemOut(paused_item(request.user, batch_id)).data)
        assignment = assignment_services.assignment_next(annotator=request.user, batch_id=batch_id)
        batch = assignment_selectors.batch_for_annotator(request.user, batch_id) if assignment is None else (
            assignment.gold_batch if assignment.gold_batch_id else assignment.post.batch)
        return Response(QueueItemOut(assignment_selectors.queue_item(annotator=request.user, batch=batch,
                                                                     assignment=assignment)).data)


class NoticeOut(serializers.Serializer):
    batch = serializers.IntegerField()
    notice = serializers.CharField()
    accepted_at = serializers.DateTimeField(allow_null=True)


class NoticeApi(APIView):
    """GET: the batch's content notice and whether you accepted it; POST: accept it."""

    permission_classes = [IsAnnotator]

    @extend_schema(responses=NoticeOut)
    def get(self, request, batch_id: int):
        assignment_selectors.batch_for_annotator(request.user, batch_id)  # NotFound unless in my queue
        row = selectors.batch_wellbeing(batch_id)
        accepted = row.pk and row.batch.notice_acceptances.filter(annotator=request.user).first()
        return Response(NoticeOut({"batch": batch_id, "notice": row.notice(),
                                   "accepted_at": accepted.accepted_at if accepted else None}).data)

    @extend_schema(request=None, responses={201: NoticeOut})
    def post(self, request, batch_id: int):
        assignment_selectors.batch_for_annotator(request.user, batch_id)
        accepted = services.notice_accept(annotator=request.user, batch_id=batch_id)
        return Response(NoticeOut({"batch": batch_id, "notice": accepted.notice_text,
                                   "accepted_at": accepted.accepted_at}).data, status=status.HTTP_201_CREATED)
