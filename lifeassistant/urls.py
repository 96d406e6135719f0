from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from .health import health

urlpatterns = [
    path("healthz", health, name="health"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("chat.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("", include("chat.web.urls")),
]

handler400 = "lifeassistant.views.bad_request"
handler404 = "lifeassistant.views.not_found"
handler500 = "lifeassistant.views.server_error"
