from django.urls import path

from . import api, views

app_name = "modeling"

urlpatterns = [
    path("runs/", views.runs, name="runs"),
    path("runs/compare/", views.compare, name="compare"),
    path("runs/<id:run_id>/", views.run_detail, name="run"),
    path("runs/<id:run_id>/<str:action>/", views.run_action, name="run-action"),
]

api_urlpatterns = [
    path("runs/", api.RunListApi.as_view(), name="api-runs"),
    path("runs/<id:run_id>/", api.RunDetailApi.as_view(), name="api-run"),
    path("predictions/", api.PredictionListApi.as_view(), name="api-predictions"),
]
