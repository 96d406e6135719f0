"""Django's admin app on the project's site (chat/admin_site.py: the throttled sign-in).

A module of its own: ``INSTALLED_APPS`` loads it before any model exists.
"""

from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig


class AdminConfig(DjangoAdminConfig):
    default_site = "chat.admin_site.AdminSite"
