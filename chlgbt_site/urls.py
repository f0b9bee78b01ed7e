from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpResponse
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from annotation import views as annotation_views
from annotation.auth_views import ThrottledLoginView
from annotation.urls import api_urlpatterns as annotation_api
from modeling.urls import api_urlpatterns as modeling_api

admin.site.site_header = "ChLGBT Workbench administration"

urlpatterns = [
    path("favicon.ico", lambda request: HttpResponse(status=204)),
    path("", annotation_views.home, name="home"),
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("", include("annotation.urls")),
    path("", include("annotation.review_urls")),
    path("", include("modeling.urls")),
    path("", include("calibration.urls")),
    path("api/", include((annotation_api + modeling_api, "api"))),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
]
