from django.urls import path

from .adjudication import views as adjudication
from .assignment import views as assignment
from .agreement import views as agreement
from .quality import views as quality
from .releases import views as releases

app_name = "review"

urlpatterns = [
    path("adjudicate/", adjudication.adjudication_queue, name="adjudication"),
    path("adjudicate/<id:post_id>/", adjudication.adjudicate, name="adjudicate"),
    path("consistency/", adjudication.consistency, name="consistency"),
    path("agreement/", agreement.agreement_dashboard, name="agreement"),
    path("agreement/bootstrap/", agreement.agreement_bootstrap, name="agreement-bootstrap"),
    path("releases/", releases.releases, name="releases"),
    path("releases/<id:number>/<str:name>", releases.release_file, name="release-file"),
    path("annotate/<id:batch_id>/feedback/", assignment.feedback, name="feedback"),
    path("quality/", quality.panel, name="quality"),
    path("quality/annotators/<id:annotator_id>/", quality.annotator, name="quality-annotator"),
    path("quality/gold/", quality.gold, name="quality-gold"),
    path("quality/qualification/reset/", quality.qualification_reset, name="quality-qualification-reset"),
    path("quality/aggregation/", quality.aggregation_request, name="quality-aggregation"),
]
