from django.urls import path

from . import views

app_name = "llm"

urlpatterns = [
    path("llm/runs/", views.runs, name="runs"),
    path("llm/results/", views.results_page, name="results"),
    path("llm/runs/<id:llm_run_id>/", views.run_detail, name="run"),
    path("llm/runs/<id:llm_run_id>/status/", views.run_status, name="run-status"),
    path("llm/runs/<id:llm_run_id>/answers/", views.answers, name="answers"),
    path("llm/runs/<id:llm_run_id>/rater/", views.rater_page, name="rater"),
    path("llm/runs/<id:llm_run_id>/<str:action>/", views.run_action, name="run-action"),
]
