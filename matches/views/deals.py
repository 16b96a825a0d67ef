"""The deals of a match: one saved (answered by a redirect to the sheet, which HTMX follows),
edited, deleted (Undo puts its points back in the form) and restored. Answers are the
sheet's (views/sheet.py): the same template, the same read model."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST

from matches import rules, selectors, services
from matches.forms import (
    AnyDealForm,
    CountForm,
    deal_form,
    entry_data,
    rule_messages,
    typed_deal,
)
from matches.models import Deal, Match, entry_from_document
from matches.views.access import (
    DELETED,
    by,
    done,
    joined,
    plain_number,
    posted,
    scorer_match,
    scorer_page,
    table_page,
)
from matches.views.sheet import (
    Conflict,
    Notice,
    act,
    after_change,
    answer,
    entry_form,
    sheet_and_state,
    to_sheet,
)

# A deal's fields, on the sheet and on its edit page, by its game.
FIELDS = {
    rules.Game.TRESSETTE: "matches/_deal_fields.html",
    rules.Game.TERZIGLIO: "matches/_solo_fields.html",
    rules.Game.A_PERDERE: "matches/_a_perdere_fields.html",
}
NO_SUCH_DEAL = _("There is no deal %(number)s on the sheet now: another phone may have deleted it.")
CHANGED_MEANWHILE = _(
    "Deal %(number)s was changed on another phone meanwhile: it now gives %(points)s. What "
    "you typed is kept below: save again to replace that change."
)


@table_page
@require_POST
def record_deal(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    if "count" in request.POST:
        scorer_match(request, token, match_id)
        sheet, state = sheet_and_state(token, match_id)
        return _counted(request, sheet, state)
    # Read before the match is (the service reads it): the form says which game it is of.
    typed = typed_deal(request.POST)
    if not typed.is_valid():
        return _refused(request, token, match_id)
    data = typed.cleaned_data
    if not joined(request):  # joined no table: refused (403, or 404) outside the writers' turn
        scorer_match(request, token, match_id)
    try:
        recorded = services.record_deal(match_id=match_id, number=data["number"],
                                        entry=data["entry"], idempotency_key=data["key"],
                                        by=by(request),
                                        page=scorer_page(request, token))  # fmt: skip
    except Match.DoesNotExist:
        raise Http404 from None
    except rules.DealInvalid as invalid:
        return _refused(request, token, match_id, invalid=invalid)
    except services.DealConflict as conflict:
        sheet, state = sheet_and_state(token, match_id)
        return answer(request, sheet, state, notice=_conflict(conflict, data["entry"], sheet))
    except services.DeletedSince as deleted:
        return to_sheet(token, match_id, {"deleted_since": deleted.number})
    except services.ServiceError as refused:
        return _refused(request, token, match_id, error=refused.message)
    return _saved(request, token, match_id, recorded)


def _refused(
    request: HttpRequest,
    token: str,
    match_id: int,
    *,
    invalid: rules.DealInvalid | None = None,
    error: str = "",
) -> HttpResponse:
    """The deal not saved, and why, on the sheet as it stands. What was typed stays, for the
    deal the sheet now says is next (another phone may have deleted one meanwhile: the form
    draws the sheet's number, whatever was sent)."""
    scorer_match(request, token, match_id)
    sheet, state = sheet_and_state(token, match_id)
    form = entry_form(sheet, request.POST)
    if form.is_valid() and invalid is not None:
        form.add_rule_errors(invalid)
    if error:
        form.add_error(None, error)
    return answer(request, sheet, state, form=form)


def _saved(
    request: HttpRequest, token: str, match_id: int, recorded: services.Recorded
) -> HttpResponse:
    """A deal saved (or sent again once saved): a redirect to the sheet, whose address says
    so, and at which revision (Undo is offered while the sheet is still at it). With HTMX
    the browser follows it, and the sheet's GET draws what changed: for a form drawn blank,
    what a poll draws a phone one deal behind (the row added, the form moved on, emptied by
    sheet.js), the parts every other phone's poll then finds drawn. A save sent again gets
    the whole sheet: its form may be older than the sheet the phone shows."""
    number = recorded.deal.number
    said: dict[str, int | str] = {"saved": number}
    if recorded.created:
        said["at"] = recorded.revision
        shown = plain_number(request.POST.get("shown"))
        blank = request.POST.get("drawn_blank") == "1"
        if request.htmx and blank and shown is not None:
            said.update(shown=shown, number=number, typing=0)
    return to_sheet(token, match_id, said)


def _conflict(conflict: services.DealConflict, entry, sheet: selectors.Sheet) -> Notice:
    """Both phones entered the same deal: what this one typed (`entry`, as its form read it)
    is said, not kept to be saved a second time."""
    saved = conflict.deal
    yours = selectors.as_typed(entry, sheet.side_names, sheet.seat_names)
    same = saved.entry == entry
    points = selectors.points_said(sheet.side_names, saved.points)
    said = Conflict(conflict.message, saved.number, points, conflict.resent, same, yours, entry)
    return Notice(conflict=said)


def _counted(request: HttpRequest, sheet: selectors.Sheet, state: selectors.State) -> HttpResponse:
    """Count the pile: both sides' card points from one side's count (in a claim only the
    counted side's, the other pile not being all the rest), filled in, not saved."""
    claim = request.POST.get("kind") == rules.DealKind.CLAIM
    count = CountForm(request.POST, side_names=sheet.side_names, claim=claim)
    data = request.POST.copy()
    if count.is_valid():
        for side, points in enumerate(count.cleaned_data["card_points"]):
            if points is not None:
                data[f"card_points_{side}"] = points
    filled = entry_form(sheet, data)
    filled.full_clean()
    filled._errors.clear()  # not a save: only the count's own errors are said
    notice = Notice(counted=count.is_valid())
    return answer(request, sheet, state, form=filled, count=count, notice=notice)


@table_page
@require_http_methods(["GET", "POST"])
def edit_deal(request: HttpRequest, token: str, match_id: int, number: int) -> HttpResponse:
    match = scorer_match(request, token, match_id)
    deal = Deal.objects.filter(match=match, number=number).first()
    if deal is None:  # deleted on another phone (a page open before, or its Save tapped)
        return done(request, reverse("match", args=[token, match.pk]) + f"?gone={number}")
    sheet, _ = sheet_and_state(token, match_id)
    # From a clash's notice, the address holds what this phone typed: filled in, not saved.
    stored = entry_data(deal.entry)
    typed = {name: request.GET[name][:12] for name in stored if name in request.GET}
    initial = {"number": deal.number, "version": deal.version, **stored, **typed}
    form = _edit_form(sheet, deal.number, posted(request), initial=initial)
    # The deal this page showed was deleted and another took its number: what was typed is
    # not about it, whatever its version.
    replaced = request.POST.get("deal", str(deal.pk)) != str(deal.pk)
    if request.method == "POST" and form.is_valid():
        form = _edited(request, form, deal, sheet, replaced=replaced)
        if form is None:
            url = reverse("match", args=[token, match.pk])
            return done(request, f"{url}?edited={deal.number}")
    fields = FIELDS[sheet.game]
    context = {"sheet": sheet, "deal": deal, "form": form, "closed": match.why_closed,
               "typed": bool(typed) and not form.is_bound, "fields": fields}  # fmt: skip
    return render(request, "matches/edit_deal.html", context)


def _edited(
    request: HttpRequest, form: AnyDealForm, deal: Deal, sheet: selectors.Sheet, *, replaced: bool
) -> AnyDealForm | None:
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


def _changed_meanwhile(form: AnyDealForm, deal: Deal, sheet: selectors.Sheet) -> AnyDealForm:
    """Another phone changed the deal first: said with what it gives now. What this phone
    typed stays, over the deal's current version, so saving again replaces that change
    knowingly (else every retry would be refused as stale again)."""
    now = Deal.objects.filter(pk=deal.pk).first()
    if now is None:  # deleted meanwhile (only the last deal can be)
        form.add_error(None, NO_SUCH_DEAL % {"number": deal.number})
        return form
    data = form.data.copy()
    data["version"] = now.version
    form = _edit_form(sheet, deal.number, data)
    form.is_valid()
    points = selectors.points_said(sheet.side_names, now.points)
    form.add_error(None, CHANGED_MEANWHILE % {"number": deal.number, "points": points})
    return form


def _edit_form(sheet: selectors.Sheet, number: int, data=None, **initial) -> AnyDealForm:
    """The form of deal `number` as it was entered: a perdere, with the players in it then."""
    return deal_form(sheet.game, data, edit=True, side_names=sheet.side_names,
                     out=sheet.out_before(number), sweep=sheet.reversed_sweep,
                     seat_names=sheet.seat_names, claims_allowed=sheet.claims_allowed,
                     declarations_allowed=sheet.declarations_allowed, **initial)  # fmt: skip


@table_page
@require_POST
def delete_deal(request: HttpRequest, token: str, match_id: int, number: int) -> HttpResponse:
    """Delete the last deal; Undo (of a deal just saved) also puts its points back in the
    form, to be corrected and saved again."""
    undo = request.POST.get("undo")  # the revision the phone was shown, the deal just saved
    shown = None if undo is None else plain_number(undo, otherwise=-1)
    match = scorer_match(request, token, match_id)
    try:
        logged = services.delete_last_deal(match=match, number=number, by=by(request),
                                           revision=shown)  # fmt: skip
    except services.ServiceError as refused:
        return answer(
            request, *sheet_and_state(token, match_id), notice=Notice(error=refused.message)
        )
    request.session[DELETED] = logged.pk  # this phone is not "another phone" to itself
    if shown is None or not request.htmx:
        return after_change(request, token, match_id, Notice(deleted=number), deleted=number)
    sheet, state = sheet_and_state(token, match_id)
    refill = entry_form(sheet, **entry_data(entry_from_document(logged.old, sheet.game)))
    return answer(request, sheet, state, notice=Notice(deleted=number, undone=True), form=refill)


@table_page
@require_POST
def restore_deal(request: HttpRequest, token: str, match_id: int, number: int) -> HttpResponse:
    notice = Notice(saved=number, restored=True)
    return act(request, token, match_id, services.restore_deal, notice, {"restored": number},
                number=number)  # fmt: skip
