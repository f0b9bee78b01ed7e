from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpResponse
from django.urls import include, path
from django.utils.translation import gettext_lazy as _
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView

from annotation import views as annotation_views
from annotation.urls import api_urlpatterns as annotation_api
from core.password_throttle import admin_password_change
from modeling.urls import api_urlpatterns as modeling_api
from wellbeing.urls import api_urlpatterns as wellbeing_api

admin.site.site_header = _("ChLGBT Workbench administration")
admin.site.site_title = _("ChLGBT Workbench")

urlpatterns = [
    path("favicon.ico", lambda request: HttpResponse(status=204)),
    path("", annotation_views.home, name="home"),
    # Throttled by django-axes, as /admin/login/ is (core/login_throttle.py).
    path("accounts/login/", annotation_views.LoginView.as_view(), name="login"),  # straight to the role's page
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Throttled like a login: it checks the current password (core/password_throttle.py).
    path("admin/password_change/", admin.site.admin_view(admin_password_change)),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the header's language switch
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("", include("annotation.urls")),
    path("", include("annotation.review_urls")),
    path("", include("modeling.urls")),
    path("", include("llm.urls")),
    path("", include("calibration.urls")),
    path("", include("publication.personal_data.urls")),
    path("", include("publication.rewriting.urls")),
    path("", include("wellbeing.urls")),
    path("", include("audit.urls")),
    path("api/", include((annotation_api + modeling_api + wellbeing_api, "api"))),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
]

# 400 and 500 render without the database (core/error_views.py); 403 and 404 use Django's
# handlers with templates/403.html and templates/404.html.
handler400 = "core.error_views.bad_request"
handler500 = "core.error_views.server_error"
