from django.urls import path
from rest_framework.routers import SimpleRouter

from . import views

router = SimpleRouter()
router.register("conversations", views.ConversationViewSet, basename="conversation")

urlpatterns = [
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
    path(
        "conversations/<int:conversation_id>/messages/",
        views.ConversationMessagesView.as_view(),
        name="conversation-messages",
    ),
    path("messages/<int:pk>/", views.MessageDetailView.as_view(), name="message-detail"),
    path("messages/<int:pk>/retry/", views.MessageRetryView.as_view(), name="message-retry"),
    *router.urls,
]
