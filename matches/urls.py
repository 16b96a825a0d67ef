from django.conf import settings
from django.urls import path, re_path, register_converter

from matches.views import deals, history, sheet, site, tables, transfer


class IdConverter:
    """A row id or deal number: digits that fit the database's 64-bit integers.

    Longer ones match no URL (a 404) instead of overflowing in the database driver (a 500).
    """

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


class TokenConverter:
    """A table's link token: the URL-safe characters `secrets.token_urlsafe` writes.

    Anything else (a NUL byte, say, which PostgreSQL refuses in a query) matches no URL: a 404.
    """

    regex = "[A-Za-z0-9_-]{1,64}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(IdConverter, "id")
register_converter(TokenConverter, "token")

match = "t/<token:token>/m/<id:match_id>/"
LANGUAGES = "|".join(code for code, _name in settings.LANGUAGES)

urlpatterns = [
    # First, as each request tries the patterns in order: every phone at a table polls the
    # sheet every few seconds, and saves a deal every minute or two.
    path(match, sheet.match, name="match"),
    path(match + "deals", deals.record_deal, name="record_deal"),
    path("", tables.home, name="home"),
    path("healthz", site.healthz, name="healthz"),
    path("offline", site.offline, name="offline"),
    path("floor", site.floor, name="floor"),
    path("sw.js", site.service_worker, name="service_worker"),
    re_path(
        rf"^manifest\.(?P<language>{LANGUAGES})\.webmanifest$",
        site.manifest,
        name="manifest",
    ),
    re_path(
        rf"^offline\.(?P<language>{LANGUAGES})\.js$",
        site.offline_words_script,
        name="offline_words",
    ),
    path("tables/new", tables.create_table, name="create_table"),
    path("tables/import", transfer.import_table, name="import_table"),
    path("join/<token:scorer_token>/", tables.join_table, name="join"),
    path("t/<token:token>/", tables.table, name="table"),
    re_path(
        rf"^t/(?P<token>{TokenConverter.regex})/links/(?P<which>scorer|viewer)/rotate$",
        tables.rotate_link,
        name="rotate_link",
    ),
    path("t/<token:token>/players/add", tables.add_player, name="add_player"),
    path("t/<token:token>/players/<id:player_id>/", tables.rename_player, name="rename_player"),
    path("t/<token:token>/players/<id:player_id>/merge", tables.merge_player, name="merge_player"),
    path("t/<token:token>/matches/new", tables.new_match, name="new_match"),
    path("t/<token:token>/matches/new/terziglio", tables.new_terziglio, name="new_terziglio"),
    path("t/<token:token>/matches/new/a-perdere", tables.new_a_perdere, name="new_a_perdere"),
    path("t/<token:token>/evening", tables.change_evening, name="change_evening"),
    path("t/<token:token>/evening/new", tables.new_evening, name="new_evening"),
    path("t/<token:token>/tonight", history.tonight, name="tonight"),
    path("t/<token:token>/tonight.svg", history.tonight_picture, name="tonight_picture"),
    path("t/<token:token>/stats", history.stats, name="stats"),
    re_path(
        rf"^t/(?P<token>{TokenConverter.regex})/export\.(?P<fmt>csv|json)$",
        transfer.export_table,
        name="export_table",
    ),
    path(match + "deals/<id:number>/edit", deals.edit_deal, name="edit_deal"),
    path(match + "deals/<id:number>/delete", deals.delete_deal, name="delete_deal"),
    path(match + "deals/<id:number>/restore", deals.restore_deal, name="restore_deal"),
    path(match + "end", sheet.end_match, name="end_match"),
    path(match + "stop", sheet.stop_match, name="stop_match"),
    path(match + "reopen", sheet.reopen_match, name="reopen_match"),
    path(match + "rematch", sheet.rematch, name="rematch"),
    path(match + "settings", sheet.change_settings, name="change_settings"),
    path(match + "export.csv", transfer.export_match, name="export_match"),
    path(match + "history", history.match_history, name="match_history"),
    path(match + "result.svg", history.result_picture, name="result_picture"),
]
