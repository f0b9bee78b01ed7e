from django.urls import path

from .assignment import api
from .assignment import views as assignment
from .importing import views as importing

app_name = "annotation"

urlpatterns = [
    path("annotate/", assignment.queue, name="queue"),
    path("annotate/<id:batch_id>/", assignment.annotate, name="annotate"),
    path("posts/upload/", importing.upload, name="upload"),
]

api_urlpatterns = [
    path("batches/", api.BatchListApi.as_view(), name="api-batches"),
    path("queue/<id:batch_id>/next/", api.QueueNextApi.as_view(), name="api-queue-next"),
    path("queue/<id:batch_id>/skip/", api.QueueSkipApi.as_view(), name="api-queue-skip"),
    path("judgments/", api.JudgmentListApi.as_view(), name="api-judgments"),
    path("judgments/<id:judgment_id>/", api.JudgmentDetailApi.as_view(), name="api-judgment"),
]
