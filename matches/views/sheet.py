"""The sheet: a match as it is played, polled by every phone at the table, and the actions
taken on it.

Every answer is drawn by `_answer` from the same template and the same read model
(selectors.Sheet): the whole page, or with HTMX the parts of it that change, each swapped in
by its id. After a change without HTMX, a redirect to the sheet, whose address says what was
done (?saved=4); with HTMX, the parts, saying it.
"""

import hashlib
import re
import secrets
from dataclasses import dataclass, replace
from functools import partial

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.functional import SimpleLazyObject
from django.utils.http import urlencode
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from matches import rules, selectors, services
from matches.forms import CountForm, DealForm, EditDealForm, SettingsForm, entry_data, rule_messages
from matches.models import Deal, Match, entry_from_document
from matches.views import kept
from matches.views.access import (
    DELETED,
    by,
    done,
    joined_with,
    posted,
    scorer_match,
    scorer_match_and_sides,
    table_page,
    was_scorer,
)


@dataclass(frozen=True)
class Conflict:
    """Two phones entered the same deal: the one saved, and what this phone typed."""

    said: str  # "Deal 1 was just entered on another phone."
    number: int
    points: tuple[int, int]
    resent: bool  # this phone's own save got through before, with other points
    same: bool  # the very points this phone typed
    yours: str


@dataclass(frozen=True)
class Notice:
    """What the sheet says of this phone's own last action, above the deals."""

    saved: int | None = None
    restored: bool = False  # the deal saved was put back
    deleted: int | None = None
    undone: bool = False  # deleted by Undo: its points are in the form again
    edited: int | None = None
    gone: int | None = None  # an edit of a deal deleted meanwhile
    restorable: int | None = None  # the deal Restore would put back now
    reopened: bool = False
    settings_saved: bool = False
    counted: bool = False
    conflict: Conflict | None = None
    error: str = ""

    def __bool__(self) -> bool:  # anything to say
        return self != Notice()


NO_SUCH_DEAL = _("There is no deal %(number)s on the sheet now: another phone may have deleted it.")
CHANGED_MEANWHILE = _(
    "Deal %(number)s was changed on another phone meanwhile: it now gives %(side_a)s %(a)s, "
    "%(side_b)s %(b)s. What you typed is kept below: save again to replace that change."
)
# What an address may say was just done, read back as a Notice (?deleted=4, ?ended=1).
SAID = ("saved", "restored", "deleted", "edited", "gone", "reopened", "settings_saved", "ended",
        "stopped")  # fmt: skip


def _said(request: HttpRequest, sheet: selectors.Sheet) -> Notice:
    """The notice an address names (plain digits only: "²" is a digit to isdigit()). An end
    or a stop is plain to see on the sheet; a deal restored is said as saved, with Undo."""
    if not request.GET:
        return Notice()
    said = {what: int(value) for what in SAID
            if re.fullmatch("[0-9]{1,6}", value := request.GET.get(what, ""))}  # fmt: skip
    notice = Notice(
        saved=said.get("saved", said.get("restored")),
        restored="restored" in said,
        deleted=said.get("deleted"),
        edited=said.get("edited"),
        gone=said.get("gone"),
        reopened="reopened" in said,
        settings_saved="settings_saved" in said,
    )
    return _with_restore(notice, sheet)


def _with_restore(notice: Notice, sheet: selectors.Sheet) -> Notice:
    """A deletion is said with Restore while the deal can be put back."""
    if notice.deleted is None and notice.gone is None:
        return notice
    match = Match.objects.get(pk=sheet.match_id)
    deleted = match.restorable_deletion()
    number = deleted.deal_number if deleted is not None else None
    if notice.deleted is not None and notice.deleted != number:
        notice = replace(notice, deleted=None)
    return replace(notice, restorable=number)


def _etag(request: HttpRequest, match_id: int, state: selectors.State, scorer: bool) -> str:
    """Changes with the match's revision and whatever else changes the answer: the role (a
    new scorer link changes every scorer's), the language, HTMX and the query."""
    parts = [match_id, state.revision, state.scorer_token if scorer else "", get_language(),
             bool(request.htmx), request.META.get("QUERY_STRING", "")]  # fmt: skip
    return f'"{hashlib.blake2s(repr(parts).encode(), digest_size=12).hexdigest()}"'


def _entry_form(sheet: selectors.Sheet, data=None, **initial) -> DealForm:
    """The form of the next deal: what was sent, or blank with a new idempotency key."""
    initial.setdefault("key", secrets.token_urlsafe(16))
    return DealForm(data, initial={"number": sheet.next_number, **initial},
                    side_names=sheet.side_names, claims_allowed=sheet.claims_allowed)  # fmt: skip


# The sheet's parts HTMX swaps, by their ids; an answer draws those that can have changed.
PARTS = ("notices", "live", "rows", "entry", "settings")
# A deal saved changes no setting, and its rows are the deals or just the new one.
SAVE_PARTS = ("notices", "live", "entry")


def _parts(request: HttpRequest, sheet: selectors.Sheet, link_changed: bool) -> dict[str, bool]:
    """What a poll draws: the score and the deals; the entry form unless the phone is typing
    in it, and the settings only once the match was ended or reopened meanwhile (and with
    them the entry form, whatever was typed: it is no longer what the sheet offers)."""
    typing = request.GET.get("typing") == "1"
    reopened_or_closed = (request.GET.get("closed") == "1") == sheet.in_progress
    return {
        "live": True,
        "rows": True,
        "entry": not typing or link_changed or reopened_or_closed,
        "settings": reopened_or_closed,
    }


def _context(
    request: HttpRequest,
    sheet: selectors.Sheet,
    state: selectors.State,
    *,
    parts: tuple[str, ...] = PARTS,
    notice: Notice = Notice(),
    form: DealForm | None = None,
    count: CountForm | None = None,
    settings_form: SettingsForm | None = None,
) -> dict:
    scorer = joined_with(request, state.table_id, state.scorer_token)
    link_changed = was_scorer(request, state.table_id, state.scorer_token)
    if form is not None and form.errors and not (scorer and sheet.open_for_deals):
        # Decided or ended meanwhile: no form to say the refusal on.
        refused = " ".join(error for errors in form.errors.values() for error in errors)
        notice = replace(notice, error=refused)
    deleted = _deleted_elsewhere(request, sheet) if scorer and sheet.in_progress else None
    typing, shown = request.GET.get("typing") == "1", request.GET.get("number")
    # What this phone alone is shown; without any, its page is every phone's in its role.
    own = {
        "notice": notice,
        # A form sent back or refilled (Undo) holds a deal being typed: polls leave it be.
        "holds_entry": form is not None and (form.is_bound or "kind" in form.initial),
        "counting": count is not None,
        "settings_open": settings_form is not None,
        "link_changed": link_changed,
        "deleted_elsewhere": deleted,
        "stale_entry": typing and not deleted and shown != str(sheet.next_number),
    }
    # Blank forms are drawn from the cache ({% cache %}): each is built only if drawn.
    return {
        **own,
        # Drawn once for every phone in its role at this revision ({% keep %}).
        "page_key": None
        if any(own.values())
        else kept.page_key("sheet", sheet.match_id, sheet.revision, sheet.viewer_token, scorer),
        "sheet": sheet,
        "can_score": scorer,
        "form": form or SimpleLazyObject(partial(_entry_form, sheet)),
        "key": form["key"].value() if form is not None else secrets.token_urlsafe(16),
        "count": count or SimpleLazyObject(partial(CountForm, side_names=sheet.side_names)),
        "settings_form": settings_form
        or SimpleLazyObject(partial(SettingsForm.of, sheet.settings)),
        "parts": _parts(request, sheet, link_changed)
        if request.method == "GET"
        else dict.fromkeys(parts, True),
    }


def _deleted_elsewhere(request: HttpRequest, sheet: selectors.Sheet) -> int | None:
    """The last deal, deleted on another phone, while nothing was saved since: every other
    scorer is told, and may restore it."""
    last = sheet.last_change
    if last is None or last[1:] != ("deal_deleted", sheet.next_number):
        return None
    return None if last[0] == request.session.get(DELETED) else sheet.next_number


def _answer(
    request: HttpRequest,
    sheet: selectors.Sheet,
    state: selectors.State,
    *,
    status: int = 200,
    **shown,
) -> HttpResponse:
    """The sheet as this phone may see it: whole, or with HTMX its parts that change."""
    template = "matches/match.html#update" if request.htmx else "matches/match.html"
    return render(request, template, _context(request, sheet, state, **shown), status=status)


def _sheet(token: str, match_id: int, state: selectors.State | None = None):
    """The sheet as it stands, and what its poll compares (`state`, if just read)."""
    state = state or selectors.match_state(token, match_id)
    sheet = kept.sheet(token, match_id, state.revision) if state is not None else None
    if sheet is None:  # no such match, or its view link changed
        raise Http404
    return sheet, state


@table_page
@require_safe
def match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    """The sheet. Polled every few seconds by each phone: unchanged, it answers 304."""
    polled = "poll" in request.GET
    state = (kept.polled_state if polled else selectors.match_state)(token, match_id)
    if state is None:
        raise Http404
    scorer = joined_with(request, state.table_id, state.scorer_token)
    etag = _etag(request, match_id, state, scorer)
    if (unchanged := get_conditional_response(request, etag=etag)) is not None:
        return unchanged
    sheet, state = _sheet(token, match_id, state)
    response = _answer(request, sheet, state, notice=_said(request, sheet))
    response["ETag"] = etag
    return response


def _done(request: HttpRequest, match: Match, notice: Notice, **said: int) -> HttpResponse:
    """After a change: with HTMX the sheet's parts, saying `notice`; else a redirect to the
    sheet, whose address says it (`said`), read afresh as this change left it."""
    if request.htmx:
        sheet, state = _sheet(match.table.viewer_token, match.pk)
        return _answer(request, sheet, state, notice=_with_restore(notice, sheet))
    return _redirect(match, said)


def _redirect(match: Match, said: dict[str, int]) -> HttpResponse:
    url = reverse("match", args=[match.table.viewer_token, match.pk])
    return redirect(f"{url}?{urlencode(said)}" if said else url)


@table_page
@require_POST
def record_deal(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    match, sides = scorer_match_and_sides(request, token, match_id)
    form = DealForm(request.POST, side_names=(sides[0].name, sides[1].name),
                    claims_allowed=match.claims_allowed)  # fmt: skip
    if "count" in request.POST:
        return _counted(request, *_sheet(token, match_id), form)
    try:
        if not form.is_valid():
            return _answer(request, *_sheet(token, match_id), form=form)
        data = form.cleaned_data
        recorded = services.record_deal(match=match, number=data["number"], entry=data["entry"],
                                        idempotency_key=data["key"], by=by(request))  # fmt: skip
    except rules.DealInvalid as invalid:
        form.add_rule_errors(invalid)
    except services.DealConflict as conflict:
        return _answer(request, *_sheet(token, match_id), notice=_conflict(conflict, form))
    except services.ServiceError as refused:
        form.add_error(None, refused.message)
    else:
        return _saved(request, match, sides, recorded)
    # What was typed stays, for the deal the sheet now says is next (another phone may
    # have deleted one meanwhile: the form draws the sheet's number, whatever was sent).
    return _answer(request, *_sheet(token, match_id), form=form)


def _saved(request: HttpRequest, match: Match, sides: list, recorded: services.Recorded):
    """A deal saved: with HTMX, the parts a save changes, drawn from the match as the save
    left it, without reading it again. Unless something else changed it between this view's
    read and the save (a player renamed, say), or this is a retry: then read afresh."""
    number = recorded.deal.number
    if not request.htmx:
        return _redirect(match, {"saved": number})
    if not recorded.created or recorded.match.revision != match.revision + 1:
        return _done(request, match, Notice(saved=number))
    saved = recorded.match
    saved.table = match.table
    last = (recorded.logged.pk, recorded.logged.action, number)
    sheet = selectors.sheet_of(saved, sides, recorded.outcome, last)
    kept.keep_sheet(sheet)  # the other phones' polls draw it next
    state = selectors.State(saved.revision, match.table_id, match.table.scorer_token)
    # The phone showed the sheet just before this deal: the new row is added to its table.
    row_added = number > 1 and request.POST.get("shown") == str(match.revision)
    parts = (*SAVE_PARTS, "row_added") if row_added else (*SAVE_PARTS, "rows")
    return _answer(request, sheet, state, parts=parts, notice=Notice(saved=number))


def _conflict(conflict: services.DealConflict, form: DealForm) -> Notice:
    """Both phones entered the same deal: what this one typed is said, not kept to be saved
    a second time."""
    entry, saved = form.cleaned_data["entry"], conflict.deal
    yours = selectors.as_typed(entry, form.side_names)
    same = saved.entry == entry
    said = Conflict(conflict.message, saved.number, saved.points, conflict.resent, same, yours)
    return Notice(conflict=said)


def _counted(
    request: HttpRequest, sheet: selectors.Sheet, state: selectors.State, form: DealForm
) -> HttpResponse:
    """Count the pile: both sides' card points from one side's count (in a claim only the
    counted side's, the other pile not being all the rest), filled in, not saved."""
    claim = form.data.get("kind") == rules.DealKind.CLAIM
    count = CountForm(request.POST, side_names=sheet.side_names, claim=claim)
    data = request.POST.copy()
    if count.is_valid():
        for side, points in enumerate(count.cleaned_data["card_points"]):
            if points is not None:
                data[f"card_points_{side}"] = points
    filled = _entry_form(sheet, data)
    filled.full_clean()
    filled._errors.clear()  # not a save: only the count's own errors are said
    notice = Notice(counted=count.is_valid())
    return _answer(request, sheet, state, form=filled, count=count, notice=notice)


@table_page
@require_http_methods(["GET", "POST"])
def edit_deal(request: HttpRequest, token: str, match_id: int, number: int) -> HttpResponse:
    match = scorer_match(request, token, match_id)
    deal = Deal.objects.filter(match=match, number=number).first()
    if deal is None:  # deleted on another phone (a page open before, or its Save tapped)
        return done(request, reverse("match", args=[token, match.pk]) + f"?gone={number}")
    sheet, _ = _sheet(token, match_id)
    initial = {"number": deal.number, "version": deal.version, **entry_data(deal.entry)}
    form = EditDealForm(posted(request), initial=initial, side_names=sheet.side_names,
                        claims_allowed=sheet.claims_allowed)  # fmt: skip
    # The deal this page showed was deleted and another took its number: what was typed is
    # not about it, whatever its version.
    replaced = request.POST.get("deal", str(deal.pk)) != str(deal.pk)
    if request.method == "POST" and form.is_valid():
        form = _edited(request, form, deal, sheet, replaced=replaced)
        if form is None:
            url = reverse("match", args=[token, match.pk])
            return done(request, f"{url}?edited={deal.number}")
    context = {"sheet": sheet, "deal": deal, "form": form, "closed": match.why_closed}
    return render(request, "matches/edit_deal.html", context)


def _edited(
    request: HttpRequest, form: EditDealForm, deal: Deal, sheet: selectors.Sheet, *, replaced: bool
) -> EditDealForm | None:
    """Save the edit; None once saved, else the form saying why not."""
    if replaced:
        return _changed_meanwhile(form, deal, sheet)
    data = form.cleaned_data
    try:
        services.edit_deal(deal=deal, version=data["version"], entry=data["entry"], by=by(request))
    except rules.DealInvalid as invalid:
        if invalid.errors[0].deal_number in (None, deal.number):
            form.add_rule_errors(invalid)
        else:  # a later deal no longer stands on this one: its fields are not on the page
            form.add_error(None, rule_messages(invalid))
    except services.StaleChange:
        return _changed_meanwhile(form, deal, sheet)
    except services.ServiceError as refused:
        form.add_error(None, refused.message)
    else:
        return None
    return form


def _changed_meanwhile(form: EditDealForm, deal: Deal, sheet: selectors.Sheet) -> EditDealForm:
    """Another phone changed the deal first: said with what it gives now. What this phone
    typed stays, over the deal's current version, so saving again replaces that change
    knowingly (else every retry would be refused as stale again)."""
    now = Deal.objects.filter(pk=deal.pk).first()
    if now is None:  # deleted meanwhile (only the last deal can be)
        form.add_error(None, NO_SUCH_DEAL % {"number": deal.number})
        return form
    data = form.data.copy()
    data["version"] = now.version
    form = EditDealForm(data, side_names=sheet.side_names, claims_allowed=sheet.claims_allowed)
    form.is_valid()
    names = sheet.side_names
    form.add_error(None, CHANGED_MEANWHILE % {"number": deal.number, "side_a": names[0],
                   "a": now.points_0, "side_b": names[1], "b": now.points_1})  # fmt: skip
    return form


def _act(request: HttpRequest, token: str, match_id: int, action, notice: Notice, said: dict,
         settings_form: SettingsForm | None = None, **kwargs) -> HttpResponse:  # fmt: skip
    """Run one action on the match; a refusal is said on the sheet in words. A refused
    change of the settings comes back as sent, open, to be mended."""
    match = scorer_match(request, token, match_id)
    try:
        action(match=match, by=by(request), **kwargs)
    except services.ServiceError as refused:
        why = refused.message
    except rules.DealInvalid as invalid:
        why = rule_messages(invalid)
    else:
        return _done(request, match, notice, **said)
    return _answer(request, *_sheet(token, match_id), notice=Notice(error=why),
                   settings_form=settings_form)  # fmt: skip


@table_page
@require_POST
def delete_deal(request: HttpRequest, token: str, match_id: int, number: int) -> HttpResponse:
    """Delete the last deal; Undo (of a deal just saved) also puts its points back in the
    form, to be corrected and saved again."""
    undo = request.POST.get("undo")  # the revision the phone was shown, the deal just saved
    shown = None if undo is None else int(undo) if re.fullmatch("[0-9]{1,9}", undo) else -1
    match = scorer_match(request, token, match_id)
    try:
        logged = services.delete_last_deal(match=match, number=number, by=by(request),
                                           revision=shown)  # fmt: skip
    except services.ServiceError as refused:
        return _answer(request, *_sheet(token, match_id), notice=Notice(error=refused.message))
    request.session[DELETED] = logged.pk  # this phone is not "another phone" to itself
    if shown is None or not request.htmx:
        return _done(request, match, Notice(deleted=number), deleted=number)
    sheet, state = _sheet(token, match_id)
    refill = _entry_form(sheet, **entry_data(entry_from_document(logged.old)))
    return _answer(request, sheet, state, notice=Notice(deleted=number, undone=True), form=refill)


@table_page
@require_POST
def restore_deal(request: HttpRequest, token: str, match_id: int, number: int) -> HttpResponse:
    notice = Notice(saved=number, restored=True)
    return _act(request, token, match_id, services.restore_deal, notice, {"restored": number},
                number=number)  # fmt: skip


@table_page
@require_POST
def end_match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    return _act(request, token, match_id, services.end_match, Notice(), {"ended": 1})


@table_page
@require_POST
def stop_match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    return _act(request, token, match_id, services.stop_match, Notice(), {"stopped": 1})


@table_page
@require_POST
def reopen_match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    notice = Notice(reopened=True)
    return _act(request, token, match_id, services.reopen_match, notice, {"reopened": 1})


@table_page
@require_POST
def change_settings(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    form = SettingsForm(request.POST)
    if not form.is_valid():  # said in the form, which keeps what was typed
        scorer_match(request, token, match_id)
        return _answer(request, *_sheet(token, match_id), settings_form=form)
    return _act(request, token, match_id, services.change_settings, Notice(settings_saved=True),
                {"settings_saved": 1}, settings_form=form, settings=form.settings)  # fmt: skip


@table_page
@require_POST
def rematch(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    match = scorer_match(request, token, match_id)
    try:
        again = services.rematch(match=match, by=by(request))
    except services.ServiceError as refused:
        return _answer(request, *_sheet(token, match_id), notice=Notice(error=refused.message))
    return done(request, reverse("match", args=[token, again.pk]))
