from django.urls import path

from . import views

app_name = "rewriting"

urlpatterns = [
    path("rewrite/", views.queue, name="queue"),
    path("rewrite/<id:post_id>/", views.rewrite, name="rewrite"),
    path("rewrite/<id:post_id>/spans/", views.spans, name="spans"),
    path("rewrite/confirm/<id:rewrite_id>/", views.confirm, name="confirm"),
]
