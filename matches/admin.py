"""The admin reads: every write that matters goes through matches.services."""

from django.conf import settings
from django.contrib import admin

from matches.limits import allow, refused
from matches.models import Change, Deal, Match, Player, Side, Table


def login(request, **kwargs):
    """The admin's login page, with a limit on password tries per address."""
    window = settings.ADMIN_LOGINS_WINDOW
    limit = settings.ADMIN_LOGINS_PER_WINDOW
    if request.method == "POST" and not allow(request, "admin-login", limit=limit, window=window):
        return refused(request, window)
    return admin.site.login(request, **kwargs)


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class PlayerInline(admin.TabularInline):
    model = Player
    extra = 0
    can_delete = False
    readonly_fields = ["name"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ["id", "name", "created_at"]
    search_fields = ["name"]
    exclude = ["scorer_token", "viewer_token"]
    inlines = [PlayerInline]

    def lookup_allowed(self, lookup, *args, **kwargs) -> bool:
        # The links stay out of the admin: no filter in its address may guess at one
        # (?scorer_token__startswith=Ab finds a table or not, a character at a time).
        if lookup.split("__")[0] in self.exclude:
            return False
        return super().lookup_allowed(lookup, *args, **kwargs)


class SideInline(admin.TabularInline):
    model = Side
    extra = 0
    can_delete = False
    readonly_fields = ["position", "name", "first_player", "second_player"]


class DealInline(admin.TabularInline):
    model = Deal
    extra = 0
    can_delete = False
    fields = ["number", "kind", "bid", "side", "card_points", "declared_points", "points"]
    readonly_fields = fields


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ["id", "table", "game", "status", "line", "winner", "end_reason", "started_at"]
    list_filter = ["game", "status", "end_reason", "line"]
    list_select_related = ["table"]
    inlines = [SideInline, DealInline]


@admin.register(Deal)
class DealAdmin(ReadOnlyAdmin):
    list_display = ["match", "number", "kind", "bid", "card_points", "declared_points", "points"]
    list_select_related = ["match"]


@admin.register(Change)
class ChangeAdmin(ReadOnlyAdmin):
    list_display = ["match", "at", "action", "by", "deal_number"]
    list_filter = ["action"]
    list_select_related = ["match"]
