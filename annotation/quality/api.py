"""REST API for annotator quality. Annotators: their qualification round. Researchers: per-annotator
figures and alerts, gold items, batches' gold rate and qualification, attempts and resets, the
model-based aggregation and its labels beside the rounded mean. Thin: validate, call one service
or selector, serialise."""
from __future__ import annotations

import json

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from core.converters import parse_id
from core.errors import DomainError, NotFound
from core.permissions import IsAnnotator, IsResearcher
from wellbeing.api import QueueGate

from ..adjudication.rounding import round_half_up
from ..assignment.selectors import batch_for_annotator
from ..models import DIMENSIONS, Batch
from ..visibility import (
    GOLD_HIDDEN_MESSAGE,
    gold_hidden_from,
    qualification_gold_withheld,
    report_visible_to,
    run_summary_visible_to,
)
from . import selectors, services
from .serializers import (
    AggregateOut,
    AggregationOut,
    AggregationRunOut,
    AlertOut,
    AnnotatorQualityDetailOut,
    BatchQualityIo,
    GoldItemOut,
    GoldMarkIn,
    QualificationAttemptOut,
    QualificationIn,
    QualificationOut,
    QualityReportOut,
    ResearcherAttemptOut,
    ResetIn,
    scores_in,
)

LISTED = 500


def _limit_offset(request, default: int = LISTED) -> tuple[int, int]:
    limit = parse_id(request.query_params.get("limit"))
    offset = parse_id(request.query_params.get("offset")) or 0
    return min(limit or default, LISTED), offset


# --- Annotators --------------------------------------------------------------------------------------

def _qualification_payload(annotator, batch) -> dict:
    state = selectors.qualification_state(annotator=annotator, batch=batch)
    latest = state.attempts[-1] if state.attempts else None
    review = []
    if latest is not None and state.awaiting_reset:  # never beside a new attempt (visibility rule 3)
        withheld = qualification_gold_withheld(annotator)
        review = [{"post": a.gold_item.post_id, "text": a.gold_item.post.text, "scores": a.scores(),
                   "gold": None if a.gold_item_id in withheld else a.gold}
                  for a in latest.answers.select_related("gold_item__post")]
    return {"batch": batch.pk, "required": state.required, "passed": state.passed, "can_attempt": state.can_attempt,
            "awaiting_reset": state.awaiting_reset,
            "items": list(selectors.qualification_items(state.quality)) if state.can_attempt else [],
            "attempts": state.attempts, "review": review}


class QualificationApi(APIView):
    """A batch's qualification round for the annotator asking: the posts to score, their attempts,
    and after a failed attempt their scores beside the gold labels."""

    permission_classes = [IsAnnotator, QueueGate]  # its posts come after the batch's content notice

    @extend_schema(responses=QualificationOut)
    def get(self, request, batch_id: int):
        batch = batch_for_annotator(request.user, batch_id)
        return Response(QualificationOut(_qualification_payload(request.user, batch)).data)

    @extend_schema(request=QualificationIn, responses={201: QualificationAttemptOut})
    def post(self, request, batch_id: int):
        data = QualificationIn(data=request.data)
        data.is_valid(raise_exception=True)
        answers: dict[int, dict[str, int]] = {}
        for answer in data.validated_data["answers"]:
            if answer["post"] in answers:
                raise DomainError(_("Each post once, please."))
            answers[answer["post"]] = scores_in(answer)
        attempt = services.qualification_submit(annotator=request.user, batch_id=batch_id, answers=answers)
        return Response(QualificationAttemptOut(attempt).data, status=status.HTTP_201_CREATED)


# --- Researchers -------------------------------------------------------------------------------------

def _stored_report(viewer) -> dict:
    """The newest quality run's report (never computed by a request), or an empty one before the
    first run; with when it was computed and whether it is still current. As the visibility policy
    lets `viewer` see it (report_visible_to: no gold figures, nor their own, for someone who annotates)."""
    stored = selectors.report_latest()
    if stored is None:
        import dataclasses

        empty = {"thresholds": dataclasses.asdict(selectors.alert_thresholds()), "n_judgments": 0,
                 "n_gold_judgments": 0, "n_gold_items": 0, "annotators": [], "alerts": [], "series": {}}
        return {"withheld": None, **report_visible_to(viewer, empty), "computed_at": None, "current": False}
    report = report_visible_to(viewer, stored.report)
    return {"withheld": None, **report, "computed_at": stored.run.finished_at, "current": stored.current}


class AnnotatorQualityListApi(APIView):
    """Every annotator's quality figures, best first: gold MAE and within-one per dimension with
    counts, recent ordinal α against the others, median seconds per post, the model's reliability
    and the alerts."""

    permission_classes = [IsResearcher]

    @extend_schema(responses=QualityReportOut, operation_id="quality_annotators_list")
    def get(self, request):
        return Response(QualityReportOut(_stored_report(request.user)).data)


class AnnotatorQualityDetailApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses=AnnotatorQualityDetailOut, operation_id="quality_annotator_retrieve")
    def get(self, request, annotator_id: int):
        if not get_user_model().objects.filter(pk=annotator_id).exists():
            raise NotFound(_("No such annotator."))
        report = _stored_report(request.user)
        attempts = ResearcherAttemptOut(selectors.qualification_attempts(annotator_id=annotator_id), many=True).data
        return Response(AnnotatorQualityDetailOut({
            "annotator": selectors.annotator_row(report, annotator_id),
            "series": report["series"].get(str(annotator_id), {}), "withheld": report["withheld"],
            "qualification_attempts": json.loads(json.dumps(attempts, default=str))}).data)


class AlertListApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses=AlertOut(many=True))
    def get(self, request):
        return Response(AlertOut(_stored_report(request.user)["alerts"], many=True).data)


class GoldListApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(parameters=[OpenApiParameter("limit", int), OpenApiParameter("offset", int)],
                   responses=GoldItemOut(many=True))
    def get(self, request):
        if gold_hidden_from(request.user):
            raise PermissionDenied(GOLD_HIDDEN_MESSAGE)
        limit, offset = _limit_offset(request)
        return Response(GoldItemOut(selectors.gold_items()[offset:offset + limit], many=True).data)

    @extend_schema(request=GoldMarkIn, responses={201: GoldItemOut(many=True)})
    def post(self, request):
        """Mark gold items: `adjudicated` (posts), `release` (release with keys or a sample) or
        `upload` (rows of text with labels)."""
        data = GoldMarkIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        if v["source"] == "adjudicated":
            made = services.gold_mark_from_adjudicated(post_ids=v["posts"], created_by=request.user)
        elif v["source"] == "release":
            made = services.gold_mark_from_release(release_number=v["release"], keys=v.get("keys"),
                                                   sample=v.get("sample"), seed=v["seed"], created_by=request.user)
        else:
            lines = [json.dumps({"text": r["text"], **scores_in(r)}, ensure_ascii=False) for r in v["rows"]]
            try:
                made = services.gold_upload(data="\n".join(lines).encode("utf-8"), filename="rows.jsonl",
                                            created_by=request.user)
            except services.ImportFailed as exc:
                return Response({"detail": _("Nothing was marked."), "problems": [str(p) for p in exc.problems[:200]]},
                                status=status.HTTP_400_BAD_REQUEST)
        items = selectors.gold_items().filter(pk__in=[g.pk for g in made])
        return Response(GoldItemOut(items, many=True).data, status=status.HTTP_201_CREATED)


def _batch_quality_out(quality) -> dict:
    return {"gold_rate": quality.gold_rate, "qualification_required": quality.qualification_required,
            "qualification_posts": sorted(quality.qualification_items.values_list("post_id", flat=True))
            if quality.pk else [], "pass_max_mae": quality.pass_thresholds()}


class BatchQualityApi(APIView):
    """A batch's gold rate (share of each annotator's items that are gold) and qualification round
    (required or not, its fixed set of gold posts, the largest MAE per dimension that passes)."""

    permission_classes = [IsResearcher]

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        # Its qualification set lists gold posts, and its errors name posts that are not gold.
        if gold_hidden_from(request.user):
            raise PermissionDenied(GOLD_HIDDEN_MESSAGE)

    @extend_schema(responses=BatchQualityIo)
    def get(self, request, batch_id: int):
        batch = Batch.objects.filter(pk=batch_id).first()
        if batch is None:
            raise NotFound(_("No such batch."))
        return Response(BatchQualityIo(_batch_quality_out(selectors.batch_quality(batch))).data)

    @extend_schema(request=BatchQualityIo, responses=BatchQualityIo)
    def patch(self, request, batch_id: int):
        data = BatchQualityIo(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        thresholds = {d: x for d, x in (v.get("pass_max_mae") or {}).items() if x is not None and d in DIMENSIONS}
        quality = services.batch_quality_set(
            batch_id=batch_id, gold_rate=v.get("gold_rate"), qualification_required=v.get("qualification_required"),
            qualification_post_ids=v.get("qualification_posts"), pass_max_mae=thresholds)
        return Response(BatchQualityIo(_batch_quality_out(quality)).data)


class QualificationAttemptListApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(parameters=[OpenApiParameter("batch", int), OpenApiParameter("annotator", int)],
                   responses=ResearcherAttemptOut(many=True))
    def get(self, request):
        qs = selectors.qualification_attempts(batch_id=parse_id(request.query_params.get("batch")),
                                              annotator_id=parse_id(request.query_params.get("annotator")))
        return Response(ResearcherAttemptOut(qs[:LISTED], many=True).data)


class QualificationResetApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(request=ResetIn, responses=ResearcherAttemptOut)
    def post(self, request):
        data = ResetIn(data=request.data)
        data.is_valid(raise_exception=True)
        attempt = services.qualification_reset(batch_id=data.validated_data["batch"],
                                               annotator_id=data.validated_data["annotator"], reset_by=request.user)
        return Response(ResearcherAttemptOut(attempt).data)


class AggregationApi(APIView):
    permission_classes = [IsResearcher]

    @staticmethod
    def _run(run, viewer) -> dict | None:
        """A run as `viewer` may see it: its stored report through the visibility policy (issue 30)."""
        if run is None:
            return None
        data = dict(AggregationRunOut(run).data)
        data["summary"] = run_summary_visible_to(viewer, data["summary"])
        return data

    @extend_schema(responses=AggregationOut)
    def get(self, request):
        latest = selectors.aggregation_latest()
        return Response({"latest": self._run(latest, request.user), "current": selectors.aggregation_is_current(latest),
                         "pending": self._run(selectors.aggregation_pending(), request.user)})

    @extend_schema(request=None, responses={202: AggregationRunOut})
    def post(self, request):
        run = services.aggregation_request(requested_by=request.user)
        run.refresh_from_db()
        return Response(self._run(run, request.user), status=status.HTTP_202_ACCEPTED)


class AggregateListApi(APIView):
    """The model-based label of each post beside the rounded mean of its counted judgments (as they
    are now), with the aggregate's confidence; `disagreeing=1` lists only posts where they differ."""

    permission_classes = [IsResearcher]

    @extend_schema(parameters=[OpenApiParameter("disagreeing", bool), OpenApiParameter("limit", int),
                               OpenApiParameter("offset", int)], responses=AggregateOut(many=True))
    def get(self, request):
        limit, offset = _limit_offset(request)
        disagreeing = request.query_params.get("disagreeing", "").lower() in ("1", "true", "yes")
        rows = []
        for label in selectors.aggregate_rows(viewer=request.user, disagreeing_only=disagreeing)[offset:offset + limit]:
            means = {d: None if getattr(label, f"{d}_mean") is None else round_half_up(getattr(label, f"{d}_mean"))
                     for d in DIMENSIONS}
            aggregate = label.scores()
            rows.append({"post": label.post_id, "aggregate": aggregate, "confidence": label.confidences(),
                         "rounded_mean": means,
                         "disagrees": any(aggregate[d] is not None and means[d] is not None and aggregate[d] != means[d]
                                          for d in DIMENSIONS)})
        return Response(AggregateOut(rows, many=True).data)
