from django.urls import path

from . import views

urlpatterns = [
    path("", views.ChatView.as_view(), name="chat-home"),
    path("c/<int:conversation_id>/", views.ChatView.as_view(), name="chat-conversation"),
    path("preferences/", views.PreferencesView.as_view(), name="preferences"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", views.LogoutView.as_view(), name="logout"),
]
