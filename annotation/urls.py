from django.urls import path

from .assignment import api
from .assignment import views as assignment
from .importing import views as importing
from .quality import api as quality_api
from .quality import views as quality

app_name = "annotation"

urlpatterns = [
    path("annotate/", assignment.queue, name="queue"),
    path("annotate/<id:batch_id>/", assignment.annotate, name="annotate"),
    path("annotate/<id:batch_id>/qualification/", quality.qualification, name="qualification"),
    path("posts/upload/", importing.upload, name="upload"),
    path("posts/upload/<id:job_id>/", importing.upload_job, name="upload-job"),
    path("posts/upload/<id:job_id>/status/", importing.upload_job_status, name="upload-job-status"),
]

api_urlpatterns = [
    path("batches/", api.BatchListApi.as_view(), name="api-batches"),
    path("queue/<id:batch_id>/next/", api.QueueNextApi.as_view(), name="api-queue-next"),
    path("queue/<id:batch_id>/skip/", api.QueueSkipApi.as_view(), name="api-queue-skip"),
    path("queue/<id:batch_id>/submit/", api.QueueSubmitApi.as_view(), name="api-queue-submit"),
    path("judgments/", api.JudgmentListApi.as_view(), name="api-judgments"),
    path("judgments/<id:judgment_id>/", api.JudgmentDetailApi.as_view(), name="api-judgment"),
    path("qualification/<id:batch_id>/", quality_api.QualificationApi.as_view(), name="api-qualification"),
    path("quality/annotators/", quality_api.AnnotatorQualityListApi.as_view(), name="api-quality-annotators"),
    path("quality/annotators/<id:annotator_id>/", quality_api.AnnotatorQualityDetailApi.as_view(),
         name="api-quality-annotator"),
    path("quality/alerts/", quality_api.AlertListApi.as_view(), name="api-quality-alerts"),
    path("quality/gold/", quality_api.GoldListApi.as_view(), name="api-quality-gold"),
    path("quality/batches/<id:batch_id>/", quality_api.BatchQualityApi.as_view(), name="api-quality-batch"),
    path("quality/qualifications/", quality_api.QualificationAttemptListApi.as_view(),
         name="api-quality-qualifications"),
    path("quality/qualifications/reset/", quality_api.QualificationResetApi.as_view(),
         name="api-quality-qualification-reset"),
    path("quality/aggregation/", quality_api.AggregationApi.as_view(), name="api-quality-aggregation"),
    path("quality/aggregates/", quality_api.AggregateListApi.as_view(), name="api-quality-aggregates"),
]
