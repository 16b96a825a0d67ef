from django.contrib import admin
from django.urls import include, path

from matches.admin import login

urlpatterns = [
    path("admin/login/", login, name="admin-login"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("matches.urls")),
]
