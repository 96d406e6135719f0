from django.contrib import admin

from .models import Bill, Debt, Expense, KnowledgeItem, MetricEntry, Person, Profile


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
