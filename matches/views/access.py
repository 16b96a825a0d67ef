"""Who may see and change what. No accounts: a table's view-only token in the address lets
anyone look; changing it needs this phone to have joined through the table's current scorer
link, kept in its signed session cookie. One helper per role loads what a view works on."""

import hashlib
import re
from functools import partial, wraps

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.crypto import constant_time_compare
from django_htmx.http import HttpResponseClientRedirect

from matches import selectors, services
from matches.models import Match, Table

JOINED = "joined"  # session key: {table id: the scorer token the phone joined with}
LABEL = "label"  # session key: the name this phone chose, for the change log
DELETED = "deleted"  # session key: the log entry of the deal this phone deleted last
# The session is a signed cookie, and browsers drop cookies past 4 KB: about 100 tables.
JOINED_MAX = 50


_PLAIN = re.compile("[0-9]{1,9}")


def plain_number(value: str | None, otherwise: int | None = None) -> int | None:
    """A number an address or a hidden field carries, read as plain digits only ("²" is a
    digit to isdigit(), and int() reads "٣"), nine at most; else `otherwise`."""
    return int(value) if value and _PLAIN.fullmatch(value) else otherwise


def joined(request: HttpRequest) -> dict[str, str]:
    return request.session.get(JOINED, {})


def joined_with(request: HttpRequest, table_id: int, scorer_token: str) -> bool:
    """This phone joined the table through its current scorer link."""
    token = joined(request).get(str(table_id))
    return token is not None and constant_time_compare(token, scorer_token)


def can_score(request: HttpRequest, table: Table) -> bool:
    return joined_with(request, table.pk, table.scorer_token)


def was_scorer(request: HttpRequest, table_id: int, scorer_token: str) -> bool:
    """Joined through a scorer link since replaced: told why it may only watch."""
    return str(table_id) in joined(request) and not joined_with(request, table_id, scorer_token)


def join(request: HttpRequest, table: Table, label: str = "") -> None:
    """This phone may score at `table`; of many tables, the ones joined longest ago go."""
    tables = {key: token for key, token in joined(request).items() if key != str(table.pk)}
    tables[str(table.pk)] = table.scorer_token
    request.session[JOINED] = dict(list(tables.items())[-JOINED_MAX:])
    if label:
        request.session[LABEL] = label


def by(request: HttpRequest) -> str:
    """The name this phone chose, for the change log."""
    return request.session.get(LABEL, "")


def table_page(view):
    """Table pages are secret: never indexed, never kept by a shared cache; fragments are
    never kept by the browser either (a kept one could outlive the role it was drawn for)."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        response["X-Robots-Tag"] = "noindex, nofollow"
        directives = {"private": True, "no_cache": True}
        if request.htmx:
            directives["no_store"] = True
        patch_cache_control(response, **directives)
        patch_vary_headers(response, ["HX-Request"])
        return response

    return wrapped


def viewer_table(token: str) -> Table:
    return get_object_or_404(Table, viewer_token=token)


def seen_table(token: str) -> Table:
    """The table, with the version its pages are kept by (selectors.table_seen)."""
    table = selectors.table_seen(token)
    if table is None:
        raise Http404
    return table


def scorer_table(request: HttpRequest, token: str) -> Table:
    """The table, for a phone that may change it: a viewer asking is refused (403)."""
    table = viewer_table(token)
    if not can_score(request, table):
        raise PermissionDenied
    return table


def scorer_page(request: HttpRequest, token: str) -> services.Page:
    """The table's page a change is sent from: the service reads the table with the match it
    changes, and refuses a phone that may not change it, as scorer_table does."""
    return services.Page(token, partial(can_score, request))


def viewer_match(token: str, match_id: int) -> Match:
    """The match seen through its table's view link, with its table: a guess is a 404."""
    match = Match.objects.select_related("table").filter(pk=match_id, table__viewer_token=token)
    return get_object_or_404(match)


def scorer_match(request: HttpRequest, token: str, match_id: int) -> Match:
    match = viewer_match(token, match_id)
    if not can_score(request, match.table):
        raise PermissionDenied
    return match


def posted(request: HttpRequest):
    """The form data of a POST, even an empty one; None for a GET (an unbound form)."""
    return request.POST if request.method == "POST" else None


def done(request: HttpRequest, url: str) -> HttpResponse:
    """Post/redirect/get; HTMX follows the redirect on the client."""
    return HttpResponseClientRedirect(url) if request.htmx else HttpResponseRedirect(url)


def etag_of(*parts: object) -> str:
    """A strong ETag for an answer that changes with `parts` and nothing else."""
    return f'"{hashlib.blake2s(repr(parts).encode(), digest_size=12).hexdigest()}"'
