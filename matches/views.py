"""Thin views: load with an access check, bind a form, call a service, render or redirect.

Access: a table's view-only token in the URL lets anyone look; scoring needs this phone to
have joined through the table's current scorer link (kept in its signed session cookie).
"""

import functools
import hashlib
import itertools
import re
from functools import wraps

import segno
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import DatabaseError
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotModified,
    JsonResponse,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.crypto import constant_time_compare
from django.utils.http import urlencode
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import (
    require_GET,
    require_http_methods,
    require_POST,
    require_safe,
)
from django_htmx.http import (
    HttpResponseClientRedirect,
    HttpResponseClientRefresh,
    reswap,
    retarget,
)

from matches import exports, imports, rules, services
from matches.forms import (
    CountForm,
    DealForm,
    EditDealForm,
    ImportForm,
    JoinForm,
    MergeForm,
    NewMatchForm,
    PlayerForm,
    SettingsForm,
    TableForm,
    entry_data,
    rule_message,
    rule_messages,
    too_large_upload,
)
from matches.limits import allow
from matches.models import Deal, Match, Side, Table, entry_from_document
from matches.sheet import (
    Sheet,
    as_typed,
    history,
    is_htmx,
    load_match,
    load_match_at,
    sheet_page,
)
from matches.stats import cached_table_stats

JOINED = "joined"  # session key: {table id: the scorer token the phone joined with}
LABEL = "label"  # session key: the name this phone chose, for the change log
DELETED = "deleted"  # session key: the log entry of the deal this phone deleted last


def _joined(request: HttpRequest) -> dict[str, str]:
    return request.session.get(JOINED, {})


def can_score(request: HttpRequest, table: Table) -> bool:
    return _joined_with(request, table.pk, table.scorer_token)


def _joined_with(request: HttpRequest, table_id: int, scorer_token: str) -> bool:
    """This phone joined the table through its current scorer link."""
    token = _joined(request).get(str(table_id))
    return token is not None and constant_time_compare(token, scorer_token)


# The session is a signed cookie, and browsers drop cookies past 4 KB: about 100 tables.
JOINED_MAX = 50
HISTORY_PAGE = 100  # changes a page
NO_SUCH_DEAL = _("There is no deal %(number)s on the sheet now: another phone may have deleted it.")


def _join(request: HttpRequest, table: Table, label: str = "") -> None:
    """This phone may score at `table`; of many tables, the ones joined longest ago go."""
    joined = {key: token for key, token in _joined(request).items() if key != str(table.pk)}
    joined[str(table.pk)] = table.scorer_token
    request.session[JOINED] = dict(list(joined.items())[-JOINED_MAX:])
    if label:
        request.session[LABEL] = label


def _by(request: HttpRequest) -> str:
    return request.session.get(LABEL, "")


def table_page(view):
    """Table pages are secret: never indexed, never cached by a shared cache."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        response["X-Robots-Tag"] = "noindex, nofollow"
        directives = {"private": True, "no_cache": True}
        if is_htmx(request):
            # Never kept by the browser's cache: the sheet's script sends its own ETag, and a
            # kept fragment could outlive the role (viewer, scorer) it was drawn for.
            directives["no_store"] = True
        patch_cache_control(response, **directives)  # once: every phone's polls pass here
        patch_vary_headers(response, ["HX-Request"])
        return response

    return wrapped


def _table(request: HttpRequest, token: str, *, scorer: bool = False) -> Table:
    table = get_object_or_404(Table, viewer_token=token)
    if scorer and not can_score(request, table):
        raise PermissionDenied
    return table


def _match_and_sides(
    request: HttpRequest, token: str, match_id: int, *, scorer: bool = False
) -> tuple[Match, list[Side]]:
    """The match seen through the view link, its table and both sides, in one query.

    A stranger's guess is a 404; a viewer asking to score is refused (403).
    """
    found = load_match(token, match_id)
    if found is None:
        raise Http404
    if scorer and not can_score(request, found[0].table):
        raise PermissionDenied
    return found


def _match(request: HttpRequest, token: str, match_id: int, *, scorer: bool = False) -> Match:
    return _match_and_sides(request, token, match_id, scorer=scorer)[0]


def _sheet(request: HttpRequest, token: str, match_id: int, scorer: bool) -> Sheet:
    match, sides = _match_and_sides(request, token, match_id)
    return Sheet.load(match, can_score=scorer, sides=sides)


def _sheet_at(token: str, match_id: int, state: tuple[int, int, str], scorer: bool) -> Sheet:
    """The sheet read at the revision and links Sheet.state found (see load_match_at)."""
    revision, _, scorer_token = state
    found = load_match_at(token, match_id, revision, scorer_token)
    if found is None:
        raise Http404
    match, sides = found
    return Sheet.load(match, can_score=scorer, sides=sides)


def _posted(request: HttpRequest):
    """The form data of a POST, even an empty one; None for a GET (an unbound form)."""
    return request.POST if request.method == "POST" else None


def _done(request: HttpRequest, url: str) -> HttpResponse:
    """Post/redirect/get; HTMX follows the redirect on the client."""
    return HttpResponseClientRedirect(url) if is_htmx(request) else redirect(url)


# --- Home, tables, joining ----------------------------------------------------------------------


def _home(request: HttpRequest, *, form=None, import_form=None, status=200) -> HttpResponse:
    ids = [int(pk) for pk in _joined(request)]
    joined = Table.objects.filter(pk__in=ids).order_by("name", "created_at")
    tables = [table for table in joined if can_score(request, table)]
    context = {
        "tables": tables,
        "form": form or TableForm(initial={"label": request.session.get(LABEL, "")}),
        "import_form": import_form or ImportForm(),
    }
    response = render(request, "matches/home.html", context, status=status)
    patch_cache_control(response, private=True, no_cache=True)  # this phone's own tables
    if status == 429:
        response["Retry-After"] = str(settings.TABLES_WINDOW)
    return response


def _too_many_tables(request: HttpRequest) -> bool:
    """New tables, created or imported, are rate-limited per client address."""
    return not allow(
        request, "create-table", limit=settings.TABLES_PER_HOUR, window=settings.TABLES_WINDOW
    )


TOO_MANY_TABLES = _("Too many new tables from this address: try again in an hour.")
# An import is checked at length before anything is written: refused files count too.
TOO_MANY_IMPORTS = _(
    "Too many new tables or files to import from this address (refused files count too): "
    "try again in an hour."
)


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    return _home(request)


@require_POST
def create_table(request: HttpRequest) -> HttpResponse:
    form = TableForm(request.POST)
    if not form.is_valid():  # a refused name makes no table: it does not count
        return _home(request, form=form)
    if _too_many_tables(request):
        form.add_error(None, TOO_MANY_TABLES)
        return _home(request, form=form, status=429)
    table = services.create_table(name=form.cleaned_data["name"])
    _join(request, table, form.cleaned_data["label"])
    return _done(request, reverse("table", args=[table.viewer_token]) + "?created=1")


@table_page
@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, scorer_token: str) -> HttpResponse:
    table = get_object_or_404(Table, scorer_token=scorer_token)
    form = JoinForm(_posted(request), initial={"label": request.session.get(LABEL, "")})
    if request.method == "POST" and form.is_valid():
        _join(request, table, form.cleaned_data["label"])
        # Straight to the match being played, when there is just one; else the table's page.
        playing = list(table.matches.filter(status=rules.Status.IN_PROGRESS).values_list("pk")[:2])
        if len(playing) == 1:
            return _done(request, reverse("match", args=[table.viewer_token, playing[0][0]]))
        return _done(request, reverse("table", args=[table.viewer_token]))
    response = render(request, "matches/join.html", {"table": table, "form": form})
    patch_cache_control(response, no_store=True)  # its address is the scorer link
    return response


@functools.lru_cache(maxsize=512)
def _qr(url: str) -> str:
    return segno.make(url, error="m").svg_inline(scale=4, border=2, dark="#000", light="#fff")


@table_page
@require_safe
def table(request: HttpRequest, token: str) -> HttpResponse:
    table = _table(request, token)
    scorer = can_score(request, table)
    viewer_url = request.build_absolute_uri(reverse("table", args=[table.viewer_token]))
    share = {"viewer_url": viewer_url, "viewer_qr": _qr(viewer_url)}
    if scorer:
        scorer_url = request.build_absolute_uri(reverse("join", args=[table.scorer_token]))
        share.update(scorer_url=scorer_url, scorer_qr=_qr(scorer_url))
    context = {
        "table": table,
        "can_score": scorer,
        "share": share,
        "player_form": PlayerForm(),
        "rotated": request.GET.get("rotated"),
        "player_gone": request.GET.get("gone") == "player",
        "imported": request.GET.get("imported") == "1",
        "created": request.GET.get("created") == "1",
        **history(table, request.GET),
    }
    # What was just done to a player (?added=4), said over the list: (what, player).
    context["player_done"] = next(
        (
            (done, p)
            for done in ("added", "renamed", "merged")
            for p in context["players"]
            if str(p.pk) == request.GET.get(done)
        ),
        None,
    )
    response = render(request, "matches/table.html", context)
    if scorer:  # the scorer link is on the page: the browser keeps no copy of it
        patch_cache_control(response, no_store=True)
    return response


@table_page
@require_POST
def rotate_link(request: HttpRequest, token: str, which: str) -> HttpResponse:
    table = _table(request, token, scorer=True)
    services.rotate_link(table=table, which=which)
    if which == "scorer":
        _join(request, table)  # the phone that rotated keeps scoring
    return _done(request, reverse("table", args=[table.viewer_token]) + f"?rotated={which}#rotated")


@table_page
@require_POST
def add_player(request: HttpRequest, token: str) -> HttpResponse:
    table = _table(request, token, scorer=True)
    form = PlayerForm(request.POST)
    if form.is_valid():
        try:
            player = services.add_player(table=table, name=form.cleaned_data["name"])
        except services.ServiceError as refused:  # the name is taken, or the table full
            form.add_error("name", refused.message)
    if form.errors:
        return render(request, "matches/player.html", {"table": table, "form": form})
    return _done(request, reverse("table", args=[token]) + f"?added={player.pk}#added")


@table_page
@require_http_methods(["GET", "POST"])
def rename_player(request: HttpRequest, token: str, player_id: int) -> HttpResponse:
    """A new name; the name of another player of the table offers to merge the two."""
    table = _table(request, token, scorer=True)
    if (player := table.players.filter(pk=player_id).first()) is None:
        return _player_gone(request, token)
    form = PlayerForm(_posted(request), initial={"name": player.name})
    same = refusal = None
    if request.method == "POST" and form.is_valid():
        try:
            services.rename_player(player=player, name=form.cleaned_data["name"], by=_by(request))
            return _done(request, reverse("table", args=[token]) + f"?renamed={player.pk}#renamed")
        except services.NameTaken as taken:
            same = taken.player
            # A merge is offered only where it could be done: not to two people of one match.
            # Offered, it is the answer (it takes focus), not an error of the name typed.
            if refusal := services.merge_refusal(player=player, into=same):
                form.add_error("name", taken.message)
        except services.ServiceError as refused:
            form.add_error("name", refused.message)
    context = {"table": table, "form": form, "player": player, "same": same}
    context["refusal"] = refusal
    return render(request, "matches/player.html", context)


def _player_gone(request: HttpRequest, token: str) -> HttpResponse:
    """The player is not (or no longer) at this table: merged away on another phone, most
    likely (a second tap on Merge, say). The table's list of players says so."""
    return _done(request, reverse("table", args=[token]) + "?gone=player#player-gone")


@table_page
@require_POST
def merge_player(request: HttpRequest, token: str, player_id: int) -> HttpResponse:
    """One person entered twice: this player's matches become the other's."""
    table = _table(request, token, scorer=True)
    if (player := table.players.filter(pk=player_id).first()) is None:
        return _player_gone(request, token)
    merge = MergeForm(request.POST, player=player)
    if merge.is_valid():
        into = merge.cleaned_data["into"]
        try:
            services.merge_players(player=player, into=into, by=_by(request))
            return _done(request, reverse("table", args=[token]) + f"?merged={into.pk}#merged")
        except services.ServiceError as refused:
            merge.add_error(None, refused.message)
    form = PlayerForm(initial={"name": player.name})
    same = merge.cleaned_data.get("into")
    refusal = " ".join(merge.non_field_errors()) or None
    context = {"table": table, "form": form, "player": player, "same": same, "refusal": refusal}
    context["merge"] = merge
    return render(request, "matches/player.html", context)


@table_page
@require_safe
def stats(request: HttpRequest, token: str) -> HttpResponse:
    table = _table(request, token)
    return render(request, "matches/stats.html", {"table": table, **cached_table_stats(table)})


def _download(chunks, filename: str, content_type: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(chunks, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@table_page
@require_GET  # not HEAD: it would read the whole export to send none of it
def export_table(request: HttpRequest, token: str, fmt: str) -> HttpResponse:
    """The whole history: JSON (lossless, re-importable) or CSV, streamed."""
    table = _table(request, token)
    if fmt == "json":
        chunks = exports.table_json_chunks(table)
        return _download(chunks, exports.export_filename(table, "json"), "application/json")
    # A byte-order mark, so that spreadsheets read accents and emoji as UTF-8.
    chunks = itertools.chain(["\ufeff"], exports.table_csv_rows(table))
    return _download(chunks, exports.export_filename(table, "csv"), "text/csv; charset=utf-8")


@table_page
@require_GET  # not HEAD: it would read the whole export to send none of it
def export_match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    match = _match(request, token, match_id)
    chunks = itertools.chain(["\ufeff"], exports.match_csv_rows(match))
    filename = exports.export_filename(match.table, "csv", match)
    return _download(chunks, filename, "text/csv; charset=utf-8")


@csrf_exempt  # checked below, once a body too large is refused: the check reads the body
@require_POST
def import_table(request: HttpRequest) -> HttpResponse:
    """A JSON export becomes a new table, joined by this phone; all or nothing.

    A body larger than any import is refused by its length, before it is read (the CSRF check
    would read it). Only a request that passes the CSRF check counts against the address's
    new tables: a forged one from another site must not use them up.
    """
    too_large = too_large_upload(request.META.get("CONTENT_LENGTH"))
    if too_large:
        return _home(request, import_form=ImportForm.refused(too_large), status=413)
    return _import(request)


@csrf_protect
def _import(request: HttpRequest) -> HttpResponse:
    if _too_many_tables(request):
        return _home(request, import_form=ImportForm.refused(TOO_MANY_IMPORTS), status=429)
    form = ImportForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            document = imports.read(form.cleaned_data["file"].read())
            table = services.import_table(document=document)
        except imports.ImportInvalid as invalid:
            for message in invalid.messages:
                form.add_error("file", message)
        else:
            _join(request, table)
            return _done(request, reverse("table", args=[table.viewer_token]) + "?imported=1")
    return _home(request, import_form=form)


# --- Matches ------------------------------------------------------------------------------------


@table_page
@require_http_methods(["GET", "POST"])
def new_match(request: HttpRequest, token: str) -> HttpResponse:
    table = _table(request, token, scorer=True)
    form = NewMatchForm(_posted(request))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            match = services.start_match(
                table=table,
                players=data["players"],
                side_names=[data["side_name_0"], data["side_name_1"]],
                settings=form.settings,
                first_dealer=data["first_dealer"],
                by=_by(request),
            )
        except services.ServiceError as refused:
            form.add_error(None, refused.message)
        except rules.RuleError as error:
            form.add_error(None, rule_message(error))
        else:
            return _done(request, reverse("match", args=[token, match.pk]))
    players = table.players_by_name()
    return render(
        request, "matches/new_match.html", {"table": table, "form": form, "players": players}
    )


def _sheet_response(
    request, match, *, form=None, notice=None, status=200, sheet=None, settings_form=None
) -> HttpResponse:
    """The sheet, whole or as the fragment HTMX swaps in.

    Unless a `sheet` just scored is given, the match is read again: a write (this phone's or
    another's) bumped its revision, which keys the ETag and the cached parts of the sheet.
    """
    if sheet is None:
        match.refresh_from_db()
        sheet = Sheet.load(match, can_score=can_score(request, match.table))
    context = sheet.context(form=form, notice=notice, request=request, settings_form=settings_form)
    template = "matches/match.html#sheet" if is_htmx(request) else "matches/match.html"
    response = render(request, template, context, status=status)
    response["ETag"] = sheet.etag(request)
    return response


def _saved(
    request: HttpRequest, recorded: services.Recorded, match: Match, sides: list[Side]
) -> HttpResponse:
    """HTMX's answer to a new deal; `match` and `sides` are as the view read them before.

    When the phone was showing the sheet just as it stood before this deal (the revision it
    posted is the one the deal replaced), only what the deal changes is sent: the entry form
    for the next deal, the notice, the totals, the new row and the chart. Otherwise, or when
    the page must change shape (the first deal, a decided match), the whole sheet.
    """
    notice = {"saved": recorded.deal.number}
    if recorded.revision != match.revision + 1:
        # Another change (a renamed player, say) came in between: read it all again.
        return _sheet_response(request, match, notice=notice)
    saved = Match.objects.get(pk=match.pk)
    saved.table = match.table
    sheet = Sheet.scored(saved, sides, recorded.outcome, can_score=True)
    shown = request.POST.get("revision") == str(match.revision)
    if not (shown and sheet.open_for_deals and recorded.deal.number > 1):
        return _sheet_response(request, saved, notice=notice, sheet=sheet)
    context = sheet.context(notice=notice, request=request)
    context["new_row"] = sheet.rows()[-1]
    response = render(request, "matches/match.html#saved", context)
    return retarget(reswap(response, "outerHTML"), "#entry")


@table_page
@require_safe
def match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    """The sheet. Polled every few seconds by each phone: unchanged, it answers 304."""
    state = Sheet.state(token, match_id)
    if state is None:
        raise Http404
    revision, table_id, scorer_token = state
    htmx = is_htmx(request)
    if htmx:
        # An HTMX request's ETag is the one the sheet's script kept from an earlier answer on
        # this page (fragments are never stored by the browser: see table_page), drawn for
        # this phone as a viewer or a scorer; joining loads a new page, and a new scorer link
        # changes a scorer's ETag. So a current ETag of either role needs no session read.
        roles = ("", scorer_token)
    else:  # the browser's own cache may hold a page drawn before the phone joined
        roles = (scorer_token if _joined_with(request, table_id, scorer_token) else "",)
    etag = Sheet.unchanged(request, match_id, revision, roles)
    if etag is not None:
        response = HttpResponseNotModified()
        response["ETag"] = etag
        return response
    scorer = _joined_with(request, table_id, scorer_token)
    # A phone that joined through a scorer link since replaced: told why it may only watch.
    former = not scorer and str(table_id) in _joined(request)
    etag = Sheet.etag_for(match_id, revision, request, scorer_token if scorer else "")
    if htmx and request.GET.get("poll"):
        sheet = _sheet_at(token, match_id, state, scorer)
        if request.GET.get("closed") and sheet.match.in_progress:
            # Reopened on another phone: the whole page changes shape (the entry form is back).
            return HttpResponseClientRefresh()
        deleted_here = request.session.get(DELETED)
        context = sheet.poll_context(request, link_changed=former, deleted_here=deleted_here)
        response = render(request, "matches/match.html#poll", context)
    elif htmx or request.GET or former:
        # What the phone just did (?saved=4, ?edited=2, ?ended=1), or tried to (?gone=3: edit
        # a deal deleted on another phone), said above the sheet where it needs saying. Plain digits
        # only: "²" is a digit to str.isdigit() but not to int().
        notice = _notice(
            {
                done: int(number)
                for done in SAID
                if re.fullmatch("[0-9]{1,6}", number := request.GET.get(done, ""))
            }
        )
        if former:
            notice["link_changed"] = True
        # Read afresh: the phone may come from a change it made through another process,
        # whose revision the state kept here (STATE_SECONDS) has not seen yet.
        sheet = _sheet(request, token, match_id, scorer)
        if "deleted" in notice or "gone" in notice:  # said with Restore while it can be
            deleted = sheet.match.restorable_deletion()
            number = deleted.deal_number if deleted is not None else None
            if notice.get("deleted", number) != number:
                del notice["deleted"]
            # The deal an edit was for, deleted on another phone: said so, with Restore.
            notice["gone_restorable"] = "gone" in notice and notice["gone"] == number
        return _sheet_response(request, sheet.match, notice=notice, sheet=sheet)
    else:
        page = sheet_page(
            request,
            lambda: _sheet_at(token, match_id, state, scorer),
            token=token,
            match_id=match_id,
            revision=revision,
            can_score=scorer,
        )
        response = HttpResponse(page)
    response["ETag"] = etag
    return response


@table_page
@require_safe
def match_history(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    """Every change to a match, newest first, with the old and new values, 100 a page (an
    imported log may be long)."""
    match = _match(request, token, match_id)
    sides = list(match.sides.all())
    changes = match.changes.order_by("-at", "-id")
    context = {
        "table": match.table,
        "match": match,
        "side_names": (sides[0].name, sides[1].name),
        "changes": Paginator(changes, HISTORY_PAGE).get_page(request.GET.get("page")),
        # A deal deleted (on this phone or another) can be put back from here too.
        "restorable": match.restorable_deletion() if can_score(request, match.table) else None,
    }
    template = "matches/history.html#changes" if is_htmx(request) else "matches/history.html"
    return render(request, template, context)


@table_page
@require_POST
def record_deal(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    match, sides = _match_and_sides(request, token, match_id, scorer=True)
    form = DealForm(
        request.POST,
        side_names=tuple(s.name for s in sides),
        claims_allowed=match.claims_allowed,
    )
    if "count" in request.POST:
        return _count(request, match, form)
    if form.is_valid():
        try:
            recorded = services.record_deal(
                match=match,
                number=form.cleaned_data["number"],
                entry=form.cleaned_data["entry"],
                idempotency_key=form.cleaned_data["key"],
                by=_by(request),
            )
        except rules.DealInvalid as invalid:
            form.add_rule_errors(invalid)
        except services.DealConflict as conflict:
            # Both phones entered the same deal: what this one typed is said, not kept to be
            # saved a second time.
            entry = form.cleaned_data["entry"]
            notice = {
                "conflict": conflict.deal,
                "resent": conflict.resent,
                "same": conflict.deal.entry == entry,
                "yours": as_typed(entry, form.side_names),
            }
            return _sheet_response(request, match, notice=notice)
        except services.ServiceError as refused:
            form.add_error(None, refused.message)
        else:
            number = recorded.deal.number
            if not is_htmx(request):
                return redirect(reverse("match", args=[token, match.pk]) + f"?saved={number}")
            if recorded.created:
                return _saved(request, recorded, match, sides)
            return _sheet_response(request, match, notice={"saved": number})
    return _sheet_response(request, match, form=form)


def _count(request: HttpRequest, match: Match, form: DealForm) -> HttpResponse:
    """The "count the pile" helper: fill both sides' card points from one side's count.

    In a claim only the counted side's: the other side's pile is not all the rest.
    """
    claim = form.data.get("kind") == rules.DealKind.CLAIM
    count = CountForm(request.POST, side_names=form.side_names, claim=claim)
    data = request.POST.copy()
    if count.is_valid():
        for side, points in enumerate(count.cleaned_data["card_points"]):
            if points is not None:
                data[f"card_points_{side}"] = points
    form = DealForm(data, side_names=form.side_names, claims_allowed=match.claims_allowed)
    form.errors.clear()  # not a save: only the count's own errors are shown
    notice = {"count": count, "counted": count.is_valid()}
    return _sheet_response(request, match, form=form, notice=notice)


@table_page
@require_http_methods(["GET", "POST"])
def edit_deal(request: HttpRequest, token: str, match_id: int, number: int) -> HttpResponse:
    match = _match(request, token, match_id, scorer=True)
    deal = Deal.objects.filter(match=match, number=number).first()
    if deal is None:  # deleted on another phone (a page open before, or its Save tapped)
        return _done(request, reverse("match", args=[token, match.pk]) + f"?gone={number}")
    sides = list(match.sides.all())
    initial = {"number": deal.number, "version": deal.version, **entry_data(deal.entry)}
    form = EditDealForm(
        _posted(request),
        initial=initial,
        side_names=tuple(s.name for s in sides),
        claims_allowed=match.claims_allowed,
    )
    # The deal this page showed was deleted, and another took its number: its version may
    # match the page's, yet what was typed is not about it.
    replaced = request.POST.get("deal", str(deal.pk)) != str(deal.pk)
    if request.method == "POST" and form.is_valid() and replaced:
        form = _changed_meanwhile(form, deal, sides)
    elif request.method == "POST" and form.is_valid():
        try:
            services.edit_deal(
                deal=deal,
                version=form.cleaned_data["version"],
                entry=form.cleaned_data["entry"],
                by=_by(request),
            )
        except rules.DealInvalid as invalid:
            if invalid.errors[0].deal_number in (None, deal.number):
                form.add_rule_errors(invalid)
            else:  # a later deal no longer stands on this one: its fields are not on the page
                form.add_error(None, rule_messages(invalid))
        except services.StaleChange:
            form = _changed_meanwhile(form, deal, sides)
        except services.ServiceError as refused:
            form.add_error(None, refused.message)
        else:
            sheet_url = reverse("match", args=[token, match.pk])
            return _done(request, f"{sheet_url}?edited={deal.number}")
    context = {
        "table": match.table,
        "match": match,
        "deal": deal,
        "form": form,
        "side_names": tuple(s.name for s in sides),
        "card_points_per_deal": rules.CARD_POINTS_PER_DEAL,
        "closed": match.why_closed,  # said before anything is typed in vain
    }
    return render(request, "matches/edit_deal.html", context)


def _changed_meanwhile(form: EditDealForm, deal: Deal, sides: list[Side]) -> EditDealForm:
    """Another phone changed the deal first. Said with what it reads now; what this phone
    typed stays, now over the deal's current version, so saving again replaces that change
    knowingly (else every retry would be refused as stale again)."""
    now = Deal.objects.filter(pk=deal.pk).first()
    if now is None:  # deleted meanwhile (only the last deal can be)
        form.add_error(None, NO_SUCH_DEAL % {"number": deal.number})
        return form
    data = form.data.copy()
    data["version"] = now.version
    form = EditDealForm(data, side_names=form.side_names, claims_allowed=form.claims_allowed)
    form.is_valid()
    form.add_error(
        None,
        _(
            "Deal %(number)s was changed on another phone meanwhile: it now gives "
            "%(side_a)s %(a)s, %(side_b)s %(b)s. What you typed is kept below: save again to "
            "replace that change."
        )
        % {
            "number": deal.number,
            "side_a": sides[0].name,
            "a": now.points_0,
            "side_b": sides[1].name,
            "b": now.points_1,
        },
    )
    return form


# What an action says was just done, as an address can say it (?deleted=4, ?ended=1).
SAID = (
    "saved",
    "edited",
    "gone",
    "deleted",
    "restored",
    "reopened",
    "settings_saved",
    "ended",
    "stopped",
)


def _notice(done: dict) -> dict:
    """The sheet's notice of what was just done; a deal restored is said as a save is, with
    Undo."""
    notice = dict(done)
    if "restored" in notice:
        notice.update(saved=notice.pop("restored"), restored=True)
    return notice


def _act(
    request: HttpRequest,
    token: str,
    match_id: int,
    action,
    *,
    done=None,
    settings_form=None,
    **kwargs,
) -> HttpResponse:
    """Run one match action; a refusal is shown on the sheet in words, and `done` says what
    happened: in a notice, where the change is not plain to see. Without HTMX the sheet is
    loaded again from an address that says it (see SAID), and so is read afresh, as this
    change left it. A refused change of the settings comes back as sent (`settings_form`),
    to be mended."""
    match = _match(request, token, match_id, scorer=True)
    try:
        action(match=match, by=_by(request), **kwargs)
    except services.ServiceError as refused:
        why = refused.message
    except rules.DealInvalid as invalid:
        why = rule_messages(invalid)
    else:
        why = None
    if why is not None:
        notice = {"error": why}
        return _sheet_response(request, match, notice=notice, settings_form=settings_form)
    if is_htmx(request):
        return _sheet_response(request, match, notice=_notice(done or {}))
    said = urlencode({what: number for what, number in (done or {}).items() if what in SAID})
    return redirect(reverse("match", args=[token, match.pk]) + (f"?{said}" if said else ""))


@table_page
@require_POST
def delete_deal(request: HttpRequest, token: str, match_id: int, number: int) -> HttpResponse:
    """Delete the last deal; Undo (a deal just saved) also puts its points back in the form,
    to be corrected and saved again."""
    done = {"deleted": number}
    undo = request.POST.get("undo")  # the revision the phone was shown, the deal just saved
    shown = None if undo is None else int(undo) if re.fullmatch("[0-9]{1,9}", undo) else -1

    def delete(*, match: Match, by: str) -> None:
        logged = services.delete_last_deal(match=match, number=number, by=by, revision=shown)
        request.session[DELETED] = logged.pk  # this phone is not "another phone" to itself
        if shown is not None:
            done["undone"] = entry_from_document(logged.old)

    return _act(request, token, match_id, delete, done=done)


@table_page
@require_POST
def restore_deal(request: HttpRequest, token: str, match_id: int, number: int) -> HttpResponse:
    done = {"restored": number}
    return _act(request, token, match_id, services.restore_deal, number=number, done=done)


@table_page
@require_POST
def end_match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    return _act(request, token, match_id, services.end_match, done={"ended": 1})


@table_page
@require_POST
def stop_match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    return _act(request, token, match_id, services.stop_match, done={"stopped": 1})


@table_page
@require_POST
def reopen_match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    return _act(request, token, match_id, services.reopen_match, done={"reopened": 1})


@table_page
@require_POST
def rematch(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    match = _match(request, token, match_id, scorer=True)
    try:
        again = services.rematch(match=match, by=_by(request))
    except services.ServiceError as refused:
        return _sheet_response(request, match, notice={"error": refused.message})
    return _done(request, reverse("match", args=[token, again.pk]))


@table_page
@require_POST
def change_settings(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    match = _match(request, token, match_id, scorer=True)
    form = SettingsForm(request.POST)
    if not form.is_valid():  # said in the form, which keeps what was typed
        return _sheet_response(request, match, settings_form=form)
    done = {"settings_saved": 1}
    change = services.change_settings
    return _act(
        request, token, match_id, change, done=done, settings_form=form, settings=form.settings
    )


@require_safe
def offline(request: HttpRequest) -> HttpResponse:
    return render(request, "offline.html")


# What the manifest says in every language: how the installed app looks.
_INSTALLED = {
    "start_url": "/",
    "scope": "/",
    "display": "standalone",
    "orientation": "portrait",
    "background_color": "#f6f4ee",
    "theme_color": "#1f6f4a",
}
_ICONS = [
    ("icons/icon-192.png", "192x192", "image/png", "any"),
    ("icons/icon-512.png", "512x512", "image/png", "any"),
    ("icons/maskable-512.png", "512x512", "image/png", "maskable"),
    ("icons/icon.svg", "any", "image/svg+xml", "any"),
]


@require_safe
def manifest(request: HttpRequest, language: str) -> HttpResponse:
    """The web app manifest in the page's language: the name a phone gives the installed app.

    One address per language (the page names its own), so any cache may keep it a day.
    """
    with translation.override(language):
        names = {
            "lang": language,
            "name": gettext("Tressette Scoresheet"),
            "short_name": gettext("Tressette"),
            "description": gettext(
                "The score of your Tressette matches, on every phone at the table."
            ),
        }
    icons = [
        {"src": static(name), "sizes": sizes, "type": kind, "purpose": purpose}
        for name, sizes, kind, purpose in _ICONS
    ]
    response = JsonResponse(
        {**names, **_INSTALLED, "icons": icons},
        content_type="application/manifest+json",
        json_dumps_params={"ensure_ascii": False},
    )
    response["Content-Language"] = language  # the address's, not the phone's
    patch_cache_control(response, public=True, max_age=24 * 3600)
    return response


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """Served from the root so that it may answer for every page."""
    # What the offline page needs; other static files are kept as pages fetch them.
    urls = [static(name) for name in ("css/app.css", "icons/icon.svg")]
    context = {
        "static_urls": urls,
        "static_prefix": settings.STATIC_URL,
        "version": hashlib.blake2s("".join(urls).encode(), digest_size=6).hexdigest(),
    }
    response = render(request, "sw.js", context, content_type="text/javascript")
    patch_cache_control(response, no_cache=True)
    return response


# --- Operations ---------------------------------------------------------------------------------


@require_safe
def floor(request: HttpRequest) -> HttpResponse:
    """A constant answer through the whole middleware stack: the benchmark's floor."""
    return HttpResponse("floor\n", content_type="text/plain")


@never_cache
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """200 when the database answers with the app's tables, 503 when it does not."""
    try:
        Table.objects.exists()
    except DatabaseError:
        return HttpResponse(
            "database unavailable or not migrated\n", status=503, content_type="text/plain"
        )
    return HttpResponse("ok\n", content_type="text/plain")
