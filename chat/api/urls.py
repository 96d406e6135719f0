from django.urls import path
from rest_framework.routers import SimpleRouter

from documents.api import ConversationDocumentsView, DocumentDetailView

from . import actions, views

router = SimpleRouter()
router.register("conversations", views.ConversationViewSet, basename="conversation")

urlpatterns = [
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
    path(
        "conversations/<int:conversation_id>/messages/",
        views.ConversationMessagesView.as_view(),
        name="conversation-messages",
    ),
    path(
        "conversations/<int:conversation_id>/documents/",
        ConversationDocumentsView.as_view(),
        name="conversation-documents",
    ),
    path(
        "conversations/<int:conversation_id>/context/",
        views.ConversationContextView.as_view(),
        name="conversation-context",
    ),
    path("documents/<int:pk>/", DocumentDetailView.as_view(), name="document-detail"),
    path("commands/", views.CommandListView.as_view(), name="commands"),
    path(
        "conversations/<int:conversation_id>/actions/",
        actions.ConversationActionsView.as_view(),
        name="conversation-actions",
    ),
    path("actions/<int:pk>/accept/", actions.ActionAcceptView.as_view(), name="action-accept"),
    path("actions/<int:pk>/reject/", actions.ActionRejectView.as_view(), name="action-reject"),
    path("messages/<int:pk>/", views.MessageDetailView.as_view(), name="message-detail"),
    path("messages/<int:pk>/retry/", views.MessageRetryView.as_view(), name="message-retry"),
    *router.urls,
]
