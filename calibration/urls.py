from django.urls import path

from . import views

app_name = "calibration"

urlpatterns = [
    path("calibration/", views.index, name="index"),
    path("calibration/priors/", views.priors, name="priors"),
    path("calibration/priors/rebuild/", views.rebuild, name="rebuild"),
    path("calibration/weights/", views.token_weights, name="weights"),
    path("calibration/runs/<id:run_id>/fusion/", views.fusion, name="fusion"),
    path("calibration/runs/<id:run_id>/reliability/", views.reliability, name="reliability"),
    path("calibration/overview/", views.overview, name="overview"),
    path("calibration/case/<id:post_id>/", views.case_study, name="case"),
]
