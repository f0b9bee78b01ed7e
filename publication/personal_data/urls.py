from django.urls import path

from . import views

app_name = "personal_data"

urlpatterns = [
    path("personal-data/", views.overview, name="overview"),
    path("personal-data/batches/<id:batch_id>/", views.batch_report, name="batch"),
    path("personal-data/unbatched/", views.batch_report, name="unbatched"),
]
