from django.contrib import admin
from django.http import HttpRequest

from .models import AccountDeletion, Bill, Consent, Debt, Expense, KnowledgeItem, MetricEntry, Person, Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "language", "preferences", "updated_at"]
    search_fields = ["user__username"]
    raw_id_fields = ["user"]


class OwnedAdmin(admin.ModelAdmin):
    """Per-user rows: the owner is picked by id, and searchable by username."""

    raw_id_fields = ["owner"]
    list_select_related = ["owner"]


@admin.register(KnowledgeItem)
class KnowledgeItemAdmin(OwnedAdmin):
    list_display = ["id", "owner", "kind", "area", "content", "created_at"]
    list_filter = ["kind", "area", "created_at"]
    search_fields = ["content", "owner__username"]


@admin.register(MetricEntry)
class MetricEntryAdmin(OwnedAdmin):
    list_display = ["id", "owner", "type", "value", "unit", "recorded_at", "note"]
    list_filter = ["type", "recorded_at"]
    search_fields = ["note", "owner__username"]
    date_hierarchy = "recorded_at"


@admin.register(Expense)
class ExpenseAdmin(OwnedAdmin):
    list_display = ["id", "owner", "description", "amount", "category", "spent_on"]
    list_filter = ["category", "spent_on"]
    search_fields = ["description", "owner__username"]
    date_hierarchy = "spent_on"


@admin.register(Bill)
class BillAdmin(OwnedAdmin):
    list_display = ["id", "owner", "name", "amount", "due_date", "status", "paid_at"]
    list_filter = ["status", "category", "due_date"]
    search_fields = ["name", "owner__username"]


@admin.register(Debt)
class DebtAdmin(OwnedAdmin):
    list_display = ["id", "owner", "name", "creditor", "total_amount", "paid_amount", "installments_paid", "installments_total"]
    search_fields = ["name", "creditor", "owner__username"]


@admin.register(Person)
class PersonAdmin(OwnedAdmin):
    list_display = ["id", "owner", "name", "relationship", "birthday", "last_interaction_on", "updated_at"]
    list_filter = ["relationship"]
    search_fields = ["name", "notes", "owner__username"]


class RecordAdmin(admin.ModelAdmin):
    """A record of what happened: shown, never added, changed or deleted by hand."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object | None = None) -> bool:
        return False


@admin.register(Consent)
class ConsentAdmin(RecordAdmin):
    list_display = ["id", "owner", "purpose", "given", "text_version", "created_at"]
    list_filter = ["purpose", "given", "text_version"]
    search_fields = ["owner__username"]
    list_select_related = ["owner"]


@admin.register(AccountDeletion)
class AccountDeletionAdmin(RecordAdmin):
    """Deleted accounts: when, and a keyed hash of the id (lifeassistant.privacy.subject_hash)."""

    list_display = ["deleted_at", "subject", "reason"]
    search_fields = ["subject"]
