"""Looking back: a match's history of changes, its result to share, and a table's stats."""

from functools import partial

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.cache import get_conditional_response
from django.utils.functional import SimpleLazyObject
from django.utils.translation import get_language
from django.views.decorators.http import require_safe

from matches import selectors
from matches.views.access import can_score, seen_table, table_page, viewer_match


@table_page
@require_safe
def match_history(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    """Every change to a match, newest first, with the old and new values; on the sheet the
    part HTMX loads into its folded History."""
    match = viewer_match(token, match_id)
    side_names, seat_names = selectors.match_names(match)
    context = {
        "table": match.table,
        "match": match,
        "side_names": side_names,
        "changes": selectors.match_changes(match, side_names, request.GET.get("page"), seat_names),
        # A deal deleted (on this phone or another) can be put back from here too.
        "restorable": match.restorable_deletion() if can_score(request, match.table) else None,
    }
    template = "matches/history.html#changes" if request.htmx else "matches/history.html"
    return render(request, template, context)


@table_page
@require_safe
def result_picture(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    """The match's result as a picture (SVG) for the table's chat: the sheet's Share makes it a
    PNG (share.js); without scripts, its link opens it. The same while the match's revision
    is (in the same language)."""
    state = selectors.match_state(token, match_id)
    if state is None:
        raise Http404
    load = partial(selectors.load_result, token, match_id)
    return _picture(request, f'"{state.revision}-{get_language()}"', load, selectors.result_picture)


@table_page
@require_safe
def tonight_picture(request: HttpRequest, token: str) -> HttpResponse:
    """Tonight's tally as a picture (SVG) for the table's chat, as a match's result is; the
    same while the table's revision (and the day, which `since` says) is."""
    table = seen_table(token)
    etag = f'"{table.revision}-{timezone.localdate()}-{get_language()}"'
    load = partial(selectors.load_tonight, table)
    return _picture(request, etag, load, selectors.tonight_picture)


def _picture(request: HttpRequest, etag: str, load, draw) -> HttpResponse:
    """A 304 while the phone's copy has `etag`; else what `load` reads, drawn by `draw`."""
    if (unchanged := get_conditional_response(request, etag=etag)) is not None:
        return unchanged
    shown = load()
    if shown is None:  # deleted meanwhile
        raise Http404
    context = {"result": shown, "picture": draw(shown)}
    response = render(request, "matches/result.svg", context, content_type="image/svg+xml")
    response["ETag"] = etag
    return response


@table_page
@require_safe
def tonight(request: HttpRequest, token: str) -> HttpResponse:
    """Tonight's whole tally, as a sheet's line opens to it (fetched when opened: the sheet
    carries the line only). No ETag of its own: the sheet's polls keep the sheet's."""
    context = {"tonight": selectors.load_tonight(seen_table(token))}
    return render(request, "matches/_tonight.html", context)


@table_page
@require_safe
def stats(request: HttpRequest, token: str) -> HttpResponse:
    table = seen_table(token)
    context = {
        "table": table,
        "stats": SimpleLazyObject(partial(selectors.table_stats, table)),
    }
    return render(request, "matches/stats.html", context)
