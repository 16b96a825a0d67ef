"""A match's sheet, as every phone at the table reads it, and what a poll compares
(`State`). Scored by `matches.rules`; no form, no request, no cache inside."""

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache, cached_property
from itertools import pairwise
from typing import NamedTuple

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches import rules
from matches.models import (
    A_MONTE,
    A_PERDERE_ENDS,
    BIDS,
    DEAL_KINDS,
    END_REASONS,
    FRACTIONS,
    GAMES,
    PAYMENTS,
    TERZIGLIO_ENDS,
    TIE_RULES,
    Match,
    Side,
)
from matches.names import pair_name

# A long sheet draws its last deals and folds the earlier ones (sent only when asked for): a
# phone fetches and lays out as much at deal 100 as at deal 12.
SHOWN_DEALS = 10
FOLDED_LEAST = 3  # folding one or two deals would save nothing worth a tap


@dataclass(frozen=True)
class State:
    """What a poll needs to know whether anything changed: one query."""

    revision: int
    table_id: int
    scorer_token: str
    # The table's revision: tonight's tally on the sheet changes with it (another match
    # ending, the evening counted otherwise).
    table_revision: int = 0
    # When the table's evening began (None before its first match): tonight's matches are
    # those started since, read only if it has begun.
    evening_started_at: datetime | None = None


# What a State is read from, in its order.
_STATE_FIELDS = (
    "revision",
    "table_id",
    "table__scorer_token",
    "table__revision",
    "table__evening_started_at",
)


def match_state(token: str, match_id: int) -> State | None:
    """The revision of a match seen through its table's view link, and the table's scorer
    link (a new one changes what a scorer is shown): one query."""
    seen = Match.objects.filter(pk=match_id, table__viewer_token=token)
    found = seen.values_list(*_STATE_FIELDS).first()
    return State(*found) if found is not None else None


def match_states(match_ids: list[int]) -> dict[int, tuple[str, State]]:
    """The state of each of these matches, with its table's view link, in one query: those
    of every match a process's phones poll."""
    if not match_ids:
        return {}
    rows = Match.objects.filter(pk__in=match_ids).values_list(
        "pk", "table__viewer_token", *_STATE_FIELDS
    )
    return {pk: (viewer, State(*state)) for pk, viewer, *state in rows}


class Seated(NamedTuple):
    """A side as a sheet names it: its name and its players' names, in seat order."""

    name: str
    players: tuple[str, ...]

    @property
    def pair(self) -> bool:
        """Named after its two players: shown a player a line, so that a long first name
        cannot hide the partner's."""
        return len(self.players) == 2 and self.name == pair_name(self.players)

    @property
    def named_apart(self) -> bool:
        """A name of its own, not its players': the scoreboard says who they are too."""
        return self.name != pair_name(self.players)

    @property
    def speaks_of(self) -> int:
        """How many the name speaks of, for the verb after it: "Alice & Carla have won",
        "Bar Sport has won"."""
        return 2 if self.pair else 1


@dataclass(frozen=True)
class SideView:
    position: int
    name: str
    players: tuple[str, ...]
    total: int
    needs: int
    won: bool  # its deals decide the match for it (ended or not)
    out: bool = False  # a perdere: a player who reached the line

    @property
    def seated(self) -> Seated:
        return Seated(self.name, self.players)

    @property
    def pair(self) -> bool:
        return self.seated.pair

    @property
    def named_apart(self) -> bool:
        return self.seated.named_apart

    @property
    def speaks_of(self) -> int:
        return self.seated.speaks_of


@dataclass(frozen=True)
class Cell:
    """A side's points in one deal, and beneath them how they came about."""

    points: int
    detail: str  # "8 + 3": card points + declarations, where that is not plain
    to_line: bool  # a sweeper's points take it to the line, whatever it counted
    tag: str  # the kind of deal, on the side that swept or claimed
    player: str = ""  # beside a cappottone's or stramazzone's tag, who swept alone


@dataclass(frozen=True)
class Row:
    number: int
    dealer: str
    cells: tuple[Cell, Cell]
    totals: tuple[int, int]


@dataclass(frozen=True)
class SoloRow:
    """A Terziglio deal: who played alone, what they bid and took, and what it paid."""

    number: int
    dealer: str
    seat: int | None  # the soloist's; None for a deal a monte
    soloist: str
    bid: str  # in words: "solo", "a monte"
    card_points: int | None  # the soloist's, the last trick included
    others_card_points: int | None  # the other two's, the rest of the 11
    won: bool | None  # the soloist won (6 or more); None a monte
    changes: tuple[int, ...]  # what it moved each player's balance by
    totals: tuple[int, ...]  # the balances after it

    @property
    def cells(self) -> tuple[tuple[int, int, bool], ...]:
        """Each player's balance after the deal, what it moved by, and whether they played
        alone."""
        return tuple(
            (total, change, seat == self.seat)
            for seat, (total, change) in enumerate(zip(self.totals, self.changes, strict=True))
        )


class Charged(NamedTuple):
    """A player's part in a deal a perdere: their total after it, what it charged them,
    whether they took every point (the reversed sweep), whether it put them out, or they
    were out already."""

    total: int
    points: int
    swept: bool
    went_out: bool
    out: bool


@dataclass(frozen=True)
class APerdereRow:
    """A deal a perdere: what it charged each player, and their totals after it."""

    number: int
    dealer: str
    cells: tuple[Charged, ...]


@dataclass(frozen=True)
class Chart:
    """Both running totals toward the line, as a small SVG drawn by the server."""

    width: int
    height: int
    line_y: str
    side_0: str  # SVG path data
    side_1: str
    label_x: float
    ends: tuple[tuple[int, str], tuple[int, str]]


@dataclass(frozen=True)
class Sheet:
    """A match as every phone sees it at one revision, whoever looks."""

    match_id: int
    revision: int
    table_name: str
    viewer_token: str
    line: int
    tie_rule: str  # in words
    claims_allowed: bool
    declarations_allowed: bool
    settings: rules.MatchSettings
    started_at: datetime
    status: rules.Status
    sides: tuple[SideView, ...]  # at Terziglio and a perdere, a player each
    rows: tuple[Row | SoloRow | APerdereRow, ...]
    chart: Chart | None
    next_number: int
    dealers: tuple[str, ...]  # the seats in the order they deal
    dealer_index: int  # the seat that deals next
    decided: bool
    another_deal: bool
    verdict: SafeString  # who wins, once the rules decide it
    claim: str  # ended on a claim: who claimed, rightly or wrongly
    next_match_id: int | None
    last_change: tuple[int, str, int | None] | None  # id, action and deal number
    last_by: str  # the name of the phone that made it ("Marco's phone"), or ""
    game: rules.Game
    terms: str  # Terziglio's and a perdere's, in words: how a deal pays, when the match ends
    entries: tuple[rules.DealEntry, ...] = field(repr=False)

    @property
    def terziglio(self) -> bool:
        return self.game is rules.Game.TERZIGLIO

    @property
    def a_perdere(self) -> bool:
        return self.game is rules.Game.A_PERDERE

    @property
    def alone(self) -> bool:
        """Each for themselves (Terziglio, a perdere): a player a side."""
        return self.game is not rules.Game.TRESSETTE

    @property
    def stopped_said(self) -> str:
        """A match each for themselves stopped: what stands."""
        if self.a_perdere:
            return _("Stopped, undecided: the totals stand as they are.")
        return _("Stopped, undecided: the balances stand as they are.")

    @property
    def level_said(self) -> str:
        """Those a match each for themselves is decided between are level: another deal."""
        if self.a_perdere:
            return _("The lowest totals are level: play another deal.")
        return _("The highest balances are level: play another deal.")

    @property
    def game_label(self) -> str:
        return str(dict(GAMES)[self.game])

    @property
    def out(self) -> tuple[bool, ...]:
        """Whether each player is out (a perdere: they reached the line)."""
        return tuple(side.out for side in self.sides)

    def out_before(self, number: int) -> tuple[bool, ...]:
        """Whether each player was out before deal `number` (a perdere): what its form asks."""
        if not self.a_perdere or not 0 < number <= len(self.rows):
            return self.out
        return tuple(cell.out for cell in self.rows[number - 1].cells)

    @property
    def went_out_last(self) -> bool:
        """The last deal put a player out (a perdere): the entry form loses their field."""
        last = self.rows[-1] if self.a_perdere and self.rows else None
        return last is not None and any(cell.went_out for cell in last.cells)

    @property
    def reversed_sweep(self) -> bool:
        return self.a_perdere and self.settings.reversed_sweep

    @property
    def to_a_line(self) -> bool:
        """Played to a line (Tressette and a perdere always; Terziglio when its terms say)."""
        return not self.terziglio or self.settings.end is rules.TerziglioEnd.LINE

    @property
    def in_progress(self) -> bool:
        return self.status is rules.Status.IN_PROGRESS

    @property
    def finished(self) -> bool:
        return self.status is rules.Status.FINISHED

    @property
    def abandoned(self) -> bool:
        return self.status is rules.Status.ABANDONED

    @property
    def open_for_deals(self) -> bool:
        return self.in_progress and not self.decided

    @property
    def side_names(self) -> tuple[str, ...]:
        return tuple(side.name for side in self.sides)

    @property
    def seat_names(self) -> tuple[str, ...]:
        """The players in seat order: Alice, Beppe, Carla, Dino (a player is named by their
        seat, as in a cappottone)."""
        return self.dealers

    @property
    def next_dealer(self) -> str:
        return self.dealers[self.dealer_index]

    @property
    def folded(self) -> int:
        """How many of the first deals the sheet folds away (0: none)."""
        earlier = len(self.rows) - SHOWN_DEALS
        return earlier if earlier >= FOLDED_LEAST else 0

    @property
    def latest_rows(self) -> tuple[Row, ...]:
        """The deals a long sheet draws until its first ones are asked for."""
        return self.rows[self.folded :]

    @property
    def last_number(self) -> int:
        return len(self.rows)

    @property
    def sweep_totals(self) -> str:
        """Each side's total once it sweeps the next deal, as the rules score a sweep: the
        phone shows it before the deal is saved (it derives no rule of its own)."""
        return " ".join(str(side.total + rules.sweep_points(self.line, side.total))
                        for side in self.sides)  # fmt: skip

    @property
    def other_card_points(self) -> str:
        """For each card points typed, 0 to 11, the other side's in a deal played out: the
        phone fills them in from this (it derives no rule of its own)."""
        return " ".join(map(str, _OTHER_CARD_POINTS))

    @cached_property
    def offline(self) -> SafeString:
        """Where this sheet stands, for a phone that enters the next deals without a
        connection (JSON): offline.js draws them from this and the rules' data and words
        (views/site.offline_words); the server checks each deal when it arrives."""
        state = {
            "number": self.next_number,
            "dealers": self.dealers,
            "dealer": self.dealer_index,
            "totals": [side.total for side in self.sides],
            "sides": self.side_names,
            "another": self.another_deal,
        }
        if self.a_perdere:
            terms = self.settings
            state |= {
                "game": str(self.game),
                "line": terms.line,
                "lowest": terms.end is rules.APerdereEnd.LOWEST,
                "sweep": terms.reversed_sweep,
                "out": self.out,
                # Every total a deal can have, by how many players are still in (offline.js:
                # readEach derives no rule of its own).
                "possible": {
                    str(players): sorted(rules.a_perdere_totals(players, terms.fractions))
                    for players in range(2, len(self.sides) + 1)
                },
            }
        elif self.terziglio:  # offline.js reads a sheet that names no game as Tressette's
            terms = self.settings
            state |= {
                "game": str(self.game),
                # What decides a match once a deal is added (offline.js: settleSolo).
                "line": terms.line if terms.end is rules.TerziglioEnd.LINE else None,
                "deals": terms.deals if terms.end is rules.TerziglioEnd.DEALS else None,
                "pays": _pays(terms.payment),
            }
        else:
            state |= {
                "players": len(self.sides[0].players),
                # Each seat's side: a cappottone's player names their side (offline.js:
                # sweeper).
                "seat_sides": [rules.seat_player(seat)[0] for seat in range(len(self.dealers))],
                # What decides a match once a deal is added (offline.js: settle).
                "line": self.line,
                "tie": self.settings.tie_rule.value,
            }
        shown = json.dumps(state, ensure_ascii=False, separators=(",", ":"))
        return mark_safe(shown.translate(_AS_TEXT))


# JSON as an element's text: no character can start markup.
_AS_TEXT = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}
_OTHER_CARD_POINTS = [
    rules.complete_card_points(typed, None)[1] for typed in range(rules.CARD_POINTS_PER_DEAL + 1)
]


@cache
def _pays(payment: rules.Payment) -> dict[str, list[tuple[int, int]]]:
    """What a Terziglio deal moves the soloist's and each other player's balance by, for
    each bid and the soloist's card points 0 to 11, as the rules score it (offline.js:
    readSolo derives no rule of its own)."""
    return {
        str(bid): [
            rules.terziglio_changes(rules.TerziglioEntry(0, bid, cards), payment)[:2]
            for cards in range(rules.CARD_POINTS_PER_DEAL + 1)
        ]
        for bid in rules.Bid
    }


def match_and_sides(token: str, match_id: int) -> tuple[Match, list[Side]] | None:
    """A match seen through its table's view link, with its table and its two sides with
    their players, in seat order: one query."""
    sides = list(
        Side.objects.select_related("match__table", "first_player", "second_player")
        .filter(match_id=match_id, match__table__viewer_token=token)
        .order_by("position")
    )
    if not sides:
        return None
    for side in sides[1:]:
        side.match = sides[0].match
    return sides[0].match, sides


def load_sheet(token: str, match_id: int) -> Sheet | None:
    """The sheet of a match seen through its table's view link: three queries (the match
    with its table and sides, its deals, its last change and who made it)."""
    found = match_and_sides(token, match_id)
    if found is None:
        return None
    match, sides = found
    entries = [deal.entry for deal in match.deals.order_by("number")]
    outcome = match.score(entries, tuple(side.name for side in sides))
    last = match.changes.order_by("-id").values_list("pk", "action", "deal_number", "by").first()
    seated = [Seated(side.name, tuple(player.name for player in side.players)) for side in sides]
    return _sheet_of(match, match.table.name, token, seated, outcome, last)


def _sheet_of(
    match: Match,
    table_name: str,
    viewer_token: str,
    sides: list[Seated],
    outcome: rules.Outcome,
    last_change: tuple[int, str, int | None, str] | None,
) -> Sheet:
    """The sheet of a match, its table, its sides and the outcome the rules scored."""
    game = rules.Game(match.game)
    alone = game is not rules.Game.TRESSETTE  # each for themselves: a seat is a side
    seats = (
        [side.name for side in sides]
        if alone
        else rules.seat_order([side.players for side in sides])
    )
    out_after = outcome.standing.out_after if game is rules.Game.A_PERDERE else (None,) * len(sides)
    return Sheet(
        match_id=match.pk,
        revision=match.revision,
        table_name=table_name,
        viewer_token=viewer_token,
        line=match.line,
        tie_rule=str(dict(TIE_RULES)[match.tie_rule]),
        claims_allowed=match.claims_allowed,
        declarations_allowed=match.declarations_allowed,
        settings=match.settings,
        started_at=match.started_at,
        status=rules.Status(match.status),
        sides=tuple(
            SideView(
                position=i,
                name=side.name,
                players=side.players,
                total=outcome.totals[i],
                needs=outcome.needs[i],
                won=outcome.winner == i,
                out=out_after[i] is not None,
            )
            for i, side in enumerate(sides)
        ),
        rows=_rows(game, outcome, seats),
        chart=_chart(match.line, outcome) if outcome.deals and not alone else None,
        next_number=outcome.next_number,
        dealers=tuple(seats),
        dealer_index=outcome.next_dealer,
        decided=outcome.decided,
        another_deal=outcome.another_deal,
        verdict=_verdict(outcome, sides, seats, ended=match.status == rules.Status.FINISHED),
        claim=claim_said(outcome, sides),
        next_match_id=match.next_match_id,
        last_change=last_change[:3] if last_change is not None else None,
        last_by=last_change[3] if last_change is not None else "",
        game=game,
        terms=terms_said(match.settings.as_dict()) if alone else "",
        entries=tuple(deal.entry for deal in outcome.deals),
    )


def _rows(game: rules.Game, outcome: rules.Outcome, seats: Sequence[str]) -> tuple:
    if game is rules.Game.A_PERDERE:
        out_after = outcome.standing.out_after
        return tuple(_a_perdere_row(deal, seats, out_after) for deal in outcome.deals)
    row = _solo_row if game is rules.Game.TERZIGLIO else _row
    return tuple(row(deal, seats) for deal in outcome.deals)


def _a_perdere_row(
    deal: rules.APerdereDeal, seats: Sequence[str], out_after: Sequence[int | None]
) -> APerdereRow:
    cells = tuple(
        Charged(
            total,
            points,
            seat == deal.entry.sweeper,
            seat in deal.out,
            out is not None and out < deal.number,
        )
        for seat, (total, points, out) in enumerate(
            zip(deal.totals, deal.points, out_after, strict=True)
        )
    )
    return APerdereRow(deal.number, seats[deal.dealer], cells)


def label(choices: Sequence[tuple], value: object) -> str:
    """A stored value in words, by its choices ("solo", "a monte"); "?" for one they do not
    hold (an imported log may hold anything)."""
    return str(dict(choices).get(value, "?")) if isinstance(value, str) else "?"


def terms_said(terms: dict) -> str:
    """Terziglio's and a perdere's terms, as their `as_dict` and the log keep them, in words:
    how a deal pays, when the match ends ("The difference in card points, times the bid ·
    When a balance reaches the line · line 21")."""
    if "fractions" in terms:  # a perdere's
        sweep = terms.get("reversed_sweep")
        said = [_("line %(line)s") % {"line": terms.get("line")},
                label(A_PERDERE_ENDS, terms.get("end")), label(FRACTIONS, terms.get("fractions")),
                _("reversed sweep") if sweep else _("no reversed sweep")]  # fmt: skip
        return " · ".join(said)
    pays, end = label(PAYMENTS, terms.get("payment")), terms.get("end")
    if end == rules.TerziglioEnd.DEALS:
        deals = terms.get("deals")
        ends = ngettext("after %(n)s deal", "after %(n)s deals", deals if type(deals) is int else 2)
        return f"{pays} · {ends % {'n': deals}}"
    if end != rules.TerziglioEnd.LINE:
        return f"{pays} · {label(TERZIGLIO_ENDS, end)}"
    line = _("line %(line)s") % {"line": terms.get("line")}
    return f"{pays} · {label(TERZIGLIO_ENDS, end)} · {line}"


def totals_said(totals: object) -> str:
    """Each side's total as the sheet writes them: "21–14", with an en dash; each player's
    at Terziglio and a perdere "6 · -3 · -3". Odd values (an imported log's) as "?"."""
    if not isinstance(totals, list | tuple) or not 2 <= len(totals) <= 5:
        return "?\u2013?"
    return ("\u2013" if len(totals) == 2 else " · ").join(map(str, totals))


def _solo_row(deal: rules.TerziglioDeal, seats: Sequence[str]) -> SoloRow:
    entry = deal.entry
    bid = label(BIDS, A_MONTE if entry.a_monte else str(entry.bid))
    soloist = seats[entry.soloist] if entry.soloist is not None else ""
    return SoloRow(deal.number, seats[deal.dealer], entry.soloist, soloist, bid,
                   entry.card_points, entry.others_card_points, deal.soloist_won, deal.changes,
                   deal.balances)  # fmt: skip


def kind_labels() -> dict[str, str]:
    """Each kind of deal by its value, in the active language."""
    return {str(kind): str(label) for kind, label in DEAL_KINDS}


def points_as_typed(card_points: int, declared_points: int) -> str:
    """A side's points in a deal as they are typed: card points + declarations."""
    return f"{card_points} + {declared_points}"


def _row(deal: rules.ScoredDeal, seats: list[str]) -> Row:
    entry, sweep = deal.entry, rules.is_sweep(deal.entry.kind)
    label = kind_labels()[entry.kind]
    player = seats[entry.seat] if entry.seat is not None and entry.seat < len(seats) else ""

    def cell(i: int) -> Cell:
        swept = sweep and entry.side == i
        # Card points + declarations where there are declarations: "0 + 0" says nothing.
        shown = entry.declared_points[i] and not swept
        return Cell(
            points=deal.points[i],
            detail=points_as_typed(entry.card_points[i], entry.declared_points[i]) if shown else "",
            to_line=swept and deal.points[i] > 0,  # a sweeper past the line already scores 0
            tag=label if entry.side == i else "",
            player=player if entry.side == i else "",
        )

    return Row(deal.number, seats[deal.dealer], (cell(0), cell(1)), deal.totals)


def _verdict(
    outcome: rules.Outcome, sides: list[Seated], seats: Sequence[str], *, ended: bool
) -> SafeString:
    """Who wins, in a sentence whose verb agrees with the side's name; "" until decided."""
    if outcome.winner is None:
        return SafeString("")
    winner = sides[outcome.winner]
    count = winner.speaks_of
    if ended:
        reason = ended_reason(outcome, seats)
        said = ngettext(
            "<strong>%(side)s</strong> won the match (%(reason)s).",
            "<strong>%(side)s</strong> won the match (%(reason)s).",
            count,
        )
        return _safe(said, side=winner.name, reason=reason)
    claimer = sides[outcome.claimer].name if outcome.claimer is not None else ""
    player = _player(outcome, seats)
    return _safe(_decided(outcome, count), side=winner.name, claimer=claimer, player=player)


def _player(outcome: rules.Outcome, seats: Sequence[str]) -> str:
    """The player whose sweep alone decided the match, by name; else "" (a seat out of reach
    of `seats`, where a page has no names, as "")."""
    seat = outcome.swept_alone
    return seats[seat] if seat is not None and seat < len(seats) else ""


def ended_reason(outcome: rules.Outcome, seats: Sequence[str] = ()) -> str:
    """How a decided match was won, in words: "cappotto", "both past the line, the higher
    total", "cappottone by Alice" (`seats`: the players' names in seat order)..."""
    if outcome.reason is rules.EndReason.LINE and outcome.both_at_line:
        return _("both past the line, the higher total")
    if player := _player(outcome, seats):
        by_one = {
            rules.EndReason.CAPPOTTONE: _("cappottone by %(player)s"),
            rules.EndReason.STRAMAZZONE: _("stramazzone by %(player)s"),
        }
        return by_one[outcome.reason] % {"player": player}
    return str(dict(END_REASONS)[outcome.reason])


def _safe(template: str, **params: str) -> SafeString:
    """A translated sentence with markup of its own, and the names put in it escaped."""
    return mark_safe(template % {name: escape(value) for name, value in params.items()})


def _decided_alone(reason: rules.EndReason | None) -> str:
    """How a match each for themselves is decided but at the line, by one player: "" for
    the other reasons."""
    if reason is rules.EndReason.LAST_IN:
        return _("Only <strong>%(side)s</strong> is still in, and wins the match.")
    if reason is rules.EndReason.LOWEST:
        return _(
            "The line is reached: <strong>%(side)s</strong> has the lowest total and wins the "
            "match."
        )
    if reason is rules.EndReason.DEALS:
        return _(
            "The agreed deals are played: <strong>%(side)s</strong> has the highest balance and "
            "wins the match."
        )
    return ""


def _decided(outcome: rules.Outcome, count: int) -> str:
    reason = outcome.reason
    if alone := _decided_alone(reason):
        return alone
    if reason is rules.EndReason.LINE and outcome.both_at_line:
        return ngettext(
            "Both sides have reached the line: <strong>%(side)s</strong> has the higher total "
            "and wins the match.",
            "Both sides have reached the line: <strong>%(side)s</strong> have the higher total "
            "and win the match.",
            count,
        )
    if reason is rules.EndReason.LINE:
        return ngettext(
            "<strong>%(side)s</strong> has reached the line and wins the match.",
            "<strong>%(side)s</strong> have reached the line and win the match.",
            count,
        )
    if reason is rules.EndReason.CAPPOTTO:
        return ngettext(
            "<strong>%(side)s</strong> wins the match with a cappotto.",
            "<strong>%(side)s</strong> win the match with a cappotto.",
            count,
        )
    if reason is rules.EndReason.STRAMAZZO:
        return ngettext(
            "<strong>%(side)s</strong> wins the match with a stramazzo.",
            "<strong>%(side)s</strong> win the match with a stramazzo.",
            count,
        )
    if reason is rules.EndReason.CAPPOTTONE:
        return ngettext(
            "<strong>%(side)s</strong> wins the match: %(player)s took every trick alone, a "
            "cappottone.",
            "<strong>%(side)s</strong> win the match: %(player)s took every trick alone, a "
            "cappottone.",
            count,
        )
    if reason is rules.EndReason.STRAMAZZONE:
        return ngettext(
            "<strong>%(side)s</strong> wins the match: %(player)s took every card point alone, "
            "a stramazzone.",
            "<strong>%(side)s</strong> win the match: %(player)s took every card point alone, "
            "a stramazzone.",
            count,
        )
    if outcome.claimer == outcome.winner:
        return ngettext(
            "<strong>%(side)s</strong> claimed the line rightly and wins the match.",
            "<strong>%(side)s</strong> claimed the line rightly and win the match.",
            count,
        )
    return ngettext(
        "%(claimer)s claimed the line wrongly: <strong>%(side)s</strong> wins the match.",
        "%(claimer)s claimed the line wrongly: <strong>%(side)s</strong> win the match.",
        count,
    )


def claim_said(outcome: rules.Outcome, sides: list[Seated]) -> str:
    """Who claimed, rightly or wrongly, where a claim decided the match; else ""."""
    if outcome.claimer is None:
        return ""
    claimer = {"claimer": sides[outcome.claimer].name}
    if outcome.claimer == outcome.winner:
        return _("%(claimer)s claimed the line rightly.") % claimer
    return _("%(claimer)s claimed the line wrongly.") % claimer


def _chart(line: int, outcome: rules.Outcome) -> Chart:
    totals = [(0, 0), *(deal.totals for deal in outcome.deals)]
    return chart(line, totals)


def chart(
    line: int, totals: list[tuple[int, int]], width: int = 320, height: int = 150, gutter: int = 28
) -> Chart:
    """Both running totals toward the line, and each side's last total written at the end of
    its trace (in a gutter on the right). A tenth of headroom above the highest total: a
    trace at the very top would be cut by the edge. In whole units (a third of a pixel at
    most on a phone), which keep a long sheet's page light, each trace an SVG path from one
    deal to the next (steps alike, which the page's compression takes for one). The worked
    deal then 11 to 7, line 21:

    >>> drawn = chart(21, [(0, 0), (11, 3), (22, 10)], width=10, height=100, gutter=0)
    >>> drawn.side_0, drawn.ends
    ('M0 100l5-45 5-46', ((22, '9'), (10, '59')))
    >>> chart(21, [(0, 0), (0, 0), (5, 5)], width=10, height=100, gutter=0).side_1
    'M0 100l5 0 5-22'

    Totals close together are written a line and a third apart, not one over the other:

    >>> chart(21, [(0, 0), (21, 20)], height=100).ends
    ((21, '7'), (20, '23'))
    """
    top = 1.1 * max([line, *[max(t) for t in totals]])
    steps = max(len(totals) - 1, 1)
    plot = width - gutter

    def y(value: int) -> float:
        return height - value * height / top

    def trace(side: int) -> str:
        points = [(round(i * plot / steps), round(y(t[side]))) for i, t in enumerate(totals)]
        moves = " ".join(f"{x2 - x1} {y2 - y1}" for (x1, y1), (x2, y2) in pairwise(points))
        return f"M{points[0][0]} {points[0][1]}l{moves}".replace(" -", "-")

    last = totals[-1]
    ends = _apart(y(last[0]), y(last[1]), gap=16, low=7, high=height - 7)
    return Chart(
        width=width,
        height=height,
        line_y=f"{y(line):.0f}",
        side_0=trace(0),
        side_1=trace(1),
        label_x=plot + 3,
        ends=((last[0], f"{ends[0]:.0f}"), (last[1], f"{ends[1]:.0f}")),
    )


def _apart(a: float, b: float, *, gap: float, low: float, high: float) -> tuple[float, float]:
    """Two heights at least `gap` apart, moved as little as may be, both within low..high."""
    if abs(a - b) >= gap:
        return a, b
    upper = max(low, min((a + b - gap) / 2, high - gap))
    return (upper, upper + gap) if a <= b else (upper + gap, upper)


def as_typed(
    entry: rules.DealEntry, side_names: tuple[str, str], seat_names: Sequence[str] = ()
) -> str:
    """A deal as a phone typed it: each side's card points + declarations, and the kind with
    the side it names when it was not played out (the player, in a sweep by one). Not
    scored: the rules alone score.

    >>> as_typed(rules.DealEntry((5, 6), (3, 0)), ("Alice", "Bob"))
    'Alice 5 + 3, Bob 6 + 0'
    >>> entry = rules.DealEntry((0, 11), (0, 0), rules.DealKind.CAPPOTTONE, seat=3)
    >>> as_typed(entry, ("Alice & Carla", "Beppe & Dino"), ("Alice", "Beppe", "Carla", "Dino"))
    'Alice & Carla 0 + 0, Beppe & Dino 11 + 0 (Cappottone · Dino)'
    """
    if isinstance(entry, rules.TerziglioEntry):
        return solo_typed(entry, side_names)
    if isinstance(entry, rules.APerdereEntry):
        return each_typed(entry, side_names)
    typed = ", ".join(
        f"{name} {points_as_typed(entry.card_points[side], entry.declared_points[side])}"
        for side, name in enumerate(side_names)
    )
    if entry.side is None:
        return typed
    named = side_names[entry.side]
    if entry.seat is not None and entry.seat < len(seat_names):
        named = seat_names[entry.seat]
    return f"{typed} ({kind_labels()[entry.kind]} · {named})"


def solo_typed(entry: rules.TerziglioEntry, player_names: Sequence[str]) -> str:
    """A Terziglio deal as a phone typed it: who played alone, the bid, the card points.

    >>> solo_typed(rules.TerziglioEntry(1, rules.Bid.SOLO, 5), ("Anna", "Bruno", "Carla"))
    'Bruno · solo · 5'
    >>> solo_typed(rules.TerziglioEntry(), ("Anna", "Bruno", "Carla"))
    'a monte'
    """
    if entry.a_monte:
        return label(BIDS, A_MONTE)
    named = player_names[entry.soloist] if entry.soloist < len(player_names) else "?"
    return f"{named} · {label(BIDS, str(entry.bid))} · {entry.card_points}"


def each_typed(entry: rules.APerdereEntry, player_names: Sequence[str]) -> str:
    """A deal a perdere as a phone typed it: each player's card points, or who took them all.

    >>> each_typed(rules.APerdereEntry((5, 3, 2, 0)), ("Anna", "Bruno", "Carla", "Dino"))
    'Anna 5, Bruno 3, Carla 2, Dino 0'
    >>> each_typed(rules.APerdereEntry((0, 11, 0), sweeper=1), ("Anna", "Bruno", "Carla"))
    'Bruno · took every point'
    """
    if entry.sweeper is not None:
        named = player_names[entry.sweeper] if entry.sweeper < len(player_names) else "?"
        return f"{named} · {_('took every point')}"
    return points_said(player_names, entry.card_points)


def points_said(names: Sequence[str], points: Sequence[int]) -> str:
    """Each side's points in a deal, by name: "Alice & Carla 11, Beppe & Dino 3"."""
    return ", ".join(f"{name} {point}" for name, point in zip(names, points, strict=False))
