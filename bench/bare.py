"""The least a save can cost on this machine, measured by `make bench` beside the real one.

A "bare save" does only what no save can do without, in plain SQL: it finds the match and
the table's scorer link by the view link, checks that this phone joined through it, and in
one write transaction (taking its turn as a service does, see matches.db) locks the match,
reads its deals, inserts the deal and its change-log entry and bumps the revision. It parses
no form, asks no rule, and answers a constant fragment that the benchmark's script accepts
as saved. So no save that validates, scores and draws the next entry form can be faster, and
the ratio of this one to the floor says how much of the save's budget the machine itself
takes.

Never part of the app: only the benchmark's second server mounts it, through its own
settings (bench/bare_settings.py), at the real save's address.
"""

from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.utils import timezone
from django.views.decorators.http import require_POST

from matches.db import one_writer
from matches.models import Change, Deal, Match
from matches.selectors import match_state
from matches.views.access import joined_with
from scoresheet.urls import urlpatterns as app_urlpatterns

_MATCH, _DEAL, _CHANGE = (model._meta.db_table for model in (Match, Deal, Change))
_LOCK = f"SELECT revision, status FROM {_MATCH} WHERE id = %s"
_DEALS = f"SELECT number, idempotency_key FROM {_DEAL} WHERE match_id = %s ORDER BY number"
_INSERT_DEAL = (
    f"INSERT INTO {_DEAL} (match_id, number, idempotency_key, kind, side, card_points_0,"
    " card_points_1, declared_points_0, declared_points_1, points_0, points_1, version,"
    " created_at) VALUES (%s, %s, %s, 'normal', NULL, 6, 5, 0, 0, 6, 5, 1, %s)"
)
_INSERT_CHANGE = (
    f"INSERT INTO {_CHANGE} (match_id, at, action, by, deal_number, old, new)"
    " VALUES (%s, %s, 'deal_recorded', '', %s, NULL, %s)"
)
_TOUCH = f"UPDATE {_MATCH} SET revision = revision + 1 WHERE id = %s"
SAVED = '<div id="notices" hx-swap-oob="true"><p id="saved">saved</p></div>'


@require_POST
def bare_save(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    state = match_state(token, match_id)  # as it is now: this is a write
    if state is None or not joined_with(request, state.table_id, state.scorer_token):
        return HttpResponse(status=403)
    lock = _LOCK + (" FOR NO KEY UPDATE" if connection.vendor == "postgresql" else "")
    now = timezone.now()
    with one_writer(), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(lock, [match_id])
        cursor.fetchone()
        cursor.execute(_DEALS, [match_id])
        number = len(cursor.fetchall()) + 1
        cursor.execute(_INSERT_DEAL, [match_id, number, request.POST.get("key", ""), now])
        logged = Change._meta.get_field("new").get_db_prep_save({"number": number}, connection)
        cursor.execute(_INSERT_CHANGE, [match_id, now, number, logged])
        cursor.execute(_TOUCH, [match_id])
    return HttpResponse(SAVED)


urlpatterns = [path("t/<str:token>/m/<int:match_id>/deals", bare_save), *app_urlpatterns]
