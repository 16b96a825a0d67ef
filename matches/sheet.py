"""What the pages show, loaded in a fixed number of queries and scored by `matches.rules`."""

import hashlib
import secrets
from dataclasses import dataclass

from django.core.cache import cache
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Case, OuterRef, Prefetch, Q, Subquery, When
from django.http import HttpRequest, QueryDict
from django.middleware.csp import get_nonce
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils.translation import get_language

from matches import rules
from matches.forms import DealForm, SettingsForm, entry_data
from matches.models import DEAL_KINDS, Action, Deal, Match, Side, Table

_STATE_SQL = (
    f"SELECT m.revision, m.table_id, t.scorer_token FROM {Match._meta.db_table} m"
    f" JOIN {Table._meta.db_table} t ON t.id = m.table_id"
    " WHERE m.id = %s AND t.viewer_token = %s"
)


def is_htmx(request: HttpRequest) -> bool:
    """`request.htmx`, read from META, and the one way every view asks: django-htmx reads
    `request.headers`, a dict of every header built on first use, and every phone's poll
    asks this."""
    return request.META.get("HTTP_HX_REQUEST") == "true"


def _outcome_key(match: Match) -> str:
    return f"outcome:{match.pk}:{match.revision}"


def points_as_typed(card_points: int, declared_points: int) -> str:
    """A side's points in a deal as they are typed: card points + declarations."""
    return f"{card_points} + {declared_points}"


def kind_labels() -> dict[str, str]:
    """Each kind of deal's name, in the language of the request."""
    return {str(kind): label for kind, label in DEAL_KINDS}


class Notice(dict):
    """What the sheet says above the deals (saved, deleted, a conflict ...): None for what it
    does not say. The template asks for every kind of notice, and a missing key costs Django's
    templates an exception and a dir() of the dict each time, on every save and poll."""

    def __missing__(self, key: str) -> None:
        return None


@dataclass(frozen=True)
class Row:
    number: int
    dealer: str
    kind: str
    kind_label: str
    side: int | None
    card_points: tuple[int, int]
    declared_points: tuple[int, int]
    points: tuple[int, int]
    totals: tuple[int, int]

    @property
    def cells(self) -> list[dict]:
        """Each side's cell: its points, and beneath them how they came about. A sweeper's
        points are whatever takes it to the line, not its cards plus declarations: the cell
        says so (a sweeper already past the line scores 0, and its tag says why); the side
        named by a sweep or claim carries its tag."""
        sweep = rules.is_sweep(self.kind)
        return [
            {
                "side": i,
                "points": self.points[i],
                "to_line": sweep and self.side == i and self.points[i] > 0,
                "detail": (
                    points_as_typed(self.card_points[i], self.declared_points[i])
                    if (self.declared_points[i] or self.kind != rules.DealKind.NORMAL)
                    and not (sweep and self.side == i)
                    else ""
                ),
                "tag": self.kind_label if self.side == i else "",
            }
            for i in (0, 1)
        ]


def load_sides(match: Match) -> list[Side]:
    """Both sides with their players: the sheet names who deals."""
    return list(match.sides.select_related("first_player", "second_player"))


def load_match(token: str, match_id: int) -> tuple[Match, list[Side]] | None:
    """A match seen through its table's view link, with its table and both sides: one query."""
    sides = list(
        Side.objects.select_related("match__table", "first_player", "second_player")
        .filter(match_id=match_id, match__table__viewer_token=token)
        .order_by("position")
    )
    if not sides:
        return None
    match = sides[0].match
    sides[1].match = match
    return match, sides


# How long this process keeps what a read of a sheet loaded at a revision (the match and its
# sides, its last change): the phones at a table poll within seconds of one another.
REVISION_SECONDS = 300


def load_match_at(
    token: str, match_id: int, revision: int, scorer_token: str
) -> tuple[Match, list[Side]] | None:
    """load_match for a read of the sheet at `revision` and the table's scorer link, as
    Sheet.state found them: kept in this process under both. Every change to a match bumps
    its revision, and a new link changes the key, so what is kept is never out of date.
    Not for a write, which must see the links as they are now."""
    kept = cache.get(_revision_key("match", match_id, revision, token, scorer_token))
    if kept is not None:
        return kept
    found = load_match(token, match_id)
    if found is not None:
        match = found[0]
        key = _revision_key("match", match_id, match.revision, token, match.table.scorer_token)
        cache.set(key, found, REVISION_SECONDS)
    return found


def _revision_key(what: str, match_id: int, revision: int, *parts: str) -> str:
    return ":".join([what, str(match_id), str(revision), *parts])


def as_typed(entry: rules.DealEntry, side_names: tuple[str, str]) -> str:
    """A deal as a phone typed it: each side's card points + declarations, and the kind with
    the side it names when the deal was not played out. Not scored: the rules alone score.

    >>> as_typed(rules.DealEntry((5, 6), (3, 0)), ("Alice", "Bob"))
    'Alice 5 + 3, Bob 6 + 0'
    """
    typed = ", ".join(
        f"{name} {points_as_typed(entry.card_points[side], entry.declared_points[side])}"
        for side, name in enumerate(side_names)
    )
    if entry.side is None:
        return typed
    return f"{typed} ({kind_labels()[str(entry.kind)]}: {side_names[entry.side]})"


def seat_names(sides: list[Side]) -> list[str]:
    """Names in seat order: anticlockwise, partners opposite."""
    seats = 2 * len(sides[0].players)
    return [sides[side].players[index].name for side, index in map(rules.seat_player, range(seats))]


def chart(
    line: int,
    totals: list[tuple[int, int]],
    width: int = 320,
    height: int = 150,
    gutter: int = 28,
) -> dict:
    """Coordinates of both running totals toward the line, for a small server-drawn SVG, and
    each side's last total written at the end of its trace (in a gutter on the right).

    A tenth of headroom above the highest total: a trace at the very top would be cut by the
    edge of the drawing. The worked deal then 11 to 7, at line 21 (22 stays below the top):

    >>> drawn = chart(21, [(0, 0), (11, 3), (22, 10)], width=10, height=100, gutter=0)
    >>> drawn["side_0"], drawn["ends"]
    ('0.0,100.0 5.0,54.5 10.0,9.1', [(22, '9.1'), (10, '58.7')])

    Totals close together are written a line apart, not one over the other:

    >>> chart(21, [(0, 0), (21, 20)], height=100)["ends"]
    [(21, '7.0'), (20, '19.0')]
    """
    top = 1.1 * max([line, *[max(t) for t in totals]])
    steps = max(len(totals) - 1, 1)
    plot = width - gutter

    def y(value: int) -> float:
        return height - value * height / top

    def point(index: int, value: int) -> str:
        return f"{index * plot / steps:.1f},{y(value):.1f}"

    last = totals[-1]
    ends = _apart(y(last[0]), y(last[1]), gap=12, low=7, high=height - 7)
    return {
        "width": width,
        "height": height,
        "line_y": f"{y(line):.1f}",
        "side_0": " ".join(point(i, t[0]) for i, t in enumerate(totals)),
        "side_1": " ".join(point(i, t[1]) for i, t in enumerate(totals)),
        "label_x": plot + 3,
        "ends": [(last[0], f"{ends[0]:.1f}"), (last[1], f"{ends[1]:.1f}")],
    }


def _apart(a: float, b: float, *, gap: float, low: float, high: float) -> tuple[float, float]:
    """Two heights at least `gap` apart, moved as little as may be, both within low..high."""
    if abs(a - b) >= gap:
        return a, b
    upper = max(low, min((a + b - gap) / 2, high - gap))
    return (upper, upper + gap) if a <= b else (upper + gap, upper)


@dataclass
class Sheet:
    match: Match
    sides: list[Side]
    outcome: rules.Outcome
    can_score: bool

    @classmethod
    def load(cls, match: Match, *, can_score: bool, sides: list[Side] | None = None) -> "Sheet":
        """The sheet of a match at its current revision.

        The rules' outcome is kept in the cache under the revision, which every change bumps:
        several phones showing the same sheet score it once, and no server keeps a stale one.
        """
        sides = sides if sides is not None else load_sides(match)
        outcome = cache.get(_outcome_key(match))
        if outcome is None:
            return cls.scored(
                match,
                sides,
                match.score(
                    [deal.entry for deal in match.deals.order_by("number")],
                    (sides[0].name, sides[1].name),
                ),
                can_score,
            )
        return cls(match, sides, outcome, can_score)

    @classmethod
    def scored(
        cls, match: Match, sides: list[Side], outcome: rules.Outcome, can_score: bool
    ) -> "Sheet":
        """The sheet of an outcome just scored (by a write, say), kept for the next phone."""
        cache.set(_outcome_key(match), outcome, timeout=24 * 3600)
        return cls(match, sides, outcome, can_score)

    @staticmethod
    def state(token: str, match_id: int) -> tuple[int, int, str] | None:
        """(revision, table id, scorer token) of a match seen through its table's view link.

        Every phone polls this every few seconds, so it is kept a moment (STATE_SECONDS),
        and else it is one plain query: the ORM would spend more time building it than the
        database spends answering it. Kept with the view link it was found by: any other
        token asks the database (a new link, or a guess).
        """
        with connection.cursor() as cursor:
            cursor.execute(_STATE_SQL, [match_id, token])
            return cursor.fetchone()

    @staticmethod
    def etag_for(match_id: int, revision: int, request: HttpRequest, scorer_token: str) -> str:
        """Changes with the match's revision and with whatever else changes the answer.

        `scorer_token` is the table's scorer link for a phone that may score, else "": a new
        scorer link changes every scorer's ETag, so none is told "unchanged" once it may not.
        """
        parts = [
            match_id,
            revision,
            scorer_token,
            get_language(),
            int(is_htmx(request)),
            request.META.get("QUERY_STRING", ""),
        ]
        digest = hashlib.blake2s(repr(parts).encode(), digest_size=12).hexdigest()
        return f'"{digest}"'

    @classmethod
    def unchanged(
        cls, request: HttpRequest, match_id: int, revision: int, scorer_tokens: tuple[str, ...]
    ) -> str | None:
        """The ETag the phone sent (If-None-Match) if it is still the sheet's for one of the
        roles given by their `scorer_token` (see etag_for); None when the sheet has changed.
        Compressed answers carry the weak form of the ETag (W/"..."): both mean "unchanged".
        """
        # From META: request.headers would build a dict of every header, on every poll.
        sent = request.META.get("HTTP_IF_NONE_MATCH", "").removeprefix("W/")
        if sent and any(
            sent == cls.etag_for(match_id, revision, request, token) for token in scorer_tokens
        ):
            return sent
        return None

    def etag(self, request: HttpRequest) -> str:
        token = self.match.table.scorer_token if self.can_score else ""
        return self.etag_for(self.match.pk, self.match.revision, request, token)

    @property
    def side_names(self) -> tuple[str, str]:
        return (self.sides[0].name, self.sides[1].name)

    @property
    def side_counts(self) -> tuple[int, int]:
        """How many each side's name speaks of, for the verbs after it: a side named after
        its two players is plural ("Alice & Carla have won"), any other name singular ("Bar
        Sport has won", "Alice has won" in tressette in due)."""
        return tuple(2 if side.named_after_pair else 1 for side in self.sides)

    @property
    def open_for_deals(self) -> bool:
        return self.can_score and self.match.in_progress and not self.outcome.decided

    def rows(self) -> list[Row]:
        names = seat_names(self.sides)
        kinds = kind_labels()
        return [
            Row(
                number=scored.number,
                dealer=names[scored.dealer],
                kind=str(scored.entry.kind),
                kind_label=kinds[str(scored.entry.kind)],
                side=scored.entry.side,
                card_points=scored.entry.card_points,
                declared_points=scored.entry.declared_points,
                points=scored.points,
                totals=scored.totals,
            )
            for scored in self.outcome.deals
        ]

    def chart(self) -> dict:
        totals = [(0, 0), *[scored.totals for scored in self.outcome.deals]]
        return chart(self.match.line, totals)

    def deal_form(self, data=None, key: str | None = None) -> DealForm:
        return DealForm(
            data,
            initial={"number": self.outcome.next_number, "key": key or secrets.token_urlsafe(16)},
            side_names=self.side_names,
            claims_allowed=self.match.claims_allowed,
        )

    def context(
        self, *, form=None, notice=None, request=None, key: str | None = None, settings_form=None
    ) -> dict:
        names = seat_names(self.sides)
        if form is not None and form.errors and not self.open_for_deals:
            # Another phone decided or ended the match meanwhile: no form to show the refusal on.
            refused = " ".join(str(error) for errors in form.errors.values() for error in errors)
            notice = {**(notice or {}), "error": refused}
        if notice and "undone" in notice and self.open_for_deals:
            # A deal taken back (Undo): its points are in the form again, to be corrected.
            data = {**entry_data(notice["undone"]), "key": secrets.token_urlsafe(16)}
            form = self.deal_form({**data, "number": self.outcome.next_number})
        if form is not None and form.is_bound and "number" in form.data:
            # After an error (or a count of the pile) the phone keeps what it typed. The errors
            # are those found already: a count (no save) has none.
            data = form.data.copy()
            data["number"] = self.outcome.next_number
            errors = form.errors
            form = self.deal_form(data)
            form._errors = errors
        return {
            "table": self.match.table,
            "match": self.match,
            "sides": self.sides,
            "side_names": self.side_names,
            "side_counts": self.side_counts,
            "outcome": self.outcome,
            # Said in the scoreboard's section, which every poll redraws (see poll_context).
            "link_changed": bool(notice and notice.get("link_changed")),
            # Lazy: read only when the cached fragments showing them must be drawn again.
            "rows": self.rows,
            "last_number": len(self.outcome.deals),
            "can_score": self.can_score,
            "open_for_deals": self.open_for_deals,
            "form": form or self.deal_form(key=key),
            # Lazy: drawn only with the whole sheet, not with a save's or a poll's parts. One
            # sent back (refused) shows what was typed, open.
            "settings_form": self.settings_form if settings_form is None else settings_form,
            "settings_open": settings_form is not None,
            "notice": Notice(notice or {}),
            "next_dealer": names[self.outcome.next_dealer],
            **self._decided_by(),
            "chart": self.chart,
            "card_points_per_deal": rules.CARD_POINTS_PER_DEAL,
        }

    def settings_form(self) -> SettingsForm:
        return SettingsForm(
            initial={
                "line": self.match.line,
                "tie_rule": self.match.tie_rule,
                "claims_allowed": self.match.claims_allowed,
            }
        )

    def _decided_by(self) -> dict:
        """Who won; on a claim who claimed (the side the last deal names); on the line,
        whether both sides reached it and the higher total won."""
        outcome = self.outcome
        if outcome.winner is None:
            return {
                "winner_name": "",
                "winner_count": 1,
                "claimer_name": "",
                "claim_won": False,
                "both_at_line": False,
            }
        claimer = outcome.claimer
        return {
            "winner_name": self.side_names[outcome.winner],
            "winner_count": self.side_counts[outcome.winner],
            "claimer_name": "" if claimer is None else self.side_names[claimer],
            "claim_won": claimer == outcome.winner,
            "both_at_line": outcome.reason == rules.EndReason.LINE and not any(outcome.needs),
        }

    def poll_context(
        self, request: HttpRequest, *, link_changed: bool = False, deleted_here: int | None = None
    ) -> dict:
        """A poll refreshes the sheet; the entry form too, unless the phone is typing in it.
        `link_changed`: the phone joined through a scorer link that has since been replaced,
        so the form it was using goes even mid-typing, and the sheet says why.
        `deleted_here`: the log entry (its id) of the deal this phone deleted last."""
        context = self.context(notice={"link_changed": link_changed})
        typing = request.GET.get("typing") == "1"
        shown = request.GET.get("number", "")
        context["refresh_entry"] = not typing or link_changed
        context["deleted_elsewhere"] = self._deleted_elsewhere(deleted_here)
        context["stale_entry"] = (
            typing and shown != str(self.outcome.next_number) and not context["deleted_elsewhere"]
        )
        return context

    def _deleted_elsewhere(self, deleted_here: int | None) -> int | None:
        """The last deal, deleted on another phone, while it can still be put back (nothing
        was saved since): every other scorer is told, and may restore it. Else None."""
        number = self.outcome.next_number
        if not self.can_score or not self.match.in_progress:
            return None
        last = self._last_change()
        if last is None or last[1:] != (Action.DEAL_DELETED, number):
            return None
        return None if last[0] == deleted_here else number

    def _last_change(self) -> tuple[int, str, int | None] | None:
        """The match's last change (its id, action and deal number): the same at a revision,
        since every change bumps it, and so kept under it for the next phone's poll."""
        key = _revision_key("last-change", self.match.pk, self.match.revision)
        kept = cache.get(key)
        if kept is None:
            changes = self.match.changes.order_by("-id")
            kept = changes.values_list("pk", "action", "deal_number").first() or ()
            cache.set(key, kept, REVISION_SECONDS)
        return kept or None


def history(table: Table, params: QueryDict) -> dict:
    """The table's matches: in progress first, then finished or stopped, newest first; the
    matches of one player when asked."""
    players = table.players_by_name()
    under_way = Case(When(status=rules.Status.IN_PROGRESS, then=0), default=1)
    matches = Match.objects.filter(table=table).order_by(under_way, "-started_at", "-pk")
    player = next((p for p in players if str(p.pk) == params.get("player")), None)
    if player is not None:
        matches = matches.filter(
            Q(sides__first_player=player) | Q(sides__second_player=player)
        ).distinct()
    # Who claimed, where a claim ended the match: a wrong claim is won by the other side.
    claims = Deal.objects.filter(match=OuterRef("pk"), kind=rules.DealKind.CLAIM)
    matches = matches.annotate(claimed_by=Subquery(claims.values("side")[:1])).prefetch_related(
        Prefetch("sides", queryset=Side.objects.order_by("position"))
    )
    page = Paginator(matches, 20).get_page(params.get("page"))
    return {"players": players, "player": player, "page": page}


# What differs from one phone to the next in an otherwise identical sheet page. Stand-ins
# drawn at random as the process starts: no name typed at the table can be one of them, and
# none ever leaves the server. The pages are cached in this process (LocMemCache): a cache
# shared between processes would need stand-ins shared by them too.
_PER_REQUEST = {
    what: f"per-request-{what}-{secrets.token_hex(16)}" for what in ("csrf", "nonce", "key")
}


def sheet_page(
    request: HttpRequest, load, *, token: str, match_id: int, revision: int, can_score: bool
) -> str:
    """The whole sheet page, drawn once per revision and shared by every phone that opens it.

    It is drawn with stand-ins for what must differ per request (the CSRF token, the CSP nonce,
    the new deal's idempotency key), which are put in afterwards. `load()` gives the Sheet,
    read only when the page must be drawn.
    """
    key = f"sheet-page:{match_id}:{revision}:{token}:{get_language()}:{int(can_score)}"
    page = cache.get(key)
    if page is None:
        sheet = load()
        context = sheet.context(request=request, key=_PER_REQUEST["key"])
        context.update(csrf_token=_PER_REQUEST["csrf"], csp_nonce=_PER_REQUEST["nonce"])
        page = render_to_string("matches/match.html", context, request=request)
        cache.set(key, page, timeout=24 * 3600)
    return (
        page.replace(_PER_REQUEST["csrf"], get_token(request))
        .replace(_PER_REQUEST["nonce"], str(get_nonce(request)))
        .replace(_PER_REQUEST["key"], secrets.token_urlsafe(16))
    )
