from django.urls import path

from . import api, views

app_name = "wellbeing"

urlpatterns = [
    path("annotate/<id:batch_id>/notice/", views.notice, name="notice"),
    path("wellbeing/exposure/", views.exposure, name="exposure"),
]

api_urlpatterns = [
    path("queue/<id:batch_id>/set-aside/", api.SetAsideApi.as_view(), name="api-queue-set-aside"),
    path("queue/<id:batch_id>/notice/", api.NoticeApi.as_view(), name="api-queue-notice"),
]
