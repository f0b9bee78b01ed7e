"""REST endpoints for runs and predictions (researchers only)."""
from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.visibility import visible_to
from core.converters import parse_id
from core.errors import DomainError, NotFound
from core.permissions import IsResearcher

from .models import Prediction, TrainingRun


class RunOut(serializers.ModelSerializer):
    percent = serializers.IntegerField()
    status_display = serializers.CharField(source="get_status_display", read_only=True)  # in the caller's language
    stage_display = serializers.CharField(read_only=True)

    class Meta:
        model = TrainingRun
        fields = ["id", "launch_group", "release", "variant", "dimensions", "seed", "backbone", "hyperparameters",
                  "device", "device_used", "status", "status_display", "stage", "stage_display", "progress_current", "progress_total", "percent", "metrics",
                  "artifact_path", "artifact_checksum", "error", "log_tail", "lexicon_version", "git_revision",
                  "versions", "created_at", "started_at", "updated_at", "finished_at"]


class PredictionOut(serializers.ModelSerializer):
    class Meta:
        model = Prediction
        fields = ["post", "run", "explicit", "implicit", "emotional", "probabilities", "cis_state", "created_at"]


class RunListApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses=RunOut(many=True), parameters=[OpenApiParameter("group", str, required=False)])
    def get(self, request):
        qs = TrainingRun.objects.all()
        if request.query_params.get("group"):
            qs = qs.filter(launch_group=request.query_params["group"])
        return Response(RunOut(qs[:500], many=True).data)


class RunDetailApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses=RunOut)
    def get(self, request, run_id: int):
        run = TrainingRun.objects.filter(pk=run_id).first()
        if run is None:
            raise NotFound(_("No such run."))
        return Response(RunOut(run).data)


class PredictionListApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses=PredictionOut(many=True),
                   parameters=[OpenApiParameter("post", int, required=False), OpenApiParameter("run", int, required=False)])
    def get(self, request):
        qs = visible_to(request.user, Prediction.objects.order_by("-created_at", "-id"))
        for field in ("post", "run"):
            value = request.query_params.get(field)
            if value:
                if parse_id(value) is None:
                    raise DomainError(_("%(field)s must be an integer id.") % {"field": field})
                qs = qs.filter(**{f"{field}_id": parse_id(value)})
        return Response(PredictionOut(qs[:1000], many=True).data)
