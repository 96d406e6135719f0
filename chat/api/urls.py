from django.urls import path
from rest_framework.routers import SimpleRouter

from chat.api.documents import ConversationDocumentsView, ConversationFilesView, DocumentDetailView

from . import actions, privacy, streaming, user, views

router = SimpleRouter()
router.register("conversations", views.ConversationViewSet, basename="conversation")
router.register("memory", user.MemoryViewSet, basename="memory")

urlpatterns = [
    # First: an open event stream holds the list of the patterns tried before its own
    # (ResolverMatch.tried) for as long as it is open; a thousand streams held 2 MiB of them.
    path("messages/<int:pk>/events/", streaming.reply_events, name="message-events"),
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
    path("auth/tokens/", views.TokenListView.as_view(), name="auth-tokens"),
    path("auth/tokens/<int:pk>/", views.TokenDetailView.as_view(), name="auth-token-detail"),
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
    path("conversations/<int:conversation_id>/files/", ConversationFilesView.as_view(), name="conversation-files"),
    path(
        "conversations/<int:conversation_id>/context/",
        views.ConversationContextView.as_view(),
        name="conversation-context",
    ),
    path("documents/<int:pk>/", DocumentDetailView.as_view(), name="document-detail"),
    path("commands/", views.CommandListView.as_view(), name="commands"),
    path("me/", user.MeView.as_view(), name="me"),
    path("me/export/", privacy.ExportView.as_view(), name="me-export"),
    path("me/export/expenses/", privacy.CsvExportView.as_view(kind="expenses"), name="me-export-expenses"),
    path("me/export/metrics/", privacy.CsvExportView.as_view(kind="metrics"), name="me-export-metrics"),
    path("me/consents/", privacy.ConsentsView.as_view(), name="me-consents"),
    path("skills/", user.SkillListView.as_view(), name="skills"),
    path(
        "conversations/<int:conversation_id>/actions/",
        actions.ConversationActionsView.as_view(),
        name="conversation-actions",
    ),
    path("actions/<int:pk>/accept/", actions.ActionAcceptView.as_view(), name="action-accept"),
    path("actions/<int:pk>/reject/", actions.ActionRejectView.as_view(), name="action-reject"),
    path("messages/<int:pk>/", views.MessageDetailView.as_view(), name="message-detail"),
    path("messages/<int:pk>/retry/", views.MessageRetryView.as_view(), name="message-retry"),
    path("messages/<int:pk>/cancel/", views.MessageCancelView.as_view(), name="message-cancel"),
    path("messages/<int:pk>/regenerate/", views.MessageRegenerateView.as_view(), name="message-regenerate"),
    path("messages/<int:pk>/edit/", views.MessageEditView.as_view(), name="message-edit"),
    *router.urls,
]
