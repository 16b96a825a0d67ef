"""What the benchmark asks the database directly: query counts, and whether saves were kept."""

from collections import Counter

from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext

from matches.models import Deal

HX = {"HTTP_HX_REQUEST": "true"}
# 7 points each side: the big sheet (level past the line) stays open for another deal, so the
# save is answered with its changes, as most saves are, not with a decided sheet.
DEAL = {
    "kind": "normal",
    "card_points_0": "7",
    "card_points_1": "4",
    "declared_points_0": "0",
    "declared_points_1": "3",
    "typing": "0",
}


def _pages(table: dict, deals: int) -> dict[str, tuple[str, str, dict, dict | None]]:
    """Each page as (method, path, headers, form) for a joined scorer."""
    sheet = f"/t/{table['viewer']}/m/{table['sheet']}/"
    poll = f"{sheet}?poll=1&number={deals + 1}&typing=0"
    return {
        "floor": ("GET", "/floor", {}, None),
        "sheet": ("GET", sheet, {}, None),
        "poll, changed (200)": ("GET", poll, HX, None),
        "poll, unchanged (304)": ("GET", poll, HX, None),
        "save deal (HTMX)": (
            "POST",
            sheet + "deals",
            HX,
            {"number": deals + 1, **DEAL},
        ),
        "table": ("GET", f"/t/{table['viewer']}/", {}, None),
        "stats": ("GET", f"/t/{table['viewer']}/stats", {}, None),
        "home": ("GET", "/", {}, None),
    }


def _count(client: Client, method: str, path: str, headers: dict, form: dict | None):
    """Queries of one request, and its answer (for a save, also of the sheet it redirects to,
    which HTMX draws); a save is rolled back, the data stays as seeded."""
    with transaction.atomic():
        with CaptureQueriesContext(connection) as captured:
            if method == "POST":
                response = client.post(path, {**(form or {}), "key": "probe"}, **headers)
                said = response.get("Location", "")
                assert "saved=" in said, f"{path}: the probe's deal was not saved"
            else:
                response = client.get(path, **headers)
                assert response.status_code in (200, 304), f"{path}: {response.status_code}"
        counts = [len(captured)]
        if method == "POST":
            with CaptureQueriesContext(connection) as captured:
                shown = client.get(said, **headers)
                assert b'id="saved"' in shown.content, f"{said}: the save is not said"
            counts.append(len(captured))
        transaction.set_rollback(True)
    return counts, response


def query_counts(small: dict, club: dict) -> dict[str, list[int]]:
    """Each page's queries on the small table and on the big one, in that order."""
    counts: dict[str, list[int]] = {}
    for table, deals in ((small, small["sheet_deals"]), (club, club["sheet_deals"])):
        client = Client(HTTP_HOST="127.0.0.1", HTTP_ACCEPT_LANGUAGE="en")
        client.post(f"/join/{table['scorer']}/", {"label": "probe"})
        etag = ""
        for name, (method, path, headers, form) in _pages(table, deals).items():
            if name == "poll, unchanged (304)":
                headers = {**headers, "HTTP_IF_NONE_MATCH": etag}
            (count, *after), response = _count(client, method, path, headers, form)
            counts.setdefault(name, []).append(count)
            for shown in after:
                counts.setdefault("the sheet a save redirects to", []).append(shown)
            etag = response.get("ETag", "")
    return counts


def acknowledged(saves: list[dict], sent: list[str], tables: list[int]) -> dict:
    """Is every save the server acknowledged in the database exactly once, as that deal?"""
    rows = Deal.objects.filter(match__table__in=tables).exclude(idempotency_key="")
    stored = Counter(rows.values_list("idempotency_key", flat=True))
    where = {
        key: (match, number)
        for key, match, number in rows.values_list("idempotency_key", "match_id", "number")
    }
    missing = [s["key"] for s in saves if stored[s["key"]] == 0]
    twice = [key for key, count in stored.items() if count > 1]
    moved = [
        s["key"]
        for s in saves
        if s["key"] in where and where[s["key"]] != (s["match"], s["number"])
    ]
    unknown = sorted(set(stored) - set(sent))
    return {
        "acknowledged": len({s["key"] for s in saves}),
        "stored": sum(stored.values()),
        "missing": missing,
        "duplicated": twice,
        "elsewhere": moved,
        "never_sent": unknown,
    }
