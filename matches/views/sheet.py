"""The sheet: a match as it is played, polled by every phone at the table, and the actions
taken on the match (its deals' are in views/deals.py).

Every answer is drawn by `answer` from the same template and the same read model
(selectors.Sheet): the whole page, or with HTMX the parts of it that change, each swapped in
by its id. A deal saved is answered by a redirect to the sheet, whose address says so
(?saved=4): HTMX follows it, and the GET draws the parts that changed. After another change,
without HTMX a redirect too; with HTMX, the parts, saying it.
"""

import secrets
from dataclasses import dataclass, replace
from functools import partial

from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.middleware.csrf import CSRF_SESSION_KEY
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.functional import SimpleLazyObject
from django.utils.http import urlencode
from django.utils.translation import get_language
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from matches import rules, selectors, services
from matches.forms import (
    AnyDealForm,
    CountForm,
    SettingsForm,
    deal_form,
    entry_data,
    rule_messages,
)
from matches.models import Action, Match
from matches.views.access import (
    DELETED,
    by,
    done,
    etag_of,
    joined_with,
    plain_number,
    scorer_match,
    table_page,
    was_scorer,
)
from matches.views.watched import polled_state


@dataclass(frozen=True)
class Conflict:
    """Two phones entered the same deal: the one saved, and what this phone typed."""

    said: str  # "Deal 1 was just entered on another phone."
    number: int
    points: str  # the deal saved, each side's points by name
    resent: bool  # this phone's own save got through before, with other points
    same: bool  # the very points this phone typed
    yours: str
    entry: rules.DealEntry  # what this phone typed

    @property
    def typed(self) -> str:
        """What this phone typed, as an address's query: the deal's edit form fills it in."""
        return urlencode(entry_data(self.entry))


@dataclass(frozen=True)
class Notice:
    """What the sheet says of this phone's own last action, above the deals."""

    saved: int | None = None
    saved_at: int | None = None  # the revision the save left: Undo only while it stands
    restored: bool = False  # the deal saved was put back
    deleted: int | None = None
    undone: bool = False  # deleted by Undo: its points are in the form again
    edited: int | None = None
    gone: int | None = None  # an edit of a deal deleted meanwhile
    deleted_since: int | None = None  # a save sent again, of a deal deleted meanwhile
    restorable: int | None = None  # the deal Restore would put back now
    reopened: bool = False
    settings_saved: bool = False
    counted: bool = False
    conflict: Conflict | None = None
    error: str = ""

    def __bool__(self) -> bool:  # anything to say
        return self != SAID_NOTHING

    def offers_undo(self, sheet: selectors.Sheet) -> bool:
        """Undo, of the deal saved, while it is the last and the sheet stands as the save left
        it (else it could take back a deal another phone entered in between)."""
        return (sheet.in_progress and self.saved == sheet.last_number
                and self.saved_at in (None, sheet.revision))  # fmt: skip


SAID_NOTHING = Notice()

# What an address may say was just done, read back as a Notice (?deleted=4, ?ended=1).
SAID = ("saved", "at", "restored", "deleted", "edited", "gone", "deleted_since", "reopened",
        "settings_saved", "ended", "stopped")  # fmt: skip


def _said(request: HttpRequest, sheet: selectors.Sheet) -> Notice:
    """The notice an address names (plain numbers only, see plain_number). An end
    or a stop is plain to see on the sheet; a deal restored is said as saved, with Undo."""
    if not request.GET:
        return SAID_NOTHING
    said = {what: number for what in SAID
            if (number := plain_number(request.GET.get(what))) is not None}  # fmt: skip
    notice = Notice(
        saved=said.get("saved", said.get("restored")),
        saved_at=said.get("at"),
        restored="restored" in said,
        deleted=said.get("deleted"),
        edited=said.get("edited"),
        gone=said.get("gone"),
        deleted_since=said.get("deleted_since"),
        reopened="reopened" in said,
        settings_saved="settings_saved" in said,
    )
    return _with_restore(notice, sheet)


def _with_restore(notice: Notice, sheet: selectors.Sheet) -> Notice:
    """A deletion is said with Restore while the deal can be put back."""
    if notice.deleted is None and notice.gone is None and notice.deleted_since is None:
        return notice
    match = Match.objects.get(pk=sheet.match_id)
    deleted = match.restorable_deletion()
    number = deleted.deal_number if deleted is not None else None
    if notice.deleted is not None and notice.deleted != number:
        notice = replace(notice, deleted=None)
    return replace(notice, restorable=number)


def entry_form(sheet: selectors.Sheet, data=None, **initial) -> AnyDealForm:
    """The form of the next deal: what was sent, or blank with a new idempotency key."""
    initial.setdefault("key", secrets.token_urlsafe(16))
    return deal_form(sheet.game, data, initial={"number": sheet.next_number, **initial},
                     side_names=sheet.side_names, out=sheet.out, sweep=sheet.reversed_sweep,
                     seat_names=sheet.seat_names,
                     claims_allowed=sheet.claims_allowed,
                     declarations_allowed=sheet.declarations_allowed)  # fmt: skip


# The sheet's parts HTMX swaps, by their ids; an answer draws those that can have changed.
PARTS = ("notices", "live", "rows", "entry", "settings")


def _parts(
    request: HttpRequest, sheet: selectors.Sheet, link_changed: bool, scorer: bool, said: bool
) -> dict[str, bool]:
    """What a GET with HTMX (a poll, or the sheet a change redirects to) draws: the score and
    the deals; the notices if its address says something was done; the entry form unless
    the phone is typing in it, and the settings only once the match was ended or reopened
    meanwhile (and with them the entry form, whatever was typed: it is no longer what the
    sheet offers). A scorer's phone one deal behind (its own save, or another phone's) is
    drawn only what that changes: the deal's row added, the form moved on to the next deal."""
    typing = request.GET.get("typing") == "1"
    reopened_or_closed = (request.GET.get("closed") == "1") == sheet.in_progress
    if (
        scorer
        and not (typing or link_changed or reopened_or_closed)
        and _one_deal_behind(request, sheet)
    ):
        # The first deal draws the table itself; a deal that put a player out (a perdere),
        # the form anew, without them.
        added = "row_added" if sheet.last_number > 1 else "rows"
        moved_on = "entry" if sheet.went_out_last else "next"
        return {"notices": said, "live": True, added: True, moved_on: True}
    return {
        "notices": said,
        "live": True,
        "rows": True,
        "entry": not typing or link_changed or reopened_or_closed,
        "settings": reopened_or_closed,
    }


def _one_deal_behind(request: HttpRequest, sheet: selectors.Sheet) -> bool:
    """The phone shows the sheet at the revision before (`shown`, which the page sends), its
    form at the deal last saved, and saving that deal is the only change since."""
    number = sheet.last_number
    return (
        sheet.open_for_deals
        and request.GET.get("shown") == str(sheet.revision - 1)
        and request.GET.get("number") == str(number)
        and sheet.last_change is not None
        and sheet.last_change[1:] == (Action.DEAL_RECORDED, number)
    )


def _context(
    request: HttpRequest,
    sheet: selectors.Sheet,
    state: selectors.State,
    *,
    parts: tuple[str, ...] = PARTS,
    notice: Notice = SAID_NOTHING,
    form: AnyDealForm | None = None,
    count: CountForm | None = None,
) -> dict:
    scorer = joined_with(request, state.table_id, state.scorer_token)
    link_changed = was_scorer(request, state.table_id, state.scorer_token)
    if form is not None and form.errors and not (scorer and sheet.open_for_deals):
        # Decided or ended meanwhile: no form to say the refusal on.
        refused = " ".join(error for errors in form.errors.values() for error in errors)
        notice = replace(notice, error=refused)
    deleted = _deleted_elsewhere(request, sheet) if scorer and sheet.in_progress else None
    all_deals = request.GET.get("deals") == "all"
    typing, shown = request.GET.get("typing") == "1", request.GET.get("number")
    own = {  # what this phone alone is shown
        "notice": notice,
        # A form sent back or refilled (Undo) holds a deal being typed: polls leave it be.
        "holds_entry": form is not None and (form.is_bound or _refilled(form)),
        "counting": count is not None,
        "link_changed": link_changed,
        "deleted_elsewhere": deleted,
        "arrived": _arrived(request, sheet),
        "stale_entry": typing and not deleted and shown != str(sheet.next_number),
    }
    # What the page's first poll says it holds (the sheet drawn, which may be newer than
    # `state`): unchanged since, it is answered 304.
    shown_state = replace(state, revision=sheet.revision)
    began = state.evening_started_at
    tonight = SimpleLazyObject(partial(selectors.tonight_of, state.table_id, began))
    poll_etag = etag(sheet.match_id, shown_state, scorer, get_language(), htmx=True)
    # Blank forms are drawn from the cache ({% cache %}): each is built only if drawn.
    return {
        **own,
        "sheet": sheet,
        "all_deals": all_deals,
        "shown_rows": sheet.rows if all_deals else sheet.latest_rows,
        "can_score": scorer,
        "undo": notice.offers_undo(sheet),
        "poll_etag": poll_etag,
        "form": form or SimpleLazyObject(partial(entry_form, sheet)),
        "key": form["key"].value() if form is not None else secrets.token_urlsafe(16),
        "count": count or SimpleLazyObject(partial(CountForm, side_names=sheet.side_names)),
        # Tonight's tally at the table, and this match's place in it: read only where drawn.
        "tonight": tonight,
        "standing": SimpleLazyObject(
            lambda: tonight.standings.get(sheet.match_id) if tonight else None
        ),
        # The result to share, once the match is over: read only where it is drawn.
        "result": SimpleLazyObject(
            partial(selectors.load_result, sheet.viewer_token, sheet.match_id)
        ),
        "parts": _parts(request, sheet, link_changed, scorer, bool(notice))
        if request.method == "GET"
        else dict.fromkeys(parts, True),
    }


def _refilled(form: AnyDealForm) -> bool:
    """Filled with a deal (Undo): entry_data's fields, of any game."""
    return not {"kind", "soloist", "players"}.isdisjoint(form.initial)


@dataclass(frozen=True)
class Elsewhere:
    """What another phone just did to a deal, as the sheet says it beside the deal."""

    number: int
    by: str  # the name that phone chose ("Marco's phone"), or "": "another phone"
    edited: bool = False  # changed, not entered


def _deleted_elsewhere(request: HttpRequest, sheet: selectors.Sheet) -> Elsewhere | None:
    """The last deal, taken back on another phone, while nothing was saved since: every other
    scorer is told, in a neutral line (a Restore here would invite undoing a correction; the
    match's history offers it)."""
    last = sheet.last_change
    if last is None or last[1:] != (Action.DEAL_DELETED, sheet.next_number):
        return None
    if last[0] == request.session.get(DELETED):
        return None
    return Elsewhere(sheet.next_number, sheet.last_by)


def _arrived(request: HttpRequest, sheet: selectors.Sheet) -> Elsewhere | None:
    """The deal another phone entered or changed since the sheet this phone's poll says it
    shows (`shown`, its revision): marked for a moment, with who did it."""
    shown = plain_number(request.GET.get("shown"))
    last = sheet.last_change
    if "poll" not in request.GET or shown is None or shown >= sheet.revision or last is None:
        return None
    _, action, number = last
    if number is None or number > sheet.last_number:
        return None
    if action == Action.DEAL_RECORDED and number == sheet.last_number:
        return Elsewhere(number, sheet.last_by)
    if action == Action.DEAL_EDITED:
        return Elsewhere(number, sheet.last_by, edited=True)
    return None


def answer(
    request: HttpRequest,
    sheet: selectors.Sheet,
    state: selectors.State,
    *,
    status: int = 200,
    **shown,
) -> HttpResponse:
    """The sheet as this phone may see it: whole, or with HTMX its parts that change (or
    its deals alone, their first ones shown or hidden on a tap)."""
    context = _context(request, sheet, state, **shown)
    page = "matches/match.html" if sheet.game is rules.Game.TRESSETTE else "matches/alone.html"
    if not request.htmx:
        template = page
    elif _folding(request):
        template = f"{page}#rows"
    else:
        template = f"{page}#update"
    response = render(request, template, context, status=status)
    if context["parts"].get("next"):
        response["HX-Trigger-After-Swap"] = "deal:next"  # sheet.js empties the form for it
    return response


SHEET_KEPT = 60 * 60  # seconds: a newer revision is kept under another key


def _sheet_key(token: str, match_id: int, revision: int) -> str:
    # The view link is part of the key (the sheet's addresses carry it), and the language.
    return f"sheet:{match_id}:{revision}:{token}:{get_language()}"


def sheet_at(token: str, match_id: int, revision: int) -> selectors.Sheet | None:
    """The sheet at `revision`: read once for every phone at the table, whichever process it
    reaches (Django's cache); else as it stands now, and kept at its own revision."""
    sheet = cache.get(_sheet_key(token, match_id, revision))
    if sheet is None:
        sheet = selectors.load_sheet(token, match_id)
        if sheet is not None:
            cache.set(_sheet_key(token, match_id, sheet.revision), sheet, SHEET_KEPT)
    return sheet


def sheet_and_state(token: str, match_id: int, state: selectors.State | None = None):
    """The sheet as it stands, and what its poll compares (`state`, if just read)."""
    state = state or selectors.match_state(token, match_id)
    sheet = sheet_at(token, match_id, state.revision) if state is not None else None
    if sheet is None:  # no such match, or its view link changed
        raise Http404
    return sheet, state


@table_page
@require_safe
def match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    """The sheet, opened or polled every few seconds by each phone. Both start from the
    match's state as this process read it at most POLL_STALE_SECONDS ago (views/watched.py),
    with no query: almost every poll is answered 304 from it, and a phone that holds no copy
    of the sheet is drawn the sheet as it stood then. Whatever could show a phone something
    older than it holds reads the state afresh: a copy the state does not answer 304, and
    what `_afresh` names."""
    query = polled(request.GET) if "poll" in request.GET else request.META.get("QUERY_STRING", "")
    state = polled_state(token, match_id)
    if state is not None and _afresh(request, state):
        state = selectors.match_state(token, match_id)
    elif state is not None and "If-None-Match" in request.headers:
        if (unchanged := _unchanged(request, match_id, state, query)) is not None:
            return unchanged
        state = selectors.match_state(token, match_id)  # the phone's copy may be newer
    if state is None:
        raise Http404
    if (unchanged := _unchanged(request, match_id, state, query)) is not None:
        return unchanged
    etag = _etag(request, match_id, state, query)
    sheet, state = sheet_and_state(token, match_id, state)
    response = answer(request, sheet, state, notice=_said(request, sheet))
    response["ETag"] = etag
    return response


def _unchanged(
    request: HttpRequest, match_id: int, state: selectors.State, query: str
) -> HttpResponse | None:
    """304 (Django's conditional GET) if the phone holds the sheet as `state` draws it."""
    etag = _etag(request, match_id, state, query)
    response = get_conditional_response(request, etag=etag)
    if response is not None:
        response["ETag"] = etag  # the poll's next If-None-Match (sheet.js)
    return response


def _folding(request: HttpRequest) -> bool:
    """A tap that shows or hides a long sheet's first deals (?deals=all, ?deals=last); a
    poll's ?deals=all says only that this phone shows them."""
    return "deals" in request.GET and "poll" not in request.GET


def _afresh(request: HttpRequest, state: selectors.State) -> bool:
    """The sheet must be drawn as the match stands, not as this process read it a moment ago:
    on a reload of the page (the browser asks to revalidate; not for a poll, to which the
    browser adds that header because its script sets If-None-Match), at an address saying
    this phone has just changed the match (?saved=4, ?ended=1), when its first deals are
    shown or hidden (the deals drawn again are never older than those in sight), and for a
    phone that joined through another scorer link than the one read (a newer one, or its own
    since replaced)."""
    revalidate = request.headers.get("Cache-Control", "") if "poll" not in request.GET else ""
    return (
        "no-cache" in revalidate
        or "max-age=0" in revalidate
        or any(what in request.GET for what in SAID)
        or _folding(request)
        or was_scorer(request, state.table_id, state.scorer_token)
    )


def _etag(request: HttpRequest, match_id: int, state: selectors.State, query: str) -> str:
    """A whole page holds this phone's CSRF tokens: one drawn for another secret (a session
    that had none yet, a secret key changed) is another page, never answered 304."""
    scorer = joined_with(request, state.table_id, state.scorer_token)
    secret = "" if request.htmx else request.session.get(CSRF_SESSION_KEY, "")
    return etag(match_id, state, scorer, get_language(), bool(request.htmx), query, secret)


POLLED = "poll"  # a poll's query, for its ETag: the phone's own values in it change nothing


def etag(match_id: int, state: selectors.State, scorer: bool, language: str, htmx: bool,
         query: str = POLLED, secret: str = "") -> str:  # fmt: skip
    """Changes with the match's revision and whatever else changes the answer: the role (a
    new scorer link changes every scorer's), the language, HTMX, the page's query (for a
    poll, what `polled` keeps of it) and, for a whole page, the session's CSRF secret its
    tokens are masked from."""
    role = state.scorer_token if scorer else ""
    return etag_of(match_id, state.revision, state.table_revision, role, language, htmx, query,
                   secret)  # fmt: skip


def polled(query: QueryDict) -> str:
    """What of a poll's query changes its answer. Not the deal number the phone shows while
    it is not typing (its copy is the sheet at a revision); while it types, that number, so
    that a phone whose deal another phone took is told so, whatever it was answered before
    (an answer's entry form is not swapped in over a deal being typed). Nor whether it shows
    a long sheet's first deals (?deals=all): unchanged, its copy is as it holds it."""
    return f"{POLLED}:{query.get('number', '')}" if query.get("typing") == "1" else POLLED


def after_change(
    request: HttpRequest, token: str, match_id: int, notice: Notice, **said: int
) -> HttpResponse:
    """After a change: with HTMX the sheet's parts, saying `notice`; else a redirect to the
    sheet, whose address says it (`said`), read afresh as this change left it."""
    if request.htmx:
        sheet, state = sheet_and_state(token, match_id)
        return answer(request, sheet, state, notice=_with_restore(notice, sheet))
    return to_sheet(token, match_id, said)


def to_sheet(token: str, match_id: int, said: dict[str, int | str]) -> HttpResponse:
    url = reverse("match", args=[token, match_id])
    return HttpResponseRedirect(f"{url}?{urlencode(said)}" if said else url)


def act(request: HttpRequest, token: str, match_id: int, action, notice: Notice, said: dict,
        **kwargs) -> HttpResponse:  # fmt: skip
    """Run one action on the match; a refusal is said on the sheet in words."""
    match = scorer_match(request, token, match_id)
    try:
        action(match=match, by=by(request), **kwargs)
    except services.ServiceError as refused:
        why = refused.message
    except rules.DealInvalid as invalid:
        why = rule_messages(invalid)
    else:
        return after_change(request, token, match_id, notice, **said)
    return answer(request, *sheet_and_state(token, match_id), notice=Notice(error=why))


@table_page
@require_POST
def end_match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    return act(request, token, match_id, services.end_match, Notice(), {"ended": 1})


@table_page
@require_POST
def stop_match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    return act(request, token, match_id, services.stop_match, Notice(), {"stopped": 1})


@table_page
@require_POST
def reopen_match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    notice = Notice(reopened=True)
    return act(request, token, match_id, services.reopen_match, notice, {"reopened": 1})


@table_page
@require_http_methods(["GET", "HEAD", "POST"])
def change_settings(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    """The match's settings on a page of their own, reached from the sheet, and stopping the
    match there undecided. Saved, back to the sheet, which says so; refused, the form as
    sent, saying why beside what to mend."""
    match = scorer_match(request, token, match_id)
    sheet, _ = sheet_and_state(token, match_id)
    if sheet.game is not rules.Game.TRESSETTE:  # its terms are agreed before it begins
        return to_sheet(token, match_id, {})
    if request.method != "POST":
        if not sheet.in_progress:  # nothing to set on a match over
            return to_sheet(token, match_id, {})
        form = SettingsForm.of(sheet.settings)
    elif (form := SettingsForm(request.POST)).is_valid():
        try:
            services.change_settings(match=match, by=by(request), settings=form.settings)
        except services.ServiceError as refused:
            form.add_error(None, refused.message)
        except rules.DealInvalid as invalid:
            form.add_error(None, rule_messages(invalid))
        else:
            notice = Notice(settings_saved=True)
            return after_change(request, token, match_id, notice, settings_saved=1)
    return render(request, "matches/settings.html", {"sheet": sheet, "form": form})


@table_page
@require_POST
def rematch(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    match = scorer_match(request, token, match_id)
    try:
        again = services.rematch(match=match, by=by(request))
    except services.ServiceError as refused:
        return answer(
            request, *sheet_and_state(token, match_id), notice=Notice(error=refused.message)
        )
    return done(request, reverse("match", args=[token, again.pk]))
