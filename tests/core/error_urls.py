"""The site's routes (and its handler400/handler500) plus two views that fail, for the error-page tests."""
from django.db import OperationalError
from django.urls import path

from chlgbt_site.urls import *  # noqa: F401,F403  (handler400, handler500)
from chlgbt_site.urls import urlpatterns as site_urlpatterns


def boom(request):
    raise RuntimeError("secret detail that must not reach the page")


def database_down(request):
    raise OperationalError("server closed the connection unexpectedly")


urlpatterns = [path("test-errors/boom/", boom), path("test-errors/database-down/", database_down), *site_urlpatterns]
