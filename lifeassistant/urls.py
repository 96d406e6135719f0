from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from .health import health, live, ready
from .observability.views import metrics

# Django tries the patterns in order, and a request's match keeps the list of those it tried
# before (``ResolverMatch.tried``) for the request's life: the API, the busiest and home of
# the long-lived event streams, comes first (docs/performance.md, eighth pass).
urlpatterns = [
    path("api/v1/", include("chat.api.urls")),
    path("healthz", health, name="health"),
    path("livez", live, name="live"),
    path("readyz", ready, name="ready"),
    path("metrics", metrics, name="metrics"),
    path("admin/", admin.site.urls),
    # The language switch of the sign-in page (POST language=…) and the web chat's
    # translated strings for JavaScript (gettext() in chat/static/chat/*.js).
    path("i18n/", include("django.conf.urls.i18n")),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("", include("chat.web.urls")),
]

handler400 = "lifeassistant.views.bad_request"
handler404 = "lifeassistant.views.not_found"
handler500 = "lifeassistant.views.server_error"
