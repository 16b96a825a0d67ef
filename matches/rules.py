"""Every rule of Tressette the sheet keeps, in plain Python: whole numbers in, outcomes or
coded errors out.

Each deal, each side scores one whole number: its card points plus its declared points.
The rules' own worked deal: Alice and Carla declare a Napoletana in cups (3), their tricks
hold cards worth 7⅓ (7 once the third is dropped) and they take the last trick (1):
3 + 7 + 1 = 11. Beppe and Dino's tricks are worth 3⅓, so 3. On the sheet that is card
points 8 and 3 (card points include the last trick), declared points 3 and 0:

>>> rules = MatchRules(side_names=("Alice & Carla", "Beppe & Dino"))
>>> deal = check_deal(rules, [], DealEntry(card_points=(8, 3), declared_points=(3, 0)))
>>> deal.points, deal.totals
((11, 3), (11, 3))

A refusal is a `RuleError`: a `code` from MESSAGES (the one catalogue of what the rules can
say), its params, the `part` of what was entered it is about ("card_points", "kind", ...)
and, for a part each side has, which `side`. Edges (forms, the importer) put it in words.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from functools import cache

from matches.names import name_key


def gettext_noop(message: str) -> str:
    """Mark a message for translation; it is translated where it is shown."""
    return message


class Game(StrEnum):
    """What a table plays: Tressette between two sides (four players in pairs, or two in due),
    or Terziglio, three players each for themselves, one of them the soloist of each deal."""

    TRESSETTE = "tressette"
    TERZIGLIO = "terziglio"
    A_PERDERE = "a_perdere"  # three to five, each for themselves: the fewest points win


class DealKind(StrEnum):
    NORMAL = "normal"
    CAPPOTTO = "cappotto"
    STRAMAZZO = "stramazzo"
    CAPPOTTONE = "cappottone"  # a cappotto by one player alone
    STRAMAZZONE = "stramazzone"  # a stramazzo by one player alone
    CLAIM = "claim"


class TieRule(StrEnum):
    HIGHER_TOTAL = "higher_total"
    ANOTHER_DEAL = "another_deal"


class Evening(StrEnum):
    """How a table counts its evening: simply tonight's tally, or series between two sides
    won by the first to 2 wins (la partita, la rivincita e la bella) or to 3."""

    TONIGHT = "tonight"
    FIRST_TO_2 = "first_to_2"
    FIRST_TO_3 = "first_to_3"


class EndReason(StrEnum):
    LINE = "line"
    CAPPOTTO = "cappotto"
    STRAMAZZO = "stramazzo"
    CAPPOTTONE = "cappottone"
    STRAMAZZONE = "stramazzone"
    CLAIM = "claim"
    DEALS = "deals"  # Terziglio: the agreed number of deals played, the highest balance won
    LAST_IN = "last_in"  # a perdere: every other player reached the line
    LOWEST = "lowest"  # a perdere: one reached the line, and the lowest total won


class Status(StrEnum):
    IN_PROGRESS = "in_progress"
    FINISHED = "finished"  # ended: the rules decided it and a phone banked the result
    ABANDONED = "abandoned"  # stopped undecided (the evening ended); reopened, it plays on


CARD_POINTS_PER_DEAL = 11
# A claim stops the deal before the last trick: at most 10⅔ in the tricks, fractions dropped.
CLAIM_CARD_POINTS = CARD_POINTS_PER_DEAL - 1
DEFAULT_LINE, MIN_LINE, MAX_LINE = 21, 11, 101
# The lines tables play, with or without declarations: 21 in Italy; in Croatia 41 with
# declarations (akuže), 31 without.
HOUSE_LINES = ((21, True), (41, True), (31, False))

SWEEPS = (DealKind.CAPPOTTO, DealKind.STRAMAZZO, DealKind.CAPPOTTONE, DealKind.STRAMAZZONE)
SWEEPS_BY_ONE = (DealKind.CAPPOTTONE, DealKind.STRAMAZZONE)
# The sweep by a side each sweep by one player is a case of: checked and scored as that one.
_SIDE_SWEEPS = {DealKind.CAPPOTTONE: DealKind.CAPPOTTO, DealKind.STRAMAZZONE: DealKind.STRAMAZZO}
# The old stakes, where a table plays them (rule texts 000 and 001, "playing for a bottle of
# wine"): a match counts as this many games by how it was won.
STAKES = {
    EndReason.LINE: 1,
    EndReason.CLAIM: 1,
    EndReason.CAPPOTTO: 2,
    EndReason.STRAMAZZO: 3,
    EndReason.CAPPOTTONE: 6,
    EndReason.STRAMAZZONE: 8,
}
_ACES = 4
_FIGURES = 20  # the 3s, 2s, kings, cavalli and fanti: a third of a point each

MESSAGES = {
    "line_out_of_range": gettext_noop("The line must be from %(min)s to %(max)s, not %(value)s."),
    "match_decided": gettext_noop("The match is already decided: no more deals."),
    "claims_not_allowed": gettext_noop("Claims are not allowed in this match."),
    "claim_after_tie": gettext_noop(
        "Both sides have already reached the line: the tie rule settles this deal, not a claim."
    ),
    "side_not_allowed": gettext_noop(
        "Only a sweep or a claim names a side; a played-out deal does not."
    ),
    "sweep_side_required": gettext_noop("Say which side swept the deal."),
    "sweep_player_required": gettext_noop("Say which player took the deal alone."),
    "sweep_player_not_seated": gettext_noop("Pick one of the four players at the match."),
    "sweep_by_one_in_due": gettext_noop(
        "A cappottone or a stramazzone is a sweep by one player of a pair; in Tressette in due "
        "every sweep is one player's: pick Cappotto or Stramazzo."
    ),
    "player_not_allowed": gettext_noop(
        "Only a cappottone or a stramazzone names the player who swept alone."
    ),
    "sweep_player_other_side": gettext_noop(
        "The player who swept alone plays for %(side)s, not for the other side."
    ),
    "claim_side_required": gettext_noop("Say which side claimed."),
    "card_points_missing": gettext_noop("Enter the card points of at least one side."),
    "claim_card_points_missing": gettext_noop(
        "A claim counts the card points taken so far: type them (0 for a side that took none)."
    ),
    "card_points_too_high": gettext_noop("%(side)s: card points cannot be more than %(max)s."),
    "cappotto_sweeper_card_points": gettext_noop(
        "In a cappotto %(side)s took every trick, so their card points are 11."
    ),
    "stramazzo_sweeper_card_points": gettext_noop(
        "In a stramazzo %(side)s took every card point, so their card points are 11, or 10 if "
        "the other side took the last trick."
    ),
    "cappotto_card_points": gettext_noop(
        "In a cappotto %(side)s took no tricks, so their card points must be 0."
    ),
    "stramazzo_card_points": gettext_noop(
        "In a stramazzo %(side)s took no card points, so their card points must be 0, or 1 for "
        "the last trick."
    ),
    "cappottone_sweeper_card_points": gettext_noop(
        "In a cappottone one player of %(side)s took every trick, so their card points are 11."
    ),
    "stramazzone_sweeper_card_points": gettext_noop(
        "In a stramazzone one player of %(side)s took every card point, so their card points are "
        "11, or 10 if the other side took the last trick."
    ),
    "cappottone_card_points": gettext_noop(
        "In a cappottone %(side)s took no tricks, so their card points must be 0."
    ),
    "stramazzone_card_points": gettext_noop(
        "In a stramazzone %(side)s took no card points, so their card points must be 0, or 1 "
        "for the last trick."
    ),
    "claim_card_points_sum": gettext_noop(
        "A claim stops the deal before the last trick, so card points add up to at most "
        "%(expected)s: %(side_a)s %(a)s + %(side_b)s %(b)s = %(sum)s."
    ),
    "card_points_sum": gettext_noop(
        "Card points, the last trick included, must add up to %(expected)s: "
        "%(side_a)s %(a)s + %(side_b)s %(b)s = %(sum)s."
    ),
    "card_points_sweep": gettext_noop(
        "%(side)s took every card point: that is a sweep, which wins the match. Pick Cappotto "
        "if %(other)s took no trick, else Stramazzo."
    ),
    "declaration_impossible": gettext_noop(
        "%(side)s: %(value)s is not a declaration total any real deal can give."
    ),
    "declarations_not_allowed": gettext_noop(
        "This match is played without declarations: a deal counts card points only."
    ),
    "declarations_exceed_deck": gettext_noop(
        "Both sides' declarations (%(a)s and %(b)s) cannot come from one 40-card deck."
    ),
    "aces_out_of_range": gettext_noop("A side can win from 0 to %(max)s aces, not %(value)s."),
    "figures_out_of_range": gettext_noop(
        "A side can win from 0 to %(max)s figures (3s, 2s, kings, cavalli and fanti), "
        "not %(value)s."
    ),
    "claim_last_trick": gettext_noop(
        "A claim stops the deal before the last trick: nobody took it."
    ),
    "side_sizes": gettext_noop("Each side needs the same number of players: one or two."),
    "seated_twice": gettext_noop("A player can sit only once at a match."),
    "sides_named_alike": gettext_noop(
        "Both sides are called “%(name)s”: give one of them another name."
    ),
    "first_dealer_not_seated": gettext_noop("Pick one of the players at the match."),
    "result_in_progress": gettext_noop(
        "A match in progress has no winner, end reason or finish time."
    ),
    "result_abandoned": gettext_noop(
        "A match stopped undecided has no winner or end reason, and needs the time it stopped."
    ),
    "result_abandoned_decided": gettext_noop(
        "It is said to be stopped undecided, but its deals decide it."
    ),
    "result_undecided": gettext_noop("It is said to be finished, but its deals do not decide it."),
    "result_winner": gettext_noop(
        "The winner is given as %(given)s, but by the deals %(winner)s won."
    ),
    "result_reason": gettext_noop(
        "It is said to have ended by %(given)s, but by the deals it ended by %(reason)s."
    ),
    "result_finish_time": gettext_noop("A finished match needs the time it ended."),
    # Terziglio (Calabresella)
    "deals_out_of_range": gettext_noop(
        "The number of deals must be from %(min)s to %(max)s, not %(value)s."
    ),
    "terziglio_soloist_required": gettext_noop(
        "Say who played alone, or leave the deal a monte if all three passed."
    ),
    "terziglio_soloist_not_seated": gettext_noop(
        "Pick one of the three players as the one who played alone."
    ),
    "terziglio_bid_required": gettext_noop("Say what %(player)s bid: chiamo, solo or solissimo."),
    "terziglio_card_points_required": gettext_noop(
        "Enter the card points %(player)s took, the last trick included: 0 to %(max)s."
    ),
    "terziglio_card_points_too_high": gettext_noop(
        "%(player)s: card points cannot be more than %(max)s, the last trick included."
    ),
    # Tressette a perdere (Rovescino, Ciapanò, Traversone)
    "a_perdere_players": gettext_noop(
        "Tressette a perdere is played by %(min)s to %(max)s players, not %(value)s."
    ),
    "a_perdere_points_count": gettext_noop("Enter one number for each of the %(count)s players."),
    "a_perdere_player_out": gettext_noop(
        "%(player)s is out of the match and plays no more: their card points are 0."
    ),
    "a_perdere_total": gettext_noop(
        "Check the counts: with %(count)s players in, card points (the last trick included) "
        "add up to %(min)s to %(max)s, not %(sum)s."
    ),
    "a_perdere_total_exact": gettext_noop(
        "Check the counts: with %(count)s players in, card points (the last trick included) "
        "add up to %(expected)s, not %(sum)s."
    ),
    "a_perdere_sweep_unmarked": gettext_noop(
        "%(player)s took every point: that is the reversed sweep, 0 for them and %(points)s for "
        "everyone else. Mark it as such."
    ),
    "a_perdere_sweep_not_played": gettext_noop(
        "This match is played without the reversed sweep: enter each player's card points."
    ),
    "a_perdere_sweeper_not_in": gettext_noop(
        "Pick one of the players still in as the one who took every point."
    ),
    "a_perdere_sweeper_points": gettext_noop(
        "In the reversed sweep %(player)s took every point: their card points are %(points)s and "
        "everyone else's 0."
    ),
}


class RuleError(ValueError):
    """One broken rule: `str(err)` is the English message.

    `part` is what the error is about ("kind", "side", "card_points", "declared_points",
    "seat", ... or "" for the whole deal), `side` the side (0 or 1) for a part each side
    has, `deal_number` the deal once it is known.
    """

    def __init__(
        self,
        code: str,
        params: dict[str, object] | None = None,
        *,
        part: str = "",
        side: int | None = None,
    ) -> None:
        self.code = code
        self.part = part
        self.side = side
        self.params = params or {}
        self.deal_number: int | None = None
        super().__init__(str(self))

    @property
    def template(self) -> str:
        return MESSAGES[self.code]

    def __str__(self) -> str:
        return self.template % self.params

    def __repr__(self) -> str:
        return f"RuleError({self.code!r}, part={self.part!r}, side={self.side!r})"


class DealInvalid(ValueError):
    """Everything wrong with one deal at once, as a list of `RuleError`."""

    def __init__(self, errors: Sequence[RuleError]) -> None:
        self.errors = list(errors)
        super().__init__(" ".join(str(error) for error in self.errors))

    @property
    def codes(self) -> list[str]:
        return [error.code for error in self.errors]


def _is_whole(value: object) -> bool:
    return type(value) is int and value >= 0


# --- What the table agreed, and what a phone enters ---------------------------------------


def check_line(line: int) -> int:
    """The line the match is played to: from 11 to 101.

    >>> check_line(31)
    31
    """
    if not MIN_LINE <= line <= MAX_LINE:
        params = {"min": MIN_LINE, "max": MAX_LINE, "value": line}
        raise RuleError("line_out_of_range", params, part="line")
    return line


@dataclass(frozen=True)
class MatchSettings:
    """The settings a table may change during a match."""

    line: int = DEFAULT_LINE
    tie_rule: TieRule = TieRule.HIGHER_TOTAL
    claims_allowed: bool = False
    # Declarations (akuže) count: a Croatian table may play without them (line 31).
    declarations_allowed: bool = True

    def __post_init__(self) -> None:
        check_line(self.line)
        object.__setattr__(self, "tie_rule", TieRule(self.tie_rule))

    def as_dict(self) -> dict:
        """As the change log keeps them."""
        return {
            "line": self.line,
            "tie_rule": str(self.tie_rule),
            "claims_allowed": self.claims_allowed,
            "declarations_allowed": self.declarations_allowed,
        }


DEFAULT_SETTINGS = MatchSettings()


@dataclass(frozen=True)
class MatchRules(MatchSettings):
    """The settings, and the sides' names, which the messages use."""

    side_names: tuple[str, str] = ("Side 1", "Side 2")

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "side_names", tuple(self.side_names))


@dataclass(frozen=True)
class DealEntry:
    """What a phone enters for one deal; card points include the last-trick point.

    `side` is the sweeping side (cappotto, stramazzo) or the claiming side (claim), and
    None for a played-out deal; `seat` is the player who swept alone (cappottone,
    stramazzone), whose side is `side`, and None on any other deal. Given the seat alone,
    the side is the seat's: it cannot disagree (a side given that does, the rules refuse).
    Whole numbers only: reading what was typed is the edges' job.

    >>> DealEntry((11, 0), (0, 0), DealKind.CAPPOTTONE, seat=2).side
    0
    """

    card_points: tuple[int, int]
    declared_points: tuple[int, int]
    kind: DealKind = DealKind.NORMAL
    side: int | None = None
    seat: int | None = None  # the player who swept alone (cappottone, stramazzone)

    def __post_init__(self) -> None:
        if not all(map(_is_whole, (*self.card_points, *self.declared_points))):
            raise ValueError("card and declared points are whole numbers, 0 or more")
        if not (self.side is None or _is_whole(self.side)):
            raise ValueError("side is a whole number or None")
        if not (self.seat is None or _is_whole(self.seat)):
            raise ValueError("seat is a whole number or None")
        object.__setattr__(self, "kind", DealKind(self.kind))
        if self.kind in SWEEPS_BY_ONE and self.side is None and self.seat is not None:
            object.__setattr__(self, "side", seat_player(self.seat)[0])
        object.__setattr__(self, "card_points", tuple(self.card_points))
        object.__setattr__(self, "declared_points", tuple(self.declared_points))


@dataclass(frozen=True)
class ScoredDeal:
    """One row of the sheet: the deal's points and the running totals after it."""

    number: int
    entry: DealEntry
    points: tuple[int, int]
    totals: tuple[int, int]
    dealer: int  # the seat that dealt it


@dataclass(frozen=True)
class Outcome:
    """Where a match stands after its deals."""

    deals: tuple[ScoredDeal, ...]
    totals: tuple[int, int]
    needs: tuple[int, int]
    decided: bool
    winner: int | None
    reason: EndReason | None
    another_deal: bool
    next_dealer: int
    next_number: int

    @property
    def claimer(self) -> int | None:
        """The side whose claim decided the match, right or wrong; else None."""
        return self.deals[-1].entry.side if self.reason == EndReason.CLAIM else None

    @property
    def swept_alone(self) -> int | None:
        """The seat of the player whose sweep alone (a cappottone, a stramazzone) decided the
        match; else None."""
        by_one = self.reason in (EndReason.CAPPOTTONE, EndReason.STRAMAZZONE)
        return self.deals[-1].entry.seat if by_one else None

    @property
    def both_at_line(self) -> bool:
        """Decided on the line with both sides at or past it: the higher total won."""
        return self.reason == EndReason.LINE and not any(self.needs)


# --- Card points -----------------------------------------------------------------------


def is_sweep(kind: DealKind) -> bool:
    """A cappotto or a stramazzo, by a side or by one player alone: the sweeper's points are
    what takes it to the line."""
    return kind in SWEEPS


def sweeper_named(kind: DealKind) -> str | None:
    """Whom a sweep names as its sweeper: "side" (a cappotto, a stramazzo), "player" (one who
    swept alone); None for a deal that is no sweep.

    >>> sweeper_named(DealKind.STRAMAZZO), sweeper_named(DealKind.CAPPOTTONE)
    ('side', 'player')
    """
    if not is_sweep(kind):
        return None
    return "player" if kind in SWEEPS_BY_ONE else "side"


def card_points_implied(kind: DealKind) -> bool:
    """Every trick to the sweepers: their card points go without saying (11 to 0).

    >>> card_points_implied(DealKind.CAPPOTTONE), card_points_implied(DealKind.STRAMAZZO)
    (True, False)
    """
    return side_sweep(kind) == DealKind.CAPPOTTO


def sweep_card_point_bounds(kind: DealKind) -> tuple[int, int]:
    """What a sweep's card points may be: the least the sweepers' may be, the most the other
    side's (in a stramazzo, perhaps the last trick's point).

    >>> sweep_card_point_bounds(DealKind.CAPPOTTONE), sweep_card_point_bounds(DealKind.STRAMAZZONE)
    ((11, 0), (10, 1))
    """
    if card_points_implied(kind):
        return CARD_POINTS_PER_DEAL, 0
    return CARD_POINTS_PER_DEAL - 1, 1


def side_sweep(kind: DealKind) -> DealKind:
    """The sweep by a side that `kind` is a case of (itself for any other kind): a cappottone
    is a cappotto made by one player alone, a stramazzone a stramazzo. Its card points are
    checked as that sweep's, it scores as that sweep and it ends the match on the spot.

    Line 21, Alice & Carla 9 against 9. Then Alice (seat 0) takes all ten tricks alone, and
    Beppe & Dino declared three 2s: a cappottone. Alice & Carla score what takes them to
    the line, 12; Beppe & Dino their declaration, 0 + 3. Under the old stakes (rule text
    000) the match counts six games:

    >>> rules = MatchRules(side_names=("Alice & Carla", "Beppe & Dino"))
    >>> outcome = evaluate(rules, [
    ...     DealEntry(card_points=(6, 5), declared_points=(3, 4)),
    ...     DealEntry((11, 0), (0, 3), DealKind.CAPPOTTONE, seat=0),
    ... ])
    >>> outcome.deals[-1].points, outcome.totals, outcome.winner, outcome.reason
    ((12, 3), (21, 12), 0, <EndReason.CAPPOTTONE: 'cappottone'>)
    >>> games_won(outcome.reason, stakes=True)
    6

    A stramazzone whose other side took a point beyond the last trick is no stramazzone, and
    Tressette in due has no partners: every sweep there is one player's, a cappotto or a
    stramazzo.

    >>> check_deal(rules, [], DealEntry((9, 2), (0, 0), DealKind.STRAMAZZONE, seat=2))
    Traceback (most recent call last):
    ...
    matches.rules.DealInvalid: In a stramazzone one player of Alice & Carla took every card point, so their card points are 11, or 10 if the other side took the last trick.
    >>> check_deal(rules, [], DealEntry((0, 11), (0, 0), DealKind.CAPPOTTONE, seat=1),
    ...            seat_count=2)
    Traceback (most recent call last):
    ...
    matches.rules.DealInvalid: A cappottone or a stramazzone is a sweep by one player of a pair; in Tressette in due every sweep is one player's: pick Cappotto or Stramazzo.
    """  # noqa: E501
    return _SIDE_SWEEPS.get(kind, kind)


def games_won(reason: EndReason, *, stakes: bool) -> int:
    """How many games a match won by `reason` counts: 1, or under the old stakes its sweep's.

    >>> games_won(EndReason.CAPPOTTO, stakes=False), games_won(EndReason.CAPPOTTO, stakes=True)
    (1, 2)
    >>> games_won(EndReason.STRAMAZZONE, stakes=True)
    8
    """
    return STAKES[reason] if stakes else 1


def complete_card_points(
    first: int | None,
    second: int | None,
    *,
    kind: DealKind = DealKind.NORMAL,
    side: int | None = None,
) -> tuple[int, int]:
    """Both sides' card points when only one was typed: a played-out deal makes 11.

    >>> complete_card_points(8, None)
    (8, 3)

    A cappotto needs none typed; a sweep fills in a blank side by the sweep's rule, so
    that what is wrong is said of the number typed:

    >>> complete_card_points(None, None, kind=DealKind.CAPPOTTO, side=1)
    (0, 11)
    >>> complete_card_points(10, None, kind=DealKind.CAPPOTTO, side=0)
    (10, 0)
    >>> complete_card_points(None, 1, kind=DealKind.STRAMAZZO, side=0)
    (10, 1)

    A cappottone or a stramazzone as a cappotto or a stramazzo, its side the sweeper's:

    >>> complete_card_points(None, None, kind=DealKind.CAPPOTTONE, side=1)
    (0, 11)

    A claim stops the deal early: a side left blank took none, and with both blank
    nothing was counted yet.

    >>> complete_card_points(7, None, kind=DealKind.CLAIM)
    (7, 0)
    """
    if first is None and second is None:
        cappotto = card_points_implied(kind)
        if cappotto and side in (0, 1):
            return (CARD_POINTS_PER_DEAL, 0) if side == 0 else (0, CARD_POINTS_PER_DEAL)
        if cappotto and kind in SWEEPS_BY_ONE:
            raise RuleError("sweep_player_required", part="seat")
        if cappotto:
            raise RuleError("sweep_side_required", part="side")
        code = "claim_card_points_missing" if kind == DealKind.CLAIM else "card_points_missing"
        raise RuleError(code, part="card_points")
    if kind == DealKind.CLAIM:
        return (first or 0, second or 0)
    if first is not None and second is not None:
        return (first, second)
    if is_sweep(kind) and side in (0, 1):
        return _complete_sweep(first, second, kind=kind, side=side)
    if second is None:
        return (first, max(0, CARD_POINTS_PER_DEAL - first))
    return (max(0, CARD_POINTS_PER_DEAL - second), second)


def _complete_sweep(
    first: int | None, second: int | None, *, kind: DealKind, side: int
) -> tuple[int, int]:
    """A sweep's blank side: the sweeper took every card point (in a stramazzo, maybe not
    the last trick's), the other side none (in a stramazzo, maybe the last trick's)."""
    cards = [first, second]
    stramazzo = side_sweep(kind) == DealKind.STRAMAZZO
    if cards[side] is None:
        other = cards[1 - side]
        last_trick_elsewhere = stramazzo and other in (0, 1)
        cards[side] = CARD_POINTS_PER_DEAL - other if last_trick_elsewhere else CARD_POINTS_PER_DEAL
    else:
        left = CARD_POINTS_PER_DEAL - cards[side]
        cards[1 - side] = left if stramazzo and left in (0, 1) else 0
    return (cards[0], cards[1])


def card_points_from_count(
    *, aces: int, figures: int, last_trick: bool, claim: bool = False
) -> tuple[int, int | None]:
    """Both sides' card points from one side's pile: (this side's, the other side's).

    An ace is 1 point (3 thirds), a figure (3, 2, king, cavallo, fante) a third, the last
    trick 1 (3 thirds): 35 thirds a deal. Each side drops its own fraction, so the two come
    to 11. The worked deal: 3 aces and 13 figures (7⅓) and the last trick, 25 thirds = 8;
    the other side's ace and 7 figures, 10 thirds = 3.

    >>> card_points_from_count(aces=3, figures=13, last_trick=True)
    (8, 3)

    A claim stops the deal early: the other side's points are not the rest (None).

    >>> card_points_from_count(aces=2, figures=4, last_trick=False, claim=True)
    (3, None)
    """
    if not 0 <= aces <= _ACES:
        raise RuleError("aces_out_of_range", {"max": _ACES, "value": aces}, part="aces")
    if not 0 <= figures <= _FIGURES:
        params = {"max": _FIGURES, "value": figures}
        raise RuleError("figures_out_of_range", params, part="figures")
    if claim and last_trick:
        raise RuleError("claim_last_trick", part="last_trick")
    last = 1 if last_trick else 0
    this_side = 3 * aces + figures + 3 * last
    if claim:
        return this_side // 3, None
    other_side = 3 * (_ACES - aces) + (_FIGURES - figures) + 3 * (1 - last)
    return this_side // 3, other_side // 3


# --- Declarations (accusi) -------------------------------------------------------------
#
# Only the 3s, 2s and aces declare: 12 cards, one bit each (rank * 4 + suit), so a hand's
# share of them is a 12-bit mask. A set of possible totals is an int whose bit v is set
# when the total v is possible.

_DECLARING_CARDS = 12
_ALL_DECLARING = (1 << _DECLARING_CARDS) - 1
_HAND_SIZE = 10
_RANK_MASKS = tuple(0b1111 << (4 * rank) for rank in range(3))  # four 3s, four 2s, four aces
_SUIT_MASKS = tuple(sum(1 << (4 * rank + suit) for rank in range(3)) for suit in range(4))


def _hand_totals(hand: int) -> int:
    """The declared totals one hand can announce, as a bit set.

    Three of a rank = 3, four = 4, each Napoletana = 3; the same card may count in several,
    and the player may leave any of them undeclared.
    """
    combinations = [held for mask in _RANK_MASKS if (held := (hand & mask).bit_count()) >= 3]
    combinations += [3 for mask in _SUIT_MASKS if hand & mask == mask]
    totals = 1  # declaring nothing
    for value in combinations:
        totals |= totals << value
    return totals


def _bit_values(bits: int) -> list[int]:
    return [value for value in range(bits.bit_length()) if bits >> value & 1]


def _sumset(a: int, b: int) -> int:
    result = 0
    for value in _bit_values(a):
        result |= b << value
    return result


@cache
def _side_totals_by_cards(players_per_side: int = 2) -> tuple[int, ...]:
    """For each set of the 12 declaring cards a side holds, its possible totals.

    A side of one player (tressette in due) is one hand of ten. A side of two is two
    hands: the cards it holds split between them in every way (submask iteration, 3^12
    splits), neither hand holding more than ten.
    """
    hand_totals = [
        _hand_totals(hand) if hand.bit_count() <= _HAND_SIZE else 0  # 0: no such hand
        for hand in range(_ALL_DECLARING + 1)
    ]
    if players_per_side == 1:
        return tuple(hand_totals)
    distinct = sorted(set(hand_totals))
    index = {totals: position for position, totals in enumerate(distinct)}
    sums = [[_sumset(a, b) for b in distinct] for a in distinct]
    hand_index = [index[totals] for totals in hand_totals]
    by_cards = []
    for cards in range(_ALL_DECLARING + 1):
        totals = 0
        first = cards
        while True:
            totals |= sums[hand_index[first]][hand_index[cards ^ first]]
            if not first:
                break
            first = (first - 1) & cards
        by_cards.append(totals)
    return tuple(by_cards)


@cache
def _other_side_totals(players_per_side: int = 2) -> tuple[int, ...]:
    """For each set of declaring cards one side does not hold, the other side's totals.

    With four players all forty cards are dealt: the other side holds exactly those. In due
    twenty cards stay in the monte, so the other hand holds any part of them (an OR over
    subsets, one card at a time).
    """
    by_cards = _side_totals_by_cards(players_per_side)
    if players_per_side == 2:
        return by_cards
    within = list(by_cards)
    for card in range(_DECLARING_CARDS):
        for cards in range(_ALL_DECLARING + 1):
            if cards >> card & 1:
                within[cards] |= within[cards ^ (1 << card)]
    return tuple(within)


@cache
def declaration_pairs(players_per_side: int = 2) -> frozenset[tuple[int, int]]:
    """Every (side 0 total, side 1 total) of declarations one 40-card deck allows.

    >>> (7, 6) in declaration_pairs(), (7, 7) in declaration_pairs()
    (True, False)

    In due each side is one hand of ten: 21 takes two hands.

    >>> (21, 0) in declaration_pairs(2), (21, 0) in declaration_pairs(1)
    (True, False)
    """
    mine = _side_totals_by_cards(players_per_side)
    theirs = _other_side_totals(players_per_side)
    splits = {(mine[cards], theirs[_ALL_DECLARING ^ cards]) for cards in range(len(mine))}
    return frozenset(
        (a, b) for ours, others in splits for a in _bit_values(ours) for b in _bit_values(others)
    )


@cache
def declaration_totals_for_side(players_per_side: int = 2) -> frozenset[int]:
    """Every declared total a side's real 10-card hands can hold.

    >>> [total in declaration_totals_for_side() for total in (3, 4, 5, 6, 7)]
    [True, True, False, True, True]
    >>> max(declaration_totals_for_side(2)), max(declaration_totals_for_side(1))
    (21, 19)
    """
    return frozenset(a for a, _ in declaration_pairs(players_per_side))


# --- Seats and dealing -----------------------------------------------------------------


def seats(players_per_side: int) -> int:
    """Seats at the table: 4 for the partnership game, 2 for tressette in due."""
    if players_per_side not in (1, 2):
        raise ValueError("a side has one or two players")
    return 2 * players_per_side


def seat_player(seat: int) -> tuple[int, int]:
    """(side, player index within the side) sitting at `seat`.

    Seats run anticlockwise with partners opposite: seat 0 is side 0's first player,
    seat 1 side 1's first, seat 2 side 0's second, seat 3 side 1's second.

    >>> seat_player(3)
    (1, 1)
    """
    return seat % 2, seat // 2


def seat_order(players: Sequence[Sequence[str]]) -> list[str]:
    """Both sides' players in seat order.

    >>> seat_order([["Alice", "Carla"], ["Beppe", "Dino"]])
    ['Alice', 'Beppe', 'Carla', 'Dino']
    """
    count = 2 * len(players[0])
    return [players[side][index] for side, index in map(seat_player, range(count))]


def seating_errors(
    players: Sequence[Sequence[str]],
    side_names: Sequence[str],
    first_dealer: int,
    game: Game = Game.TRESSETTE,
) -> list[RuleError]:
    """What is wrong with seating these players (by name): at Tressette two sides of one or
    two, told apart by name; at Terziglio three sides of one, a perdere three to five. Nobody
    twice (names compared as names.name_key does), a first dealer who sits at the match. A
    seat's error names the `seat` it is about."""
    alone = {Game.TERZIGLIO: (TERZIGLIO_PLAYERS,), Game.A_PERDERE: A_PERDERE_PLAYERS}
    if (counts := alone.get(Game(game))) is not None:
        if Game(game) is Game.A_PERDERE and len(players) not in counts:
            params = {"min": counts[0], "max": counts[-1], "value": len(players)}
            return [RuleError("a_perdere_players", params, part="players")]
        if len(players) not in counts or any(len(side) != 1 for side in players):
            return [RuleError("side_sizes", part="players")]
        seats = [side[0] for side in players]
    elif len(players) != 2 or len(players[0]) not in (1, 2) or len(players[1]) != len(players[0]):
        return [RuleError("side_sizes", part="players")]
    else:
        seats = seat_order(players)
    errors = []
    seen: set[str] = set()
    for seat, name in enumerate(seats):
        if name_key(name) in seen:
            errors.append(RuleError("seated_twice", {"seat": seat}, part="seat"))
        seen.add(name_key(name))
    if len(players) == 2 and name_key(side_names[0]) == name_key(side_names[1]):
        errors.append(RuleError("sides_named_alike", {"name": side_names[1]}, part="side_name"))
    if not 0 <= first_dealer < len(seats):
        errors.append(RuleError("first_dealer_not_seated", part="first_dealer"))
    return errors


def dealer_for(number: int, *, first_dealer: int, seat_count: int) -> int:
    """The seat that deals deal `number` (1-based).

    Play and the deal pass anticlockwise, to the right, which is the next seat index; the
    player on the dealer's right (the next seat) leads the first trick.

    >>> [dealer_for(n, first_dealer=3, seat_count=4) for n in range(1, 6)]
    [3, 0, 1, 2, 3]
    """
    if seat_count not in (2, TERZIGLIO_PLAYERS, 4):  # in due, Terziglio, in four
        raise ValueError("seat_count is 2, 3 or 4")
    _check_first_dealer(first_dealer, seat_count)
    if number < 1:
        raise ValueError("deals are numbered from 1")
    return (first_dealer + number - 1) % seat_count


def _check_seating(first_dealer: int, seat_count: int) -> None:
    if seat_count not in (2, 4):
        raise ValueError("seat_count is 2 or 4")
    if not 0 <= first_dealer < seat_count:
        raise ValueError("first_dealer is a seat index")


# --- Checking a deal -------------------------------------------------------------------


@dataclass(frozen=True)
class _Tally:
    totals: tuple[int, int] = (0, 0)
    decided: bool = False
    winner: int | None = None
    reason: EndReason | None = None
    another_deal: bool = False


def deal_errors(
    rules: MatchRules, tally: _Tally, entry: DealEntry, players_per_side: int, new: bool
) -> list[RuleError]:
    """Every rule `entry` breaks as the next deal after `tally`; `new` when a person has
    just entered it (see evaluate)."""
    if tally.decided:
        return [RuleError("match_decided")]
    return [
        *_kind_errors(rules, tally, entry),
        *_side_errors(entry),
        *_player_errors(rules, entry, players_per_side),
        *_card_point_errors(rules, entry, new),
        *_declaration_errors(rules, entry, players_per_side),
    ]


def _kind_errors(rules: MatchRules, tally: _Tally, entry: DealEntry) -> list[RuleError]:
    if entry.kind is not DealKind.CLAIM:
        return []
    if not rules.claims_allowed:
        return [RuleError("claims_not_allowed", part="kind")]
    if tally.another_deal:  # both sides already stand at the line: a claim could not be wrong
        return [RuleError("claim_after_tie", part="kind")]
    return []


def _side_errors(entry: DealEntry) -> list[RuleError]:
    if entry.kind is DealKind.NORMAL and entry.side is not None:
        return [RuleError("side_not_allowed", part="side")]
    if entry.kind in SWEEPS_BY_ONE and entry.side is None:
        return []  # the player who swept names it: _player_errors asks for them
    if entry.kind is not DealKind.NORMAL and entry.side not in (0, 1):
        code = "claim_side_required" if entry.kind is DealKind.CLAIM else "sweep_side_required"
        return [RuleError(code, part="side")]
    return []


def _player_errors(rules: MatchRules, entry: DealEntry, players_per_side: int) -> list[RuleError]:
    """A cappottone or a stramazzone names the player who swept alone: a seat of a match of
    four (in due there are no partners to sweep without), on the side said to have swept.
    No other deal names a player."""
    if entry.kind not in SWEEPS_BY_ONE:
        return [] if entry.seat is None else [RuleError("player_not_allowed", part="seat")]
    if players_per_side != 2:
        return [RuleError("sweep_by_one_in_due", part="kind")]
    if entry.seat is None:
        return [RuleError("sweep_player_required", part="seat")]
    if entry.seat >= seats(players_per_side):
        return [RuleError("sweep_player_not_seated", part="seat")]
    side = seat_player(entry.seat)[0]
    if entry.side != side:
        return [RuleError("sweep_player_other_side", {"side": rules.side_names[side]}, part="seat")]
    return []


def _card_point_errors(rules: MatchRules, entry: DealEntry, new: bool) -> list[RuleError]:
    """Each side's card points, then a sweep's, then their sum: the first kind of mistake
    found is said, where it is."""
    names, cards = rules.side_names, entry.card_points
    too_high = [
        RuleError(
            "card_points_too_high",
            {"side": names[i], "value": cards[i], "max": CARD_POINTS_PER_DEAL},
            part="card_points",
            side=i,
        )
        for i in (0, 1)
        if cards[i] > CARD_POINTS_PER_DEAL
    ]
    if too_high:
        return too_high
    if is_sweep(entry.kind) and (swept := _sweep_card_point_error(rules, entry)):
        return [swept]
    return _card_point_sum_errors(rules, entry, new)


def _sweep_card_point_error(rules: MatchRules, entry: DealEntry) -> RuleError | None:
    """The sweeper's own points first: with both wrong (10 against 1 in a cappotto), the
    mistake is said once, of the side that swept. None without a side (said elsewhere)."""
    sweeper, cards = entry.side, entry.card_points
    if sweeper not in (0, 1):
        return None
    other = 1 - sweeper
    # A sweep by one player is checked as its side's sweep, and said in its own name.
    kind = entry.kind.value
    least, most = sweep_card_point_bounds(entry.kind)
    if cards[sweeper] < least:
        code, side = f"{kind}_sweeper_card_points", sweeper
    elif cards[other] > most:
        code, side = f"{kind}_card_points", other
    else:
        return None
    params = {"side": rules.side_names[side], "value": cards[side]}
    return RuleError(code, params, part="card_points", side=side)


def _card_point_sum_errors(rules: MatchRules, entry: DealEntry, new: bool) -> list[RuleError]:
    cards, names = entry.card_points, rules.side_names
    claim = entry.kind is DealKind.CLAIM
    total = cards[0] + cards[1]
    params = {"side_a": names[0], "a": cards[0], "side_b": names[1], "b": cards[1], "sum": total}
    if claim and total > CLAIM_CARD_POINTS:
        return [RuleError("claim_card_points_sum", {**params, "expected": CLAIM_CARD_POINTS})]
    if not claim and total != CARD_POINTS_PER_DEAL:
        return [RuleError("card_points_sum", {**params, "expected": CARD_POINTS_PER_DEAL})]
    if new and entry.kind is DealKind.NORMAL and 0 in cards:
        # Every card point to one side: the other took no trick (a cappotto), or only tricks
        # worth less than a point (a stramazzo); either ends the match. Asked of new deals
        # only: matches stored before this was asked keep their 11-0 deals.
        swept = cards.index(0)
        params = {"side": names[1 - swept], "other": names[swept]}
        return [RuleError("card_points_sweep", params, part="kind")]
    return []


def _declaration_errors(
    rules: MatchRules, entry: DealEntry, players_per_side: int
) -> list[RuleError]:
    declared, possible = entry.declared_points, declaration_totals_for_side(players_per_side)
    if not rules.declarations_allowed:
        return [] if declared == (0, 0) else [RuleError("declarations_not_allowed")]
    impossible = [
        RuleError(
            "declaration_impossible",
            {"side": rules.side_names[i], "value": declared[i]},
            part="declared_points",
            side=i,
        )
        for i in (0, 1)
        if declared[i] not in possible
    ]
    if impossible:
        return impossible
    if declared not in declaration_pairs(players_per_side):
        return [RuleError("declarations_exceed_deck", {"a": declared[0], "b": declared[1]})]
    return []


# --- Scoring a match -------------------------------------------------------------------


def _settle(rules: MatchRules, before: _Tally, entry: DealEntry, totals: tuple[int, int]) -> _Tally:
    """Who, if anyone, has won once a deal's points are added.

    A sweep wins for the sweeper; a claim for the claimant if it reached the line, else for
    the other side. Otherwise a side alone at or past the line wins. When both reach it on
    the same deal, higher_total gives it to the higher total, and another_deal always plays
    one more deal first; from then on the higher total wins and equal totals play on. Line
    21, 18 to 18 then 11 to 11: 29 to 29, another deal under either rule; then 6 to 5:
    35 to 34, side 0 wins.
    """
    line, side = rules.line, entry.side
    if is_sweep(entry.kind):
        return _Tally(totals, decided=True, winner=side, reason=EndReason(entry.kind))
    if entry.kind is DealKind.CLAIM:
        winner = side if totals[side] >= line else 1 - side
        return _Tally(totals, decided=True, winner=winner, reason=EndReason.CLAIM)
    over = (totals[0] >= line, totals[1] >= line)
    if not any(over):
        return _Tally(totals)
    if not all(over):
        return _Tally(totals, decided=True, winner=0 if over[0] else 1, reason=EndReason.LINE)
    first_deal_over = not before.another_deal
    if totals[0] == totals[1] or (first_deal_over and rules.tie_rule is TieRule.ANOTHER_DEAL):
        return _Tally(totals, another_deal=True)
    winner = 0 if totals[0] > totals[1] else 1
    return _Tally(totals, decided=True, winner=winner, reason=EndReason.LINE)


def sweep_points(line: int, total: int) -> int:
    """What a sweep scores for the side that made it: exactly what takes it to the line,
    whatever it declared; a side already past the line scores 0.

    >>> sweep_points(21, 0), sweep_points(21, 13), sweep_points(21, 23)
    (21, 8, 0)
    """
    return max(0, line - total)


def _points(rules: MatchRules, before: _Tally, entry: DealEntry) -> tuple[int, int]:
    """Card points plus declarations; a sweep takes the sweeper exactly to the line (from 0
    against 20, a cappotto scores 21), whatever it declared."""
    points = [entry.card_points[i] + entry.declared_points[i] for i in (0, 1)]
    if is_sweep(entry.kind):
        points[entry.side] = sweep_points(rules.line, before.totals[entry.side])
    return (points[0], points[1])


def _replay(
    rules: MatchRules,
    entries: Sequence[DealEntry],
    *,
    first_dealer: int,
    seat_count: int,
    checked_from: int = 1,
    new: int | None = None,
) -> tuple[list[ScoredDeal], _Tally]:
    """Score `entries` in order, checking those from number `checked_from` on; the first
    invalid one raises DealInvalid, its errors carrying its number."""
    _check_seating(first_dealer, seat_count)
    tally, scored = _Tally(), []
    for number, entry in enumerate(entries, start=1):
        deal, tally = _step(rules, tally, number, entry, first_dealer=first_dealer,
                            seat_count=seat_count, check=number >= checked_from,
                            new=number == new)  # fmt: skip
        scored.append(deal)
    return scored, tally


def _step(
    rules: MatchRules,
    tally: _Tally,
    number: int,
    entry: DealEntry,
    *,
    first_dealer: int,
    seat_count: int,
    check: bool,
    new: bool,
) -> tuple[ScoredDeal, _Tally]:
    """Deal `number` after `tally`: checked if `check` (DealInvalid, its errors carrying
    its number), scored, and where it leaves the match."""
    if check:
        errors = deal_errors(rules, tally, entry, seat_count // 2, new=new)
        if errors:
            for error in errors:
                error.deal_number = number
            raise DealInvalid(errors)
    points = _points(rules, tally, entry)
    totals = (tally.totals[0] + points[0], tally.totals[1] + points[1])
    dealer = (first_dealer + number - 1) % seat_count
    return ScoredDeal(number, entry, points, totals, dealer), _settle(rules, tally, entry, totals)


@dataclass(frozen=True)
class Standing:
    """Where a match stands before its next deal, as the match keeps it (its totals, how
    many deals, the side they decide it for): all the next deal is checked and scored by."""

    totals: tuple[int, int]
    deals: int
    decided_for: int | None = None


def next_deal(
    rules: MatchRules,
    standing: Standing,
    entry: DealEntry,
    *,
    first_dealer: int = 0,
    seat_count: int = 4,
    new: bool = True,
) -> tuple[ScoredDeal, Standing]:
    """Check `entry` as the deal after `standing`, score it, and say where it leaves the
    match: what evaluate() gives for the deals so far and this one, from the totals alone.
    Both sides at or past the line and the match undecided means they play another deal.

    Line 21, at 18 to 10, a deal of 4 + 3 against 4: 25 to 14, side 0 has won.

    >>> rules = MatchRules(side_names=("Alice & Carla", "Beppe & Dino"))
    >>> deal, after = next_deal(rules, Standing((18, 10), 5), DealEntry((7, 4), (0, 0)))
    >>> deal.number, deal.points, deal.totals, after
    (6, (7, 4), (25, 14), Standing(totals=(25, 14), deals=6, decided_for=0))
    """
    _check_seating(first_dealer, seat_count)
    decided = standing.decided_for is not None
    over = all(total >= rules.line for total in standing.totals)
    tally = _Tally(standing.totals, decided, standing.decided_for, None, over and not decided)
    number = standing.deals + 1
    deal, tally = _step(rules, tally, number, entry, first_dealer=first_dealer,
                        seat_count=seat_count, check=True, new=new)  # fmt: skip
    return deal, Standing(tally.totals, number, tally.winner if tally.decided else None)


def check_deal(
    rules: MatchRules,
    previous: Sequence[DealEntry],
    entry: DealEntry,
    *,
    first_dealer: int = 0,
    seat_count: int = 4,
) -> ScoredDeal:
    """Check `entry` as a new deal after `previous` (replayed, and checked too) and score it.

    Raises DealInvalid listing every broken rule, "match_decided" when no deal may follow.

    >>> rules = MatchRules(side_names=("Alice & Carla", "Beppe & Dino"))
    >>> check_deal(rules, [], DealEntry(card_points=(8, 4), declared_points=(5, 0)))
    Traceback (most recent call last):
    ...
    matches.rules.DealInvalid: Card points, the last trick included, must add up to 11: Alice & Carla 8 + Beppe & Dino 4 = 12. Alice & Carla: 5 is not a declaration total any real deal can give.
    """  # noqa: E501
    entries = [*previous, entry]
    outcome = evaluate(
        rules, entries, first_dealer=first_dealer, seat_count=seat_count, new=len(entries)
    )
    return outcome.deals[-1]


def evaluate(
    rules: MatchRules,
    entries: Sequence[DealEntry],
    *,
    first_dealer: int = 0,
    seat_count: int = 4,
    checked_from: int = 1,
    new: int | None = None,
) -> Outcome:
    """Check and score every deal in order and say where the match stands.

    Deals numbered before `checked_from` are scored as they stand: a match's stored deals,
    checked when they were stored (by the rules of that day). Deal number `new`, one a
    person has just entered, is also held to what only a new entry must meet: 11 card
    points against 0 is a sweep, not a deal played out.

    Line 21, the worked deal and then a deal of 7 + 4 against 4 + 3:

    >>> rules = MatchRules(side_names=("Alice & Carla", "Beppe & Dino"))
    >>> outcome = evaluate(rules, [
    ...     DealEntry(card_points=(8, 3), declared_points=(3, 0)),
    ...     DealEntry(card_points=(7, 4), declared_points=(4, 3)),
    ... ])
    >>> outcome.totals, outcome.needs, outcome.decided, outcome.winner, outcome.reason
    ((22, 10), (0, 11), True, 0, <EndReason.LINE: 'line'>)
    """
    scored, tally = _replay(
        rules,
        entries,
        first_dealer=first_dealer,
        seat_count=seat_count,
        checked_from=checked_from,
        new=new,
    )
    line = rules.line
    return Outcome(
        deals=tuple(scored),
        totals=tally.totals,
        needs=(max(0, line - tally.totals[0]), max(0, line - tally.totals[1])),
        decided=tally.decided,
        winner=tally.winner,
        reason=tally.reason,
        another_deal=tally.another_deal,
        next_dealer=(first_dealer + len(scored)) % seat_count,
        next_number=len(scored) + 1,
    )


def result_errors(
    outcome: Outcome,
    *,
    status: Status,
    winner: int | None,
    reason: EndReason | None,
    finished: bool,
) -> list[RuleError]:
    """What is wrong with a match's result as stated (an import says it) against its deals:
    one in progress has none; one stopped undecided is not decided and has only the time it
    stopped; one finished is decided, for `winner`, by `reason`, at a time."""
    if status is Status.IN_PROGRESS:
        stated = winner is not None or reason is not None or finished
        return [RuleError("result_in_progress")] if stated else []
    if status is Status.ABANDONED:
        if winner is not None or reason is not None or not finished:
            return [RuleError("result_abandoned")]
        return [RuleError("result_abandoned_decided")] if outcome.decided else []
    if not outcome.decided:
        return [RuleError("result_undecided")]
    if winner != outcome.winner:
        params = {"given": winner, "winner": outcome.winner}
        return [RuleError("result_winner", params, part="winner")]
    if reason != outcome.reason:
        params = {"given": reason, "reason": outcome.reason}
        return [RuleError("result_reason", params, part="reason")]
    return [] if finished else [RuleError("result_finish_time")]


# --- The evening -------------------------------------------------------------------------

# A table's evening begins with the first match started when none of its matches has been
# played for this long (or when a scorer says a new evening begins): tonight's matches are
# those started since. A span of time, not a local midnight, so that every phone, in any time
# zone, counts the same matches.
EVENING_BREAK = timedelta(hours=6)


def begins_evening(*, last_play: datetime | None, now: datetime) -> bool:
    """A match started `now` begins a new evening: the table has never played, or has not
    played (anything done to any of its matches) for EVENING_BREAK.

    >>> at = datetime.fromisoformat("2026-12-05T23:40+00:00")
    >>> begins_evening(last_play=None, now=at)
    True
    >>> begins_evening(last_play=at - timedelta(hours=2), now=at)
    False
    >>> begins_evening(last_play=at - timedelta(hours=6), now=at)
    True
    """
    return last_play is None or now - last_play >= EVENING_BREAK


def wins_needed(evening: Evening) -> int | None:
    """The wins that take a series: 2 (la partita, la rivincita e la bella) or 3; None for
    tonight's tally, where two sides' matches simply add up all night."""
    return {Evening.FIRST_TO_2: 2, Evening.FIRST_TO_3: 3}.get(Evening(evening))


@dataclass(frozen=True)
class Played:
    """One of tonight's matches, ended or being played, as the tally counts it: its two
    sides, each the players it seated (any keys: ids, names), its winner (0 or 1; None while
    it is played) and the games its win counts (games_won). One stopped undecided counts for
    nobody: it is no match of the tally."""

    sides: tuple[Sequence, Sequence]  # each side's players, in seat order
    winner: int | None = None
    games: int = 1

    @property
    def pairs(self) -> tuple[frozenset, frozenset]:
        """Its sides as the tally knows them: a side is its players, wherever they sat."""
        return frozenset(self.sides[0]), frozenset(self.sides[1])


@dataclass(frozen=True)
class Count:
    """What a side (its players) or one player did tonight."""

    who: object  # a side's frozenset of players, or a player
    played: int = 0
    won: int = 0
    games: int = 0


@dataclass(frozen=True)
class Series:
    """Two sides' matches against each other: their wins, in the order `sides` first met in
    it, and who took it once a side has the wins needed."""

    sides: tuple[frozenset, frozenset]
    wins: tuple[int, int] = (0, 0)
    needed: int | None = None  # None: tonight's tally, never taken

    @property
    def won_by(self) -> int | None:
        if self.needed is None:
            return None
        return next((i for i in (0, 1) if self.wins[i] >= self.needed), None)

    @property
    def deciding(self) -> bool:
        """Both sides one win short: the next match between them decides it (la bella)."""
        return self.needed is not None and self.wins == (self.needed - 1, self.needed - 1)


@dataclass(frozen=True)
class InSeries:
    """Where one of tonight's matches stands in its series: which one (an index into
    Tally.series), its number in it, whether it is (or was) the deciding match, and the
    series' score after it (before it, while it is played)."""

    series: int
    number: int
    deciding: bool
    score: tuple[int, int]
    flipped: bool  # its side 0 is the series' second side


@dataclass(frozen=True)
class Tally:
    sides: tuple[Count, ...]  # every side that played, in the order it first played
    players: tuple[Count, ...]  # every player, in the order they first played
    series: tuple[Series, ...]  # in the order they began
    matches: tuple[InSeries, ...]  # each match of `played`, in its order


def evening_tally(played: Sequence[Played], evening: Evening) -> Tally:
    """Tonight's tally: matches and games won by each side and each player (partners change),
    and each series between the same two sides, in the order played. A series is counted in
    matches won, whatever their games; once one is taken, the next match between the same
    sides begins another. A match being played counts as played once it has a winner.

    An evening of first to 2, stakes on: Alice & Carla beat Beppe & Dino (1 – 0), who win the
    rivincita by a cappotto (1 – 1, 2 games): the next match is la bella. Alice & Carla take
    it (2 – 1); then partners change.

    >>> ac, bd, ab, cd = "AC", "BD", "AB", "CD"
    >>> tally = evening_tally(
    ...     [Played((ac, bd), 0), Played((bd, ac), 0, games=2), Played((ac, bd), 0),
    ...      Played((ab, cd), 1)],
    ...     Evening.FIRST_TO_2,
    ... )
    >>> [(m.number, m.score, m.deciding) for m in tally.matches]
    [(1, (1, 0), False), (2, (1, 1), False), (3, (2, 1), True), (1, (0, 1), False)]
    >>> tally.series[0].won_by, [(c.won, c.games) for c in tally.sides]
    (0, [(2, 2), (1, 2), (0, 0), (1, 1)])
    >>> {c.who: (c.played, c.won, c.games) for c in tally.players}
    {'A': (4, 2, 2), 'C': (4, 3, 3), 'B': (4, 1, 2), 'D': (4, 2, 3)}
    """
    needed = wins_needed(evening)
    sides: dict[frozenset, Count] = {}
    players: dict[object, Count] = {}
    series: list[Series] = []
    open_series: dict[frozenset, int] = {}  # the two sides -> their series not yet taken
    matches: list[InSeries] = []
    for match in played:
        pairs = match.pairs
        key = frozenset(pairs)
        index = open_series.get(key)
        if index is None:
            index = len(series)
            series.append(Series(pairs, needed=needed))
            open_series[key] = index
        current = series[index]
        flipped = pairs[0] != current.sides[0]
        number = sum(1 for m in matches if m.series == index) + 1
        deciding = current.deciding
        if match.winner is not None:
            won = match.winner ^ flipped  # the series' side that won
            wins = tuple(w + (i == won) for i, w in enumerate(current.wins))
            current = Series(current.sides, wins, needed)
            series[index] = current
            if current.won_by is not None:
                del open_series[key]
        matches.append(InSeries(index, number, deciding, current.wins, flipped))
        for position, side in enumerate(match.sides):
            won = match.winner == position
            games = match.games if won else 0
            counted = match.winner is not None
            for count, who in ((sides, pairs[position]), *((players, p) for p in side)):
                was = count.get(who, Count(who))
                count[who] = Count(who, was.played + counted, was.won + won, was.games + games)
    return Tally(tuple(sides.values()), tuple(players.values()), tuple(series), tuple(matches))


# --- Games of each for themselves: shared -------------------------------------------------
#
# A side is one player. Seats run anticlockwise and the deal passes to the right, the next
# seat, as in the partnership game. docs/rules.md cites the sources of both games.


def _only(values: Sequence[int], value: int) -> int | None:
    """The seat holding `value`, if exactly one does; else None (a tie)."""
    holders = [seat for seat, held in enumerate(values) if held == value]
    return holders[0] if len(holders) == 1 else None


def _check_first_dealer(first_dealer: int, players: int) -> None:
    if not 0 <= first_dealer < players:
        raise ValueError("first_dealer is a seat index")


def _play_out(step, rules, standing, entries: Sequence, *, checked_from: int) -> tuple:
    """(the scored deals, the standing after them): each entry in turn by `step`, a game's
    next-deal function, checked from deal number `checked_from` on."""
    deals = []
    for number, entry in enumerate(entries, start=1):
        deal, standing = step(rules, standing, entry, check=number >= checked_from)
        deals.append(deal)
    return tuple(deals), standing


def _raise_if_invalid(errors: list[RuleError], number: int) -> None:
    """DealInvalid listing `errors`, each carrying the deal's number; nothing if none."""
    for error in errors:
        error.deal_number = number
    if errors:
        raise DealInvalid(errors)


# --- Terziglio (Calabresella): one soloist against two ------------------------------------


class Bid(StrEnum):
    CHIAMO = "chiamo"  # calls a card from the others and takes the monte
    SOLO = "solo"  # takes the monte, calls no card
    SOLISSIMO = "solissimo"  # plays the twelve cards dealt


class Payment(StrEnum):
    """What each opponent pays the soloist who wins (and is paid by one who loses)."""

    DIFFERENCE = "difference"  # the difference of card points (7–4 pays 3), times the bid's
    FLAT = "flat"  # 1, times the bid's


class TerziglioEnd(StrEnum):
    LINE = "line"  # when a balance reaches the line
    DEALS = "deals"  # after the agreed number of deals
    STOPPED = "stopped"  # when the table stops: no rule ends it


BID_MULTIPLIERS = {Bid.CHIAMO: 1, Bid.SOLO: 2, Bid.SOLISSIMO: 3}
TERZIGLIO_PLAYERS = 3
# A soloist needs most of the deal's 11 card points (the other two's are the rest): 6.
TERZIGLIO_SOLOIST_WINS = CARD_POINTS_PER_DEAL // 2 + 1
DEFAULT_DEALS, MIN_DEALS, MAX_DEALS = 12, 1, 99  # 12: each player deals four times


@dataclass(frozen=True)
class TerziglioTerms:
    """What a table of three agrees before a match: how a deal pays, when the match ends."""

    payment: Payment = Payment.DIFFERENCE
    end: TerziglioEnd = TerziglioEnd.LINE
    line: int = DEFAULT_LINE  # with end LINE: the balance that ends the match
    deals: int = DEFAULT_DEALS  # with end DEALS: how many deals the match has

    def __post_init__(self) -> None:
        check_line(self.line)
        if not MIN_DEALS <= self.deals <= MAX_DEALS:
            params = {"min": MIN_DEALS, "max": MAX_DEALS, "value": self.deals}
            raise RuleError("deals_out_of_range", params, part="deals")
        object.__setattr__(self, "payment", Payment(self.payment))
        object.__setattr__(self, "end", TerziglioEnd(self.end))

    def as_dict(self) -> dict:
        """As the change log keeps them: the number of deals only where it ends the match."""
        terms = {"payment": str(self.payment), "end": str(self.end), "line": self.line}
        return terms | ({"deals": self.deals} if self.end is TerziglioEnd.DEALS else {})


@dataclass(frozen=True)
class TerziglioRules(TerziglioTerms):
    """The terms, and the players' names, which the messages use."""

    player_names: tuple[str, str, str] = ("Player 1", "Player 2", "Player 3")

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.player_names) != TERZIGLIO_PLAYERS:
            raise ValueError("Terziglio has three players")
        object.__setattr__(self, "player_names", tuple(self.player_names))

    @property
    def end_reason(self) -> EndReason | None:
        """What ends a match played to these rules, as the result says it; None: the table
        stops it."""
        return {TerziglioEnd.LINE: EndReason.LINE, TerziglioEnd.DEALS: EndReason.DEALS}.get(
            self.end
        )


@dataclass(frozen=True)
class TerziglioEntry:
    """One deal: who played alone (seat 0-2), what they bid, and the card points they took,
    the last trick included; the other two took the rest of the 11. Nothing at all: the
    deal went a monte (all three passed) and scores nothing.

    >>> TerziglioEntry(0, Bid.CHIAMO, 7).a_monte, TerziglioEntry().a_monte
    (False, True)
    """

    soloist: int | None = None
    bid: Bid | None = None
    card_points: int | None = None

    def __post_init__(self) -> None:
        for value in (self.soloist, self.card_points):
            if not (value is None or _is_whole(value)):
                raise ValueError("soloist and card points are whole numbers or None")
        if self.bid is not None:
            object.__setattr__(self, "bid", Bid(self.bid))

    @property
    def a_monte(self) -> bool:
        return self.soloist is None and self.bid is None and self.card_points is None

    @property
    def soloist_won(self) -> bool | None:
        """Who played alone won, with 6 card points or more; None a monte.

        >>> TerziglioEntry(0, Bid.CHIAMO, 6).soloist_won, TerziglioEntry(1, Bid.SOLO, 5).soloist_won
        (True, False)
        """
        return None if self.card_points is None else self.card_points >= TERZIGLIO_SOLOIST_WINS

    @property
    def others_card_points(self) -> int | None:
        """What the other two took together: the rest of the 11; None a monte.

        >>> TerziglioEntry(0, Bid.CHIAMO, 7).others_card_points
        4
        """
        return None if self.card_points is None else CARD_POINTS_PER_DEAL - self.card_points


@dataclass(frozen=True)
class TerziglioStanding:
    """Where a match of three stands before its next deal: the balances (they sum to zero),
    how many deals, the winner once decided, who deals next."""

    balances: tuple[int, int, int] = (0, 0, 0)
    deals: int = 0
    winner: int | None = None
    next_dealer: int = 0

    @property
    def decided(self) -> bool:
        return self.winner is not None

    # Read as a match of two sides is (Standing): each player's balance is their total.
    @property
    def totals(self) -> tuple[int, int, int]:
        return self.balances

    @property
    def decided_for(self) -> int | None:
        return self.winner


@dataclass(frozen=True)
class TerziglioDeal:
    """One row of the sheet: what the deal moved each balance by, and the balances after."""

    number: int
    entry: TerziglioEntry
    changes: tuple[int, int, int]
    balances: tuple[int, int, int]
    dealer: int

    @property
    def soloist_won(self) -> bool | None:
        """None for a deal a monte."""
        return self.entry.soloist_won

    # Read as a row of two sides is (ScoredDeal): what each player's balance moved by, and
    # the balances after.
    @property
    def points(self) -> tuple[int, int, int]:
        return self.changes

    @property
    def totals(self) -> tuple[int, int, int]:
        return self.balances


class _ByItsStanding:
    """An outcome of a game each for themselves, read as an Outcome is (winner, decided, who
    deals next, the next deal's number) from where its deals leave it (`standing`)."""

    standing: "TerziglioStanding | APerdereStanding"

    @property
    def winner(self) -> int | None:
        return self.standing.winner

    @property
    def decided(self) -> bool:
        return self.standing.decided

    @property
    def next_dealer(self) -> int:
        return self.standing.next_dealer

    @property
    def next_number(self) -> int:
        return self.standing.deals + 1


@dataclass(frozen=True)
class TerziglioOutcome(_ByItsStanding):
    """Where a match of three stands after its deals; read as an Outcome is (totals, winner,
    decided, reason, another_deal), so that what ends, stops or lists a match reads any."""

    deals: tuple[TerziglioDeal, ...]
    standing: TerziglioStanding
    reason: EndReason | None = None
    another_deal: bool = False  # the match is over but the highest balances are level
    needs: tuple[int, ...] = (0, 0, 0)  # what each balance lacks to the line (0: no line)
    claimer = swept_alone = None  # no claims, no sweeps by one in Terziglio
    both_at_line = False  # the highest balance wins: no tie rule between two sides

    @property
    def totals(self) -> tuple[int, int, int]:
        return self.standing.balances


def terziglio_errors(
    rules: TerziglioRules, standing: TerziglioStanding, entry: TerziglioEntry
) -> list[RuleError]:
    """Every rule `entry` breaks as the next deal after `standing`: a deal played names its
    soloist, the bid and the soloist's card points (0 to 11).

    >>> rules = TerziglioRules(player_names=("Anna", "Bruno", "Carla"))
    >>> [str(e) for e in terziglio_errors(rules, TerziglioStanding(), TerziglioEntry(1))]
    ['Say what Bruno bid: chiamo, solo or solissimo.', 'Enter the card points Bruno took, the last trick included: 0 to 11.']
    """  # noqa: E501
    if standing.decided:
        return [RuleError("match_decided")]
    if entry.a_monte:
        return []
    if entry.soloist is None:
        return [RuleError("terziglio_soloist_required", part="soloist")]
    if entry.soloist >= TERZIGLIO_PLAYERS:
        return [RuleError("terziglio_soloist_not_seated", part="soloist")]
    params = {"player": rules.player_names[entry.soloist], "max": CARD_POINTS_PER_DEAL}
    errors = []
    if entry.bid is None:
        errors.append(RuleError("terziglio_bid_required", params, part="bid"))
    if entry.card_points is None:
        errors.append(RuleError("terziglio_card_points_required", params, part="card_points"))
    elif entry.card_points > CARD_POINTS_PER_DEAL:
        params = {**params, "value": entry.card_points}
        errors.append(RuleError("terziglio_card_points_too_high", params, part="card_points"))
    return errors


def terziglio_changes(
    entry: TerziglioEntry, payment: Payment = Payment.DIFFERENCE
) -> tuple[int, int, int]:
    """What a checked deal moves each balance by. Each of the two opponents pays the soloist
    who took 6 or more the stake, or is paid it by one who took less: the three changes sum
    to zero. The stake is the bid's multiplier (chiamo 1, solo 2, solissimo 3) times the
    difference of card points (DIFFERENCE) or times 1 (FLAT).

    Anna (seat 0) wins a chiamo 7–4: the difference is 3, so Bruno and Carla pay 3 each.

    >>> terziglio_changes(TerziglioEntry(0, Bid.CHIAMO, 7))
    (6, -3, -3)

    Bruno loses a solo 5–6: the difference 1, doubled, to each of the other two.

    >>> terziglio_changes(TerziglioEntry(1, Bid.SOLO, 5))
    (2, -4, 2)

    Carla wins a solissimo 8–3: the difference 5, tripled; flat, 1 tripled.

    >>> terziglio_changes(TerziglioEntry(2, Bid.SOLISSIMO, 8))
    (-15, -15, 30)
    >>> terziglio_changes(TerziglioEntry(2, Bid.SOLISSIMO, 8), Payment.FLAT)
    (-3, -3, 6)
    """
    if entry.a_monte:
        return (0, 0, 0)
    soloist, cards = entry.soloist, entry.card_points
    difference = cards - (CARD_POINTS_PER_DEAL - cards)  # never 0: 11 is odd
    per_opponent = abs(difference) if Payment(payment) is Payment.DIFFERENCE else 1
    stake = BID_MULTIPLIERS[entry.bid] * per_opponent
    stake = stake if entry.soloist_won else -stake
    changes = [-stake] * TERZIGLIO_PLAYERS
    changes[soloist] = 2 * stake
    return (changes[0], changes[1], changes[2])


def _terziglio_over(rules: TerziglioRules, balances: tuple[int, ...], deals: int) -> bool:
    """The match is over: a balance at the line, or the agreed number of deals played."""
    if rules.end is TerziglioEnd.LINE:
        return max(balances) >= rules.line
    return rules.end is TerziglioEnd.DEALS and deals >= rules.deals


def _terziglio_winner(rules: TerziglioRules, balances: tuple[int, ...], deals: int) -> int | None:
    """The highest balance wins once the match is over; two highest balances alike play
    another deal."""
    return _only(balances, max(balances)) if _terziglio_over(rules, balances, deals) else None


def next_terziglio_deal(
    rules: TerziglioRules, standing: TerziglioStanding, entry: TerziglioEntry, *, check: bool = True
) -> tuple[TerziglioDeal, TerziglioStanding]:
    """Check `entry` as the deal after `standing` (DealInvalid, its errors carrying the deal's
    number), score it, and say where it leaves the match.

    Line 21. Anna, 16 up, wins a chiamo 8–3 and reaches 26: she has won.

    >>> rules = TerziglioRules(player_names=("Anna", "Bruno", "Carla"))
    >>> deal, after = next_terziglio_deal(
    ...     rules, TerziglioStanding((16, -6, -10), 4, None, 1), TerziglioEntry(0, Bid.CHIAMO, 8)
    ... )
    >>> deal.number, deal.dealer, deal.changes, after
    (5, 1, (10, -5, -5), TerziglioStanding(balances=(26, -11, -15), deals=5, winner=0, next_dealer=2))
    """  # noqa: E501
    number = standing.deals + 1
    if check:
        _raise_if_invalid(terziglio_errors(rules, standing, entry), number)
    changes = terziglio_changes(entry, rules.payment)
    balances = tuple(b + c for b, c in zip(standing.balances, changes, strict=True))
    dealer = standing.next_dealer
    deal = TerziglioDeal(number, entry, changes, balances, dealer)
    winner = _terziglio_winner(rules, balances, number)
    return deal, TerziglioStanding(balances, number, winner, (dealer + 1) % TERZIGLIO_PLAYERS)


def evaluate_terziglio(
    rules: TerziglioRules,
    entries: Sequence[TerziglioEntry],
    *,
    first_dealer: int = 0,
    checked_from: int = 1,
) -> TerziglioOutcome:
    """Check and score every deal in order (those numbered before `checked_from` are scored
    as they stand, checked when stored) and say where the match stands.

    A chiamo won 7–4, a deal a monte, a solo lost 5–6, then a solissimo won 8–3: line 21.

    >>> rules = TerziglioRules(player_names=("Anna", "Bruno", "Carla"))
    >>> outcome = evaluate_terziglio(rules, [
    ...     TerziglioEntry(0, Bid.CHIAMO, 7),
    ...     TerziglioEntry(),
    ...     TerziglioEntry(1, Bid.SOLO, 5),
    ...     TerziglioEntry(2, Bid.SOLISSIMO, 8),
    ... ])
    >>> [deal.balances for deal in outcome.deals]
    [(6, -3, -3), (6, -3, -3), (8, -7, -1), (-7, -22, 29)]
    >>> outcome.standing.winner, outcome.standing.next_dealer
    (2, 1)
    """
    _check_first_dealer(first_dealer, TERZIGLIO_PLAYERS)
    start = TerziglioStanding(next_dealer=first_dealer)
    deals, standing = _play_out(
        next_terziglio_deal, rules, start, entries, checked_from=checked_from
    )
    over = _terziglio_over(rules, standing.balances, standing.deals)
    reason = rules.end_reason if standing.decided else None
    to_line = rules.end is TerziglioEnd.LINE
    needs = tuple(max(0, rules.line - b) if to_line else 0 for b in standing.balances)
    return TerziglioOutcome(deals, standing, reason, over and not standing.decided, needs)


# --- Tressette a perdere (Rovescino, Ciapanò, Traversone): fewest points ------------------


class APerdereEnd(StrEnum):
    LAST_IN = "last_in"  # who reaches the line is out; the last one in wins
    LOWEST = "lowest"  # the first to reach the line ends the match; the lowest total wins


class Fractions(StrEnum):
    """What becomes of the thirds a player's count leaves over."""

    OWN = "own"  # each player drops their own: 9 to 11 points a deal
    TO_LAST_TRICK = "to_last_trick"  # the last trick's taker is charged them all: always 11


A_PERDERE_PLAYERS = (3, 4, 5)
_DECK_CARDS = 40
# A deal's points in thirds: each ace 3, each figure 1, the last trick 3.
_DEAL_THIRDS = 3 * _ACES + _FIGURES + 3


def a_perdere_hands(players: int) -> tuple[int, int]:
    """(cards dealt to each player, cards left over). With three the one left over is a 4,
    worth nothing, or the dealer's discard, which goes to the last trick's taker: either way
    every point in the deck is taken.

    >>> [a_perdere_hands(players) for players in A_PERDERE_PLAYERS]
    [(13, 1), (10, 0), (8, 0)]
    """
    return divmod(_DECK_CARDS, players)


@cache
def a_perdere_totals(players: int, fractions: Fractions = Fractions.OWN) -> frozenset[int]:
    """Every total of card points a deal among `players` can have.

    The deck and the last trick hold 35 thirds, shared among the players' piles in any way
    (each pile holds whole tricks, but with 8 tricks or more a deal and at most 5 players
    that never limits who can take what). Each player drops their own fraction, so a deal
    loses up to two thirds a player: with two sides that is always 11 (the partnership
    game's), with three 10 or 11, with four or five 9 to 11. Charged to the last trick's
    taker, the thirds left over make it 11 whatever the players.

    >>> sorted(a_perdere_totals(3)), sorted(a_perdere_totals(4)), sorted(a_perdere_totals(5))
    ([10, 11], [9, 10, 11], [9, 10, 11])
    >>> sorted(a_perdere_totals(4, Fractions.TO_LAST_TRICK))
    [11]
    """
    if Fractions(fractions) is Fractions.TO_LAST_TRICK:
        return frozenset({_DEAL_THIRDS // 3})
    shares = {(0, 0)}  # (thirds taken, points counted) by the players so far
    for _ in range(players):
        shares = {
            (thirds + mine, points + mine // 3)
            for thirds, points in shares
            for mine in range(_DEAL_THIRDS - thirds + 1)
        }
    return frozenset(points for thirds, points in shares if thirds == _DEAL_THIRDS)


@dataclass(frozen=True)
class APerdereTerms:
    """What a table playing a perdere agrees before a match: the line, how the match ends,
    what becomes of the fractions, and whether it plays the reversed sweep."""

    line: int = DEFAULT_LINE
    end: APerdereEnd = APerdereEnd.LAST_IN
    fractions: Fractions = Fractions.OWN
    reversed_sweep: bool = True

    def __post_init__(self) -> None:
        check_line(self.line)
        object.__setattr__(self, "end", APerdereEnd(self.end))
        object.__setattr__(self, "fractions", Fractions(self.fractions))

    def as_dict(self) -> dict:
        """As the change log keeps them."""
        return {"line": self.line, "end": str(self.end), "fractions": str(self.fractions),
                "reversed_sweep": self.reversed_sweep}  # fmt: skip

    @property
    def end_reason(self) -> EndReason:
        """How a match played to these terms is won, as the result says it."""
        return EndReason.LAST_IN if self.end is APerdereEnd.LAST_IN else EndReason.LOWEST


@dataclass(frozen=True)
class APerdereRules(APerdereTerms):
    """The terms, and the players' names (3 to 5), which the messages use."""

    player_names: tuple[str, ...] = ("Player 1", "Player 2", "Player 3", "Player 4")

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.player_names) not in A_PERDERE_PLAYERS:
            params = {
                "min": A_PERDERE_PLAYERS[0],
                "max": A_PERDERE_PLAYERS[-1],
                "value": len(self.player_names),
            }
            raise RuleError("a_perdere_players", params, part="players")
        object.__setattr__(self, "player_names", tuple(self.player_names))

    @property
    def players(self) -> int:
        return len(self.player_names)


@dataclass(frozen=True)
class APerdereEntry:
    """One deal: each player's card points, the last trick included (0 for a player out),
    and `sweeper`, the player who took every point (the reversed sweep), or None.

    >>> APerdereEntry((11, 0, 0, 0), sweeper=0).sweeper
    0
    """

    card_points: tuple[int, ...]
    sweeper: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "card_points", tuple(self.card_points))
        if not all(map(_is_whole, self.card_points)):
            raise ValueError("card points are whole numbers, 0 or more")
        if not (self.sweeper is None or _is_whole(self.sweeper)):
            raise ValueError("sweeper is a seat or None")

    @classmethod
    def swept(cls, sweeper: int, players: int) -> "APerdereEntry":
        """The reversed sweep as its card points stand: every point the sweeper's.

        >>> APerdereEntry.swept(1, 3)
        APerdereEntry(card_points=(0, 11, 0), sweeper=1)
        """
        cards = [CARD_POINTS_PER_DEAL if seat == sweeper else 0 for seat in range(players)]
        return cls(cards, sweeper)


@dataclass(frozen=True)
class APerdereStanding:
    """Where the match stands before its next deal: each player's total, how many deals,
    the deal after which each player went out (None while in), the winner once decided,
    who deals next."""

    totals: tuple[int, ...]
    deals: int = 0
    out_after: tuple[int | None, ...] = ()
    winner: int | None = None
    next_dealer: int = 0

    def __post_init__(self) -> None:
        if not self.out_after:
            object.__setattr__(self, "out_after", (None,) * len(self.totals))

    @property
    def decided(self) -> bool:
        return self.winner is not None

    @property
    def still_in(self) -> tuple[int, ...]:
        return tuple(seat for seat, out in enumerate(self.out_after) if out is None)

    @property
    def decided_for(self) -> int | None:  # as a match of two sides keeps it (Standing)
        return self.winner


def a_perdere_dealer(first_dealer: int, deals: int, out_after: Sequence[int | None]) -> int:
    """Who deals the deal after `deals`: the deal passes to the right, to the next player
    still in after each deal (`out_after`: the deal after which each went out, or None).

    Four players, Anna first; Carla went out after deal 3: Dino deals deal 4, Anna deal 5.

    >>> [a_perdere_dealer(0, deals, (None, None, 3, None)) for deals in range(6)]
    [0, 1, 2, 3, 0, 1]
    """
    dealer = first_dealer
    for number in range(1, deals + 1):
        dealer = _next_in(dealer, [out is None or out > number for out in out_after])
    return dealer


def a_perdere_rematch_dealer(first_dealer: int, deals: int, out_after: Sequence[int | None]) -> int:
    """Who deals first in a rematch, everyone in again: the player to the right of the last
    deal's dealer, out or not (the first dealer again if no deal was played).

    Dino dealt first; Anna went out after deal 3, Bruno after 4: Dino dealt deal 5, with
    Carla, the last two in. Anna, to his right, deals the rematch.

    >>> a_perdere_dealer(3, 4, (3, 4, None, None)), a_perdere_rematch_dealer(3, 5, (3, 4, 5, None))
    (3, 0)
    """
    if not deals:
        return first_dealer
    last = a_perdere_dealer(first_dealer, deals - 1, out_after)
    return (last + 1) % len(out_after)


def _next_in(dealer: int, still_in: Sequence[bool]) -> int:
    """The seat the deal passes to from `dealer`: the next to the right still in."""
    players = len(still_in)
    return next(seat for seat in ((dealer + step) % players for step in range(1, players + 1))
                if still_in[seat])  # fmt: skip


@dataclass(frozen=True)
class APerdereDeal:
    """One row of the sheet: the points the deal charged, the totals after, who went out."""

    number: int
    entry: APerdereEntry
    points: tuple[int, ...]
    totals: tuple[int, ...]
    dealer: int
    out: tuple[int, ...]  # the players this deal put out


@dataclass(frozen=True)
class APerdereOutcome(_ByItsStanding):
    """Where a match a perdere stands after its deals; read as an Outcome is (totals, winner,
    decided, reason, needs), so that what ends, stops or lists a match reads any."""

    deals: tuple[APerdereDeal, ...]
    standing: APerdereStanding
    reason: EndReason | None = None
    line: int = DEFAULT_LINE
    claimer = swept_alone = None  # no claims, no sweeps of a side
    both_at_line = False

    @property
    def totals(self) -> tuple[int, ...]:
        return self.standing.totals

    @property
    def another_deal(self) -> bool:
        """The line is reached, by a player still in, and those level at the lowest play on."""
        at_line = any(self.totals[seat] >= self.line for seat in self.standing.still_in)
        return at_line and not self.decided

    @property
    def needs(self) -> tuple[int, ...]:
        """What each player still in may yet take before the line; 0 for one out."""
        out = self.standing.out_after
        return tuple(
            0 if out[seat] is not None else max(0, self.line - total)
            for seat, total in enumerate(self.totals)
        )


def a_perdere_errors(
    rules: APerdereRules, standing: APerdereStanding, entry: APerdereEntry
) -> list[RuleError]:
    """Every rule `entry` breaks as the next deal after `standing`: one number a player, 0
    for those out; the reversed sweep where the table plays it, by a player still in who
    took all 11; else a total the deck allows for the players still in.

    >>> rules = APerdereRules(player_names=("Anna", "Bruno", "Carla", "Dino"))
    >>> start = APerdereStanding((0, 0, 0, 0))
    >>> [str(e) for e in a_perdere_errors(rules, start, APerdereEntry((4, 3, 2, 3)))]
    ['Check the counts: with 4 players in, card points (the last trick included) add up to 9 to 11, not 12.']
    """  # noqa: E501
    if standing.decided:
        return [RuleError("match_decided")]
    names, cards, still_in = rules.player_names, entry.card_points, standing.still_in
    if len(cards) != rules.players:
        return [RuleError("a_perdere_points_count", {"count": rules.players}, part="card_points")]
    out_with_points = [
        RuleError("a_perdere_player_out", {"player": names[seat]}, part="card_points", side=seat)
        for seat in range(rules.players)
        if seat not in still_in and cards[seat]
    ]
    if out_with_points:
        return out_with_points
    if entry.sweeper is not None:
        return _reversed_sweep_errors(rules, still_in, entry)
    total, possible = sum(cards), a_perdere_totals(len(still_in), rules.fractions)
    if total not in possible:
        params = {"count": len(still_in), "sum": total, "min": min(possible), "max": max(possible)}
        code = "a_perdere_total" if len(possible) > 1 else "a_perdere_total_exact"
        return [RuleError(code, {**params, "expected": min(possible)}, part="card_points")]
    if rules.reversed_sweep and CARD_POINTS_PER_DEAL in cards:
        sweeper = cards.index(CARD_POINTS_PER_DEAL)
        params = {"player": names[sweeper], "points": CARD_POINTS_PER_DEAL}
        return [RuleError("a_perdere_sweep_unmarked", params, part="sweeper")]
    return []


def _reversed_sweep_errors(
    rules: APerdereRules, still_in: tuple[int, ...], entry: APerdereEntry
) -> list[RuleError]:
    sweeper = entry.sweeper
    if not rules.reversed_sweep:
        return [RuleError("a_perdere_sweep_not_played", part="sweeper")]
    if sweeper not in still_in:
        return [RuleError("a_perdere_sweeper_not_in", part="sweeper")]
    if entry.card_points != APerdereEntry.swept(sweeper, rules.players).card_points:
        params = {"player": rules.player_names[sweeper], "points": CARD_POINTS_PER_DEAL}
        return [RuleError("a_perdere_sweeper_points", params, part="card_points", side=sweeper)]
    return []


def a_perdere_points(entry: APerdereEntry, still_in: Sequence[int]) -> tuple[int, ...]:
    """What a checked deal charges each player: their card points; in the reversed sweep, 0
    to the sweeper and the full 11 to every other player still in.

    >>> a_perdere_points(APerdereEntry((11, 0, 0, 0), sweeper=0), still_in=(0, 1, 3))
    (0, 11, 0, 11)
    """
    if entry.sweeper is None:
        return entry.card_points
    return tuple(
        CARD_POINTS_PER_DEAL if seat in still_in and seat != entry.sweeper else 0
        for seat in range(len(entry.card_points))
    )


def _a_perdere_settle(
    rules: APerdereRules, still_in: tuple[int, ...], totals: tuple[int, ...]
) -> tuple[tuple[int, ...], int | None]:
    """(who goes out, the winner or None) once a deal's points are added.

    Last one in: those at or past the line go out, and the one left wins. When every player
    still in reaches it at once, the lowest total wins; the lowest alike play on. Lowest:
    once anyone reaches the line, the lowest total wins; the lowest alike play on.
    """
    reached = tuple(seat for seat in still_in if totals[seat] >= rules.line)
    if not reached:
        return (), None
    if rules.end is APerdereEnd.LOWEST:
        return (), _only(totals, min(totals))
    left = [seat for seat in still_in if seat not in reached]
    if len(left) > 1:
        return reached, None
    if left:
        return reached, left[0]
    lowest = min(totals[seat] for seat in still_in)
    stay = [seat for seat in still_in if totals[seat] == lowest]
    return tuple(seat for seat in reached if seat not in stay), stay[0] if len(stay) == 1 else None


def next_a_perdere_deal(
    rules: APerdereRules, standing: APerdereStanding, entry: APerdereEntry, *, check: bool = True
) -> tuple[APerdereDeal, APerdereStanding]:
    """Check `entry` as the deal after `standing` (DealInvalid, its errors carrying the deal's
    number), score it, and say where it leaves the match; the deal passes to the next player
    still in.

    Line 21, last one in wins. Carla, at 19, is charged 2 and goes out; Bruno deals next.

    >>> rules = APerdereRules(player_names=("Anna", "Bruno", "Carla"))
    >>> deal, after = next_a_perdere_deal(
    ...     rules, APerdereStanding((12, 15, 19), 6, next_dealer=0), APerdereEntry((5, 4, 2))
    ... )
    >>> deal.totals, deal.out, after.still_in, after.winner, after.next_dealer
    ((17, 19, 21), (2,), (0, 1), None, 1)
    """
    number = standing.deals + 1
    if check:
        _raise_if_invalid(a_perdere_errors(rules, standing, entry), number)
    still_in = standing.still_in
    points = a_perdere_points(entry, still_in)
    totals = tuple(total + point for total, point in zip(standing.totals, points, strict=True))
    out, winner = _a_perdere_settle(rules, still_in, totals)
    out_after = tuple(number if seat in out else was for seat, was in enumerate(standing.out_after))
    dealer = standing.next_dealer
    next_dealer = _next_in(dealer, [out is None for out in out_after])
    deal = APerdereDeal(number, entry, points, totals, dealer, out)
    return deal, APerdereStanding(totals, number, out_after, winner, next_dealer)


def evaluate_a_perdere(
    rules: APerdereRules,
    entries: Sequence[APerdereEntry],
    *,
    first_dealer: int = 0,
    checked_from: int = 1,
) -> APerdereOutcome:
    """Check and score every deal in order (those numbered before `checked_from` are scored
    as they stand, checked when stored) and say where the match stands.

    Four players, line 21, the last one in wins. Dino takes every point in the second deal:
    11 to each of the others. Anna goes out after the third deal, Bruno after the fourth,
    Carla after the fifth, played by two: Dino wins.

    >>> rules = APerdereRules(player_names=("Anna", "Bruno", "Carla", "Dino"))
    >>> outcome = evaluate_a_perdere(rules, [
    ...     APerdereEntry((5, 3, 2, 0)),
    ...     APerdereEntry((0, 0, 0, 11), sweeper=3),
    ...     APerdereEntry((6, 1, 2, 1)),
    ...     APerdereEntry((0, 7, 1, 2)),
    ...     APerdereEntry((0, 0, 5, 6)),
    ... ])
    >>> [deal.totals for deal in outcome.deals]
    [(5, 3, 2, 0), (16, 14, 13, 0), (22, 15, 15, 1), (22, 22, 16, 3), (22, 22, 21, 9)]
    >>> outcome.standing.out_after, outcome.standing.winner
    ((3, 4, 5, None), 3)
    """
    _check_first_dealer(first_dealer, rules.players)
    start = APerdereStanding((0,) * rules.players, next_dealer=first_dealer)
    deals, standing = _play_out(
        next_a_perdere_deal, rules, start, entries, checked_from=checked_from
    )
    reason = rules.end_reason if standing.decided else None
    return APerdereOutcome(deals, standing, reason, rules.line)
