"""Tables: the home page, a new table, joining as a scorer, a table's page and its links,
its players, and a new match."""

import functools
import secrets

import segno
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.functional import SimpleLazyObject
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from matches import rules, selectors, services
from matches.forms import (
    APerdereMatchForm,
    EveningForm,
    ImportForm,
    JoinForm,
    MergeForm,
    NewMatchForm,
    PlayerForm,
    TableForm,
    TerziglioMatchForm,
    rule_message,
)
from matches.limits import allow
from matches.models import EVENINGS, Table
from matches.views.access import (
    LABEL,
    by,
    can_score,
    done,
    etag_of,
    join,
    joined,
    joined_with,
    plain_number,
    posted,
    scorer_table,
    seen_table,
    table_page,
)

TOO_MANY_TABLES = _("Too many new tables from this address: try again in an hour.")


def too_many_tables(request: HttpRequest) -> bool:
    """New tables, created or imported, are rate-limited per client address."""
    window = settings.TABLES_WINDOW
    return not allow(request, "create-table", limit=settings.TABLES_PER_HOUR, window=window)


def home_page(request: HttpRequest, *, form=None, import_form=None, status=200) -> HttpResponse:
    """This phone's tables, a new table and an import: drawn again with a form sent back."""
    ids = [int(pk) for pk in joined(request)]
    mine = Table.objects.filter(pk__in=ids).order_by("name", "created_at")
    context = {
        "tables": [table for table in mine if can_score(request, table)],
        "form": form or TableForm(initial={"label": request.session.get(LABEL, "")}),
        "import_form": import_form or ImportForm(),
    }
    response = render(request, "matches/home.html", context, status=status)
    patch_cache_control(response, private=True, no_cache=True)  # this phone's own tables
    if status == 429:
        response["Retry-After"] = str(settings.TABLES_WINDOW)
    return response


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    return home_page(request)


@require_POST
def create_table(request: HttpRequest) -> HttpResponse:
    form = TableForm(request.POST)
    if not form.is_valid():  # a refused name makes no table: it does not count
        return home_page(request, form=form)
    if too_many_tables(request):
        form.add_error(None, TOO_MANY_TABLES)
        return home_page(request, form=form, status=429)
    table = services.create_table(name=form.cleaned_data["name"])
    join(request, table, form.cleaned_data["label"])
    return done(request, reverse("table", args=[table.viewer_token]) + "?created=1")


@table_page
@require_http_methods(["GET", "POST"])
def join_table(request: HttpRequest, scorer_token: str) -> HttpResponse:
    table = get_object_or_404(Table, scorer_token=scorer_token)
    form = JoinForm(posted(request), initial={"label": request.session.get(LABEL, "")})
    if request.method == "POST" and form.is_valid():
        join(request, table, form.cleaned_data["label"])
        # Straight to the match being played, when there is just one; else the table's page.
        playing = table.matches.filter(status=rules.Status.IN_PROGRESS)
        ids = list(playing.values_list("pk", flat=True)[:2])
        if len(ids) == 1:
            return done(request, reverse("match", args=[table.viewer_token, ids[0]]))
        return done(request, reverse("table", args=[table.viewer_token]))
    response = render(request, "matches/join.html", {"table": table, "form": form})
    patch_cache_control(response, no_store=True)  # its address is the scorer link
    return response


@functools.lru_cache(maxsize=512)
def _qr(url: str) -> str:
    return segno.make(url, error="m").svg_inline(scale=4, border=2, dark="#000", light="#fff")


# What was just done to a player, as the table's address says it (?added=4).
PLAYER_DONE = ("added", "renamed", "merged")


@table_page
@require_safe
def table(request: HttpRequest, token: str) -> HttpResponse:
    """The table's page; with HTMX and ?poll=1, its list of matches, polled every few seconds
    and answered 304 (Django's conditional GET) while the table's version is unchanged."""
    table = seen_table(token)
    page = str(plain_number(request.GET.get("page"), otherwise=1))
    list_etag = _list_etag(table, request.GET.get("player", ""), page)
    polled = request.htmx and "poll" in request.GET
    if polled and (unchanged := get_conditional_response(request, etag=list_etag)) is not None:
        unchanged["ETag"] = list_etag
        return unchanged
    scorer = can_score(request, table)
    # The players are read only if the page lists them, or the address names a player.
    players = SimpleLazyObject(table.players_by_name)
    asked = {what: value for what in ("player", *PLAYER_DONE) if (value := request.GET.get(what))}
    by_id = {str(p.pk): p for p in players} if asked else {}
    player = by_id.get(asked.get("player", ""))
    done_to = next(((what, by_id[asked[what]]) for what in PLAYER_DONE
                    if asked.get(what) in by_id), None)  # fmt: skip
    said = {
        "player_done": done_to,
        "rotated": request.GET.get("rotated"),
        "player_gone": request.GET.get("gone") == "player",
        "imported": request.GET.get("imported") == "1",
        "created": request.GET.get("created") == "1",
    }
    context = {
        **said,
        "table": table,
        "can_score": scorer,
        # A new link's idempotency key: a second tap is told of the first.
        "rotation_key": secrets.token_urlsafe(16),
        "share": SimpleLazyObject(functools.partial(_share, request, table, scorer)),
        "player_form": SimpleLazyObject(PlayerForm),
        "players": players,
        "player": player,
        "page_number": page,
        "list_etag": list_etag,
        "page": SimpleLazyObject(
            functools.partial(selectors.table_matches, table, player=player, page=page)
        ),
        "tonight": SimpleLazyObject(functools.partial(selectors.load_tonight, table)),
        "evening_form": SimpleLazyObject(functools.partial(_evening_form, table)),
        "evening_saved": request.GET.get("evening") == "saved",
    }
    if polled:
        response = render(request, "matches/table.html#matches", context)
        response["ETag"] = list_etag
        return response
    response = render(request, "matches/table.html", context)
    if scorer:  # the scorer link is on the page: the browser keeps no copy of it
        patch_cache_control(response, no_store=True)
    return response


def _evening_form(table: Table, data=None) -> EveningForm:
    return EveningForm(data, initial={"evening": table.evening, "stakes": table.stakes})


@table_page
@require_POST
def change_evening(request: HttpRequest, token: str) -> HttpResponse:
    """How tonight is counted, changed on the table page; a refusal said beside its field."""
    table = scorer_table(request, token)
    form = _evening_form(table, request.POST)
    if form.is_valid():
        services.change_evening(table=table, by=by(request), **form.cleaned_data)
        return done(request, reverse("table", args=[token]) + "?evening=saved#evening")
    context = {"table": table, "evening_form": form, "can_score": True}
    return render(request, "matches/evening.html", context)


@table_page
@require_POST
def new_evening(request: HttpRequest, token: str) -> HttpResponse:
    """A new evening begins now: tonight's tally starts again from the next match."""
    services.new_evening(table=scorer_table(request, token))
    return done(request, reverse("table", args=[token]) + "#matches")


def _list_etag(table: Table, player: str, page: str) -> str:
    """Changes with what the table's list of matches shows: the table's version (every match
    started, played, ended), the player and the page asked for, the language."""
    return etag_of(table.pk, table.version, player, page, get_language())


def _share(request: HttpRequest, table: Table, scorer: bool) -> dict:
    """The table's links, and their QR codes; the scorer link only for a scorer."""
    viewer_url = request.build_absolute_uri(reverse("table", args=[table.viewer_token]))
    share = {"viewer_url": viewer_url, "viewer_qr": _qr(viewer_url)}
    if scorer:
        scorer_url = request.build_absolute_uri(reverse("join", args=[table.scorer_token]))
        share.update(scorer_url=scorer_url, scorer_qr=_qr(scorer_url))
    return share


@table_page
@require_POST
def rotate_link(request: HttpRequest, token: str, which: str) -> HttpResponse:
    key = request.POST.get("key", "")
    table = _to_rotate(request, token, Table.rotation_of(which, key))
    try:
        table = services.rotate_link(table=table, which=which, key=key)
    except services.LinkChanged:  # by another phone, since this one was let in
        raise PermissionDenied from None
    if which == "scorer":
        join(request, table)  # the phone that rotated keeps scoring
    return done(request, reverse("table", args=[table.viewer_token]) + f"?rotated={which}#rotated")


def _to_rotate(request: HttpRequest, token: str, rotation: str) -> Table:
    """The table, for a phone that may change it, read in one query: by the link its page
    showed, or as this very request's key left it (a double tap whose first answer was never
    seen: the page's view link may be gone, the session may no longer open the scorer link).
    A tap that reads it just before the other tap saves its new link is answered the same:
    the service reads the table again once it is this tap's turn."""
    asked = Q(viewer_token=token)
    if rotation:
        asked |= Q(rotated_from=token, rotation=rotation)
    table = Table.objects.filter(asked).first()
    if table is None:
        raise Http404
    rotated = bool(rotation) and table.rotation == rotation
    if can_score(request, table) or (
        rotated and joined_with(request, table.pk, table.rotated_from)
    ):
        return table
    raise PermissionDenied


@table_page
@require_POST
def add_player(request: HttpRequest, token: str) -> HttpResponse:
    table = scorer_table(request, token)
    form = PlayerForm(request.POST)
    if form.is_valid():
        try:
            player = services.add_player(table=table, name=form.cleaned_data["name"])
        except services.ServiceError as refused:  # the name is taken, or the table full
            form.add_error("name", refused.message)
        else:
            return done(request, reverse("table", args=[token]) + f"?added={player.pk}#added")
    return render(request, "matches/player.html", {"table": table, "form": form})


def _player_gone(request: HttpRequest, token: str) -> HttpResponse:
    """The player is not (or no longer) at this table: merged away on another phone, most
    likely (a second tap on Merge, say). The table's list of players says so."""
    return done(request, reverse("table", args=[token]) + "?gone=player#player-gone")


@table_page
@require_http_methods(["GET", "POST"])
def rename_player(request: HttpRequest, token: str, player_id: int) -> HttpResponse:
    """A new name; the name of another player of the table offers to merge the two."""
    table = scorer_table(request, token)
    if (player := table.players.filter(pk=player_id).first()) is None:
        return _player_gone(request, token)
    form = PlayerForm(posted(request), initial={"name": player.name})
    same = refusal = None
    if request.method == "POST" and form.is_valid():
        try:
            services.rename_player(player=player, name=form.cleaned_data["name"], by=by(request))
            return done(request, reverse("table", args=[token]) + f"?renamed={player.pk}#renamed")
        except services.NameTaken as taken:
            # A merge is offered only where it could be done: not to two people of one match.
            # Offered, it is the answer (it takes focus), not an error of the name typed.
            same, refused = taken.player, services.merge_refusal(player=player, into=taken.player)
            if refused is not None:
                refusal = refused.message
                form.add_error("name", taken.message)
        except services.ServiceError as refused:
            form.add_error("name", refused.message)
    context = {"table": table, "form": form, "player": player, "same": same, "refusal": refusal}
    return render(request, "matches/player.html", context)


@table_page
@require_POST
def merge_player(request: HttpRequest, token: str, player_id: int) -> HttpResponse:
    """One person entered twice: this player's matches become the other's."""
    table = scorer_table(request, token)
    if (player := table.players.filter(pk=player_id).first()) is None:
        return _player_gone(request, token)
    merge = MergeForm(request.POST, player=player)
    if merge.is_valid():
        into = merge.cleaned_data["into"]
        try:
            services.merge_players(player=player, into=into, by=by(request))
            return done(request, reverse("table", args=[token]) + f"?merged={into.pk}#merged")
        except services.ServiceError as refused:
            merge.add_error(None, refused.message)
    context = {
        "table": table,
        "form": PlayerForm(initial={"name": player.name}),
        "player": player,
        "same": merge.cleaned_data.get("into"),
        "refusal": " ".join(merge.non_field_errors()) or None,
        "merge": merge,
    }
    return render(request, "matches/player.html", context)


@table_page
@require_http_methods(["GET", "POST"])
def new_match(request: HttpRequest, token: str) -> HttpResponse:
    table = scorer_table(request, token)
    initial = {"evening": table.evening, "stakes": table.stakes}
    form = NewMatchForm(posted(request), initial=initial, first_of_evening=table.first_of_evening())
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            match = services.start_match(
                table=table,
                players=data["players"],
                side_names=[data["side_name_0"], data["side_name_1"]],
                settings=form.settings,
                first_dealer=data["first_dealer"],
                by=by(request),
                **form.evening_chosen,
            )
        except services.ServiceError as refused:
            form.add_error(None, refused.message)
        except rules.RuleError as error:
            form.add_error(None, rule_message(error))
        else:
            return done(request, reverse("match", args=[token, match.pk]))
    said = str(dict(EVENINGS)[table.evening])
    if table.stakes:
        said = f"{said} · {gettext('the old stakes')}"
    context = {
        "table": table,
        "form": form,
        "players": table.players_by_name(),
        "evening_said": said,
    }
    return render(request, "matches/new_match.html", context)


@table_page
@require_http_methods(["GET", "POST"])
def new_terziglio(request: HttpRequest, token: str) -> HttpResponse:
    """A match of three, each for themselves: Terziglio."""
    intro = _(
        "Three players, each for themselves: each deal one of them plays alone against the other "
        "two, who pay the bid if they lose and are paid it if they win."
    )
    heading, elsewhere = _("New match of Terziglio"), _("Four players, or two? Tressette.")
    return _new_alone(request, token, TerziglioMatchForm, heading, intro, elsewhere)


@table_page
@require_http_methods(["GET", "POST"])
def new_a_perdere(request: HttpRequest, token: str) -> HttpResponse:
    """A match of three to five, each for themselves, the fewest points winning."""
    intro = _(
        "Three to five players, each for themselves, and the fewest points win: each deal every "
        "player is charged the card points they took."
    )
    heading, elsewhere = _("New match a perdere"), _("Playing in two sides? Tressette.")
    return _new_alone(request, token, APerdereMatchForm, heading, intro, elsewhere)


def _new_alone(
    request: HttpRequest,
    token: str,
    form_class: type[TerziglioMatchForm | APerdereMatchForm],
    heading: str,
    intro: str,
    elsewhere: str,
) -> HttpResponse:
    """A match each for themselves, of the form's game: its players, first dealer, terms;
    `elsewhere` links to a match of Tressette."""
    table = scorer_table(request, token)
    form = form_class(posted(request))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            match = services.start_match(table=table, players=data["players"],
                                         settings=data["terms"],
                                         first_dealer=data["first_dealer"],
                                         by=by(request))  # fmt: skip
        except services.ServiceError as refused:
            form.add_error(None, refused.message)
        except rules.RuleError as error:
            form.add_error(None, rule_message(error))
        else:
            return done(request, reverse("match", args=[token, match.pk]))
    context = {"table": table, "form": form, "players": table.players_by_name(),
               "heading": heading, "intro": intro, "elsewhere": elsewhere}  # fmt: skip
    return render(request, "matches/new_alone.html", context)
