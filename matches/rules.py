"""Every scoring rule of Tressette, in plain Python (no Django).

Each deal, each side scores one whole number: its card points plus its
declared points. The rules' own worked deal: Alice and Carla declare a
Napoletana in cups (3), their tricks hold cards worth 7⅓ (7 once the third
is dropped) and they take the last trick (1): 3 + 7 + 1 = 11. Beppe and
Dino's tricks are worth 3⅓, so 3. On the sheet that is card points 8 and 3
(card points include the last trick), declared points 3 and 0:

>>> rules = MatchRules(side_names=("Alice & Carla", "Beppe & Dino"))
>>> deal = check_deal(rules, [], DealEntry(card_points=(8, 3), declared_points=(3, 0)))
>>> deal.points, deal.totals
((11, 3), (11, 3))

Forms, services and importers call this module; nothing else computes a
score. Every refusal is a `RuleError` carrying an untranslated message
template (marked with `gettext_noop` so Django's makemessages finds it), its
params, a stable `code` and the form `field` it belongs to. `check_deal` and
`evaluate` collect every error of a deal into one `DealInvalid`.
"""

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache


def gettext_noop(message: str) -> str:
    """Mark a message for translation; it is translated where it is shown."""
    return message


class DealKind(StrEnum):
    NORMAL = "normal"
    CAPPOTTO = "cappotto"
    STRAMAZZO = "stramazzo"
    CLAIM = "claim"


class TieRule(StrEnum):
    HIGHER_TOTAL = "higher_total"
    ANOTHER_DEAL = "another_deal"


class EndReason(StrEnum):
    LINE = "line"
    CAPPOTTO = "cappotto"
    STRAMAZZO = "stramazzo"
    CLAIM = "claim"


CARD_POINTS_PER_DEAL = 11
# A claim stops the deal before the last trick: at most 10⅔ in the tricks, fractions dropped.
CLAIM_CARD_POINTS = CARD_POINTS_PER_DEAL - 1
DEFAULT_LINE = 21
MIN_LINE = 11
MAX_LINE = 101
COMMON_LINES = (21, 31, 41)
MAX_ENTRY = 999

_SWEEPS = (DealKind.CAPPOTTO, DealKind.STRAMAZZO)
_ACES = 4
_FIGURES = 20  # the 3s, 2s, kings, cavalli and fanti: a third of a point each


class RuleError(ValueError):
    """One broken rule: `str(err)` is the English message, `template % params`.

    `field` names the form field it belongs to ("card_points_0", "side", ...,
    or "" for the whole deal); `deal_number` is set once the deal is known.
    """

    def __init__(
        self,
        code: str,
        template: str,
        params: dict[str, object] | None = None,
        *,
        field: str = "",
        deal_number: int | None = None,
    ) -> None:
        self.code = code
        self.template = template
        self.params = dict(params or {})
        self.field = field
        self.deal_number = deal_number
        super().__init__(str(self))

    def __str__(self) -> str:
        return self.template % self.params

    def __repr__(self) -> str:
        return f"RuleError({self.code!r}, field={self.field!r}, deal_number={self.deal_number!r})"


class DealInvalid(ValueError):
    """Everything wrong with one deal at once, as a list of `RuleError`."""

    def __init__(self, errors: Sequence[RuleError]) -> None:
        self.errors = list(errors)
        super().__init__(" ".join(str(error) for error in self.errors))

    @property
    def codes(self) -> list[str]:
        return [error.code for error in self.errors]


# --- Entries ---------------------------------------------------------------

# Digits of any script (\d is Unicode's decimal digits, which int() reads): a phone's keypad
# may type a full-width or an Arabic-Indic 7.
_DIGITS_TEXT = re.compile(r"\d+")
# Each digit can be matched one way only (possessive runs): a long typed string that fails
# to match is refused in one pass, where "\d+[.,]?\d*" tried every split of its digits.
_NEGATIVE_TEXT = re.compile(r"[-\u2212](?:\d++(?:[.,]\d*+)?|[.,]\d++)")
# A whole part and a fraction: 7.33, 7,5, .5, 7⅓, 7 ⅔, 7½.
_DECIMAL_TEXT = re.compile(
    r"(\d*+)(?:[.,]\d++|(?<=\d)[.,])|(\d*+) ?+[\u2153\u2154\u00bd\u00bc\u00be]"
)
# Declarations added up as the chips do (+3, +4): "3+4" and "+7" are 7.
_SUM_TEXT = re.compile(r"\+?+ *+\d++(?: *+\+ *+\d++)*+")
_BLANK = gettext_noop("%(label)s is empty: enter a whole number, like 7.")
_NOT_A_NUMBER = gettext_noop("%(label)s must be a number, like 7.")
_NOT_WHOLE = gettext_noop("%(label)s must be a whole number, like 7.")
_FRACTION_DROPPED = gettext_noop(
    "%(label)s must be a whole number: each side drops its own fraction, so %(typed)s is %(whole)s."
)
_NEGATIVE = gettext_noop("%(label)s cannot be negative.")
_TOO_LARGE = gettext_noop("%(label)s is too large: at most %(max)s.")


def parse_entry(raw: object, *, field: str, label: str) -> int:
    """Read one typed number: a whole number from 0 to MAX_ENTRY, or a RuleError.

    `label` is the human name of what was typed, put into the message.

    >>> parse_entry(" 07 ", field="card_points_0", label="Alice & Carla card points")
    7
    >>> parse_entry("7⅓", field="card_points_0", label="Card points")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    matches.rules.RuleError: Card points must be a whole number: each side drops its own ...

    Declarations may be typed as the chips add them up:

    >>> parse_entry("3 + 4", field="declared_points_0", label="Declarations")
    7
    """
    # Past MAX_ENTRY a number is refused unread; card points are said at their own most.
    most = CARD_POINTS_PER_DEAL if field.startswith("card_points") else MAX_ENTRY
    params = {"label": label, "max": most}
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        raise RuleError("blank", _BLANK, params, field=field)
    if isinstance(raw, bool):
        raise RuleError("not_a_number", _NOT_A_NUMBER, params, field=field)
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if isinstance(raw, int):
        if raw < 0:
            raise RuleError("negative", _NEGATIVE, params, field=field)
        if raw > MAX_ENTRY:
            raise RuleError("too_large", _TOO_LARGE, params, field=field)
        return raw
    if isinstance(raw, float) and math.isfinite(raw):
        code, template = ("negative", _NEGATIVE) if raw < 0 else ("not_whole", _NOT_WHOLE)
        raise RuleError(code, template, params, field=field)
    if not isinstance(raw, str):
        raise RuleError("not_a_number", _NOT_A_NUMBER, params, field=field)
    text = raw.strip()
    if _NEGATIVE_TEXT.fullmatch(text):
        raise RuleError("negative", _NEGATIVE, params, field=field)
    if fraction := _DECIMAL_TEXT.fullmatch(text):
        whole = _whole(fraction[1] or fraction[2] or "", params, field)
        if not field.startswith("card_points") or whole > CARD_POINTS_PER_DEAL:
            raise RuleError("not_whole", _NOT_WHOLE, params, field=field)
        # Card points counted in thirds: the rules drop a side's own fraction (7⅓ is 7).
        shown = text if len(text) <= 8 else f"{text[:7]}…"
        params.update(typed=shown, whole=whole)
        raise RuleError("not_whole", _FRACTION_DROPPED, params, field=field)
    # A sum longer than any table types is not read (a huge one took most of a second).
    if field.startswith("declared_points") and len(text) <= 64 and _SUM_TEXT.fullmatch(text):
        total = sum(_whole(part.strip(), params, field) for part in text.split("+") if part)
        if total > MAX_ENTRY:
            raise RuleError("too_large", _TOO_LARGE, params, field=field)
        return total
    if not _DIGITS_TEXT.fullmatch(text):
        raise RuleError("not_a_number", _NOT_A_NUMBER, params, field=field)
    return _whole(text, params, field)


def _whole(digits: str, params: dict, field: str) -> int:
    """Digits (of any script, leading zeros too) as a number up to MAX_ENTRY; "" is 0."""
    start = 0  # past the leading zeros, of any script
    while start < len(digits) and unicodedata.decimal(digits[start]) == 0:
        start += 1
    significant = digits[start:]
    # Compare lengths first: int() refuses strings of thousands of digits.
    if len(significant) > len(str(MAX_ENTRY)) or int(significant or "0") > MAX_ENTRY:
        raise RuleError("too_large", _TOO_LARGE, params, field=field)
    return int(significant or "0")


def check_line(line: object) -> int:
    """The line the match is played to: a whole number from 11 to 101.

    >>> check_line("31")
    31
    """
    params: dict[str, object] = {"min": MIN_LINE, "max": MAX_LINE}
    try:
        value = parse_entry(line, field="line", label="")
    except RuleError:
        raise RuleError(
            "line_not_whole",
            gettext_noop("The line must be a whole number from %(min)s to %(max)s."),
            params,
            field="line",
        ) from None
    if not MIN_LINE <= value <= MAX_LINE:
        raise RuleError(
            "line_out_of_range",
            gettext_noop("The line must be from %(min)s to %(max)s, not %(value)s."),
            {**params, "value": value},
            field="line",
        )
    return value


# --- Settings and entries ----------------------------------------------------


@dataclass(frozen=True)
class MatchRules:
    """What the table agreed before the match.

    `line` is checked with `check_line` and a tie rule given as text becomes a TieRule.
    """

    line: int = DEFAULT_LINE
    tie_rule: TieRule = TieRule.HIGHER_TOTAL
    claims_allowed: bool = False
    side_names: tuple[str, str] = ("Side 1", "Side 2")

    def __post_init__(self) -> None:
        object.__setattr__(self, "line", check_line(self.line))
        object.__setattr__(self, "tie_rule", TieRule(self.tie_rule))
        if len(self.side_names) != 2:
            raise ValueError("side_names needs exactly two names")
        object.__setattr__(self, "side_names", tuple(self.side_names))


@dataclass(frozen=True)
class DealEntry:
    """What a phone enters for one deal; card points include the last-trick point.

    `side` is the sweeping side (cappotto, stramazzo) or the claiming side (claim),
    and None for a played-out deal.
    """

    card_points: tuple[int, int]
    declared_points: tuple[int, int]
    kind: DealKind = DealKind.NORMAL
    side: int | None = None


@dataclass(frozen=True)
class ScoredDeal:
    """One row of the sheet: the deal's points and the running totals after it."""

    number: int
    entry: DealEntry
    points: tuple[int, int]
    totals: tuple[int, int]
    dealer: int


@dataclass(frozen=True)
class Outcome:
    """Everything the sheet shows about a match after its deals."""

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
        """The side whose claim decided the match (the last deal names it), else None: the
        winner when the claim was right, the other side when it was wrong."""
        return self.deals[-1].entry.side if self.reason == EndReason.CLAIM else None


# --- Card points -------------------------------------------------------------


def _sweep_side_required() -> RuleError:
    return RuleError(
        "sweep_side_required", gettext_noop("Say which side swept the deal."), field="side"
    )


def is_sweep(kind: str) -> bool:
    """A cappotto or a stramazzo: the sweeper's points are what takes it to the line."""
    return kind in _SWEEPS


def complete_card_points(
    first: int | None,
    second: int | None,
    *,
    kind: str | None = DealKind.NORMAL,
    side: int | None = None,
) -> tuple[int, int]:
    """Both sides' card points when only one was typed: a played-out deal makes 11.

    >>> complete_card_points(8, None)
    (8, 3)
    >>> complete_card_points(None, 11, kind="cappotto")
    (0, 11)

    A cappotto needs none typed: the side that took every trick took every card point.

    >>> complete_card_points(None, None, kind="cappotto", side=1)
    (0, 11)

    A sweep with its side picked fills in a blank side by the sweep's rule, not as 11 minus
    the other: what is wrong is then said of the number typed (a cappotto's sweeper at 10 is
    10 against 0, not 10 against 1 and the blank side's fault).

    >>> complete_card_points(10, None, kind="cappotto", side=0)
    (10, 0)
    >>> complete_card_points(None, 1, kind="stramazzo", side=0)
    (10, 1)

    A claim stops the deal early, so the other side's pile is not all the rest: a side left
    blank took none. With both blank nothing was counted yet, and the claim is not scored.

    >>> complete_card_points(7, None, kind="claim")
    (7, 0)
    """
    if first is None and second is None and kind == DealKind.CAPPOTTO:
        if side not in (0, 1):
            raise _sweep_side_required()
        return (CARD_POINTS_PER_DEAL, 0) if side == 0 else (0, CARD_POINTS_PER_DEAL)
    if (first is None) != (second is None) and is_sweep(kind) and side in (0, 1):
        cards = [first, second]
        if cards[side] is None:  # every card point; in a stramazzo, maybe the last trick's not
            other = cards[1 - side]
            stramazzo = kind == DealKind.STRAMAZZO and other in (0, 1)
            cards[side] = CARD_POINTS_PER_DEAL - other if stramazzo else CARD_POINTS_PER_DEAL
        else:  # none; in a stramazzo, maybe the last trick's
            left = CARD_POINTS_PER_DEAL - cards[side]
            cards[1 - side] = left if kind == DealKind.STRAMAZZO and left in (0, 1) else 0
        return (cards[0], cards[1])
    if first is None and second is None and kind == DealKind.CLAIM:
        # A claim decides the match on the points so far: nothing typed is not taken as 0.
        raise RuleError(
            "claim_card_points_missing",
            gettext_noop(
                "A claim counts the card points taken so far: type them (0 for a side that "
                "took none)."
            ),
            field="card_points_0",
        )
    if first is None and second is None:
        raise RuleError(
            "card_points_missing",
            gettext_noop("Enter the card points of at least one side."),
            field="card_points_0",
        )
    if kind == DealKind.CLAIM:
        return (first or 0, second or 0)
    if second is None:
        return (first, max(0, CARD_POINTS_PER_DEAL - first))
    if first is None:
        return (max(0, CARD_POINTS_PER_DEAL - second), second)
    return (first, second)


def card_points_from_count(
    *, aces: int, figures: int, last_trick: bool, claim: bool = False
) -> tuple[int, int | None]:
    """Both sides' card points from one side's pile: (this side's, the other side's).

    An ace is 1 point (3 thirds), a figure (3, 2, king, cavallo, fante) a third,
    the last trick 1 (3 thirds): 35 thirds a deal. Each side drops its own
    fraction, so the two always come to 11. The worked deal: Alice and Carla
    hold 3 aces and 13 figures (7⅓) and the last trick, 25 thirds = 8;
    Beppe and Dino the other ace and 7 figures, 10 thirds = 3.

    >>> card_points_from_count(aces=3, figures=13, last_trick=True)
    (8, 3)
    >>> card_points_from_count(aces=2, figures=4, last_trick=True)
    (4, 7)

    A claim stops the deal early: the cards still in hand belong to nobody yet,
    so the other side's points are not the rest (None), and nobody took the
    last trick.

    >>> card_points_from_count(aces=2, figures=4, last_trick=False, claim=True)
    (3, None)
    """
    if isinstance(aces, bool) or not isinstance(aces, int) or not 0 <= aces <= _ACES:
        raise RuleError(
            "aces_out_of_range",
            gettext_noop("A side can win from 0 to %(max)s aces, not %(value)s."),
            {"max": _ACES, "value": aces},
            field="aces",
        )
    if isinstance(figures, bool) or not isinstance(figures, int) or not 0 <= figures <= _FIGURES:
        raise RuleError(
            "figures_out_of_range",
            gettext_noop(
                "A side can win from 0 to %(max)s figures (3s, 2s, kings, cavalli and fanti), "
                "not %(value)s."
            ),
            {"max": _FIGURES, "value": figures},
            field="figures",
        )
    if claim and last_trick:
        raise RuleError(
            "claim_last_trick",
            gettext_noop("A claim stops the deal before the last trick: nobody took it."),
            field="last_trick",
        )
    last = 1 if last_trick else 0
    this_side = 3 * aces + figures + 3 * last
    if claim:
        return this_side // 3, None
    other_side = 3 * (_ACES - aces) + (_FIGURES - figures) + 3 * (1 - last)
    return this_side // 3, other_side // 3


# --- Declarations (accusi) ---------------------------------------------------
#
# Only the 3s, 2s and aces declare: 12 cards, one bit each (rank * 4 + suit),
# so a hand's share of them is a 12-bit mask. A set of possible totals is an
# int whose bit v is set when the total v is possible.

_DECLARING_CARDS = 12
_ALL_DECLARING = (1 << _DECLARING_CARDS) - 1
_HAND_SIZE = 10
_RANK_MASKS = tuple(0b1111 << (4 * rank) for rank in range(3))  # four 3s, four 2s, four aces
_SUIT_MASKS = tuple(sum(1 << (4 * rank + suit) for rank in range(3)) for suit in range(4))


def _hand_totals(hand: int) -> int:
    """The declared totals one hand can announce, as a bit set.

    Three of a rank = 3, four = 4, each Napoletana = 3; the same card may count
    in several, and the player may leave any of them undeclared.
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

    A side of one player (tressette in due) is one hand of ten. A side of two
    is two hands: the cards it holds split between them in every way (submask
    iteration, 3^12 splits), neither hand holding more than ten.
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
    """For each set of declaring cards one side does not hold, the other side's possible totals.

    With four players all forty cards are dealt: the other side holds exactly
    those. In due twenty cards stay in the monte, so the other hand holds any
    part of them (an OR over subsets, one card at a time).
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


# --- Seats and dealing -------------------------------------------------------


def seats(players_per_side: int) -> int:
    """Seats at the table: 4 for the partnership game, 2 for tressette in due."""
    if players_per_side not in (1, 2):
        raise ValueError("a side has one or two players")
    return 2 * players_per_side


def seat_player(seat: int) -> tuple[int, int]:
    """(side, player index within the side) sitting at `seat`.

    Seats run anticlockwise with partners opposite: seat 0 is side 0's first
    player, seat 1 side 1's first, seat 2 side 0's second, seat 3 side 1's second.

    >>> seat_player(3)
    (1, 1)
    """
    return seat % 2, seat // 2


def _check_seating(first_dealer: int, seat_count: int) -> None:
    if seat_count not in (2, 4):
        raise ValueError("seat_count is 2 or 4")
    if not 0 <= first_dealer < seat_count:
        raise ValueError("first_dealer is a seat index")


def dealer_for(number: int, *, first_dealer: int, seat_count: int) -> int:
    """The seat that deals deal `number` (1-based).

    Play and the deal pass anticlockwise, to the right, which is the next seat
    index; the player on the dealer's right (the next seat) leads the first trick.

    >>> [dealer_for(n, first_dealer=3, seat_count=4) for n in range(1, 6)]
    [3, 0, 1, 2, 3]
    """
    _check_seating(first_dealer, seat_count)
    if number < 1:
        raise ValueError("deals are numbered from 1")
    return (first_dealer + number - 1) % seat_count


# --- Checking and scoring deals ---------------------------------------------


@dataclass(frozen=True)
class _Tally:
    totals: tuple[int, int] = (0, 0)
    decided: bool = False
    winner: int | None = None
    reason: EndReason | None = None
    another_deal: bool = False


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _deal_errors(
    rules: MatchRules, tally: _Tally, entry: DealEntry, players_per_side: int, typed: bool
) -> list[RuleError]:
    """Every rule `entry` breaks as the next deal after `tally`; `typed` when a person has
    just entered it (see evaluate)."""
    if tally.decided:
        return [
            RuleError("match_decided", gettext_noop("The match is already decided: no more deals."))
        ]
    names = rules.side_names
    errors: list[RuleError] = []

    try:
        kind: DealKind | None = DealKind(entry.kind)
    except (TypeError, ValueError):
        kind = None
        errors.append(
            RuleError(
                "unknown_kind",
                gettext_noop("%(value)s is not a kind of deal."),
                {"value": entry.kind},
                field="kind",
            )
        )
    if kind is DealKind.CLAIM and not rules.claims_allowed:
        errors.append(
            RuleError(
                "claims_not_allowed",
                gettext_noop("Claims are not allowed in this match."),
                field="kind",
            )
        )
    elif kind is DealKind.CLAIM and tally.another_deal:
        # Both sides already stand at the line: a claim could not be wrong.
        errors.append(
            RuleError(
                "claim_after_tie",
                gettext_noop(
                    "Both sides have already reached the line: the tie rule settles this deal, "
                    "not a claim."
                ),
                field="kind",
            )
        )

    side = entry.side if entry.side in (0, 1) and not isinstance(entry.side, bool) else None
    side_ok = side is not None
    if kind is DealKind.NORMAL and entry.side is not None:
        errors.append(
            RuleError(
                "side_not_allowed",
                gettext_noop("Only a sweep or a claim names a side; a played-out deal does not."),
                field="side",
            )
        )
    elif kind in _SWEEPS and not side_ok:
        errors.append(_sweep_side_required())
    elif kind is DealKind.CLAIM and not side_ok:
        errors.append(
            RuleError("claim_side_required", gettext_noop("Say which side claimed."), field="side")
        )

    cards = entry.card_points
    declared = entry.declared_points
    cards_ok = True
    for i in (0, 1):
        if not _is_whole(cards[i]):
            cards_ok = False
            errors.append(
                RuleError(
                    "card_points_not_whole",
                    gettext_noop("%(side)s: card points must be a whole number, not %(value)s."),
                    {"side": names[i], "value": cards[i]},
                    field=f"card_points_{i}",
                )
            )
        elif cards[i] > CARD_POINTS_PER_DEAL:
            cards_ok = False
            errors.append(
                RuleError(
                    "card_points_too_high",
                    gettext_noop("%(side)s: card points cannot be more than %(max)s."),
                    {"side": names[i], "value": cards[i], "max": CARD_POINTS_PER_DEAL},
                    field=f"card_points_{i}",
                )
            )

    if cards_ok and kind in _SWEEPS and side is not None:
        other = 1 - side
        params = {"side": names[other], "value": cards[other]}
        # The sweeper's own points first: with both wrong (10 against 1 in a cappotto), the
        # mistake is said once, of the side that swept.
        if kind is DealKind.CAPPOTTO and cards[side] != CARD_POINTS_PER_DEAL:
            cards_ok = False
            errors.append(
                RuleError(
                    "cappotto_sweeper_card_points",
                    gettext_noop(
                        "In a cappotto %(side)s took every trick, so their card points are 11."
                    ),
                    {"side": names[side], "value": cards[side]},
                    field=f"card_points_{side}",
                )
            )
        elif kind is DealKind.STRAMAZZO and cards[side] < CARD_POINTS_PER_DEAL - 1:
            cards_ok = False
            errors.append(
                RuleError(
                    "stramazzo_sweeper_card_points",
                    gettext_noop(
                        "In a stramazzo %(side)s took every card point, so their card points "
                        "are 11, or 10 if the other side took the last trick."
                    ),
                    {"side": names[side], "value": cards[side]},
                    field=f"card_points_{side}",
                )
            )
        elif kind is DealKind.CAPPOTTO and cards[other] != 0:
            cards_ok = False
            errors.append(
                RuleError(
                    "cappotto_card_points",
                    gettext_noop(
                        "In a cappotto %(side)s took no tricks, so their card points must be 0."
                    ),
                    params,
                    field=f"card_points_{other}",
                )
            )
        elif kind is DealKind.STRAMAZZO and cards[other] > 1:
            cards_ok = False
            errors.append(
                RuleError(
                    "stramazzo_card_points",
                    gettext_noop(
                        "In a stramazzo %(side)s took no card points, so their card points "
                        "must be 0, or 1 for the last trick."
                    ),
                    params,
                    field=f"card_points_{other}",
                )
            )

    if cards_ok:
        params = {
            "side_a": names[0],
            "a": cards[0],
            "side_b": names[1],
            "b": cards[1],
            "sum": cards[0] + cards[1],
            "expected": CLAIM_CARD_POINTS if kind is DealKind.CLAIM else CARD_POINTS_PER_DEAL,
        }
        if kind is DealKind.CLAIM:
            if cards[0] + cards[1] > CLAIM_CARD_POINTS:
                errors.append(
                    RuleError(
                        "claim_card_points_sum",
                        gettext_noop(
                            "A claim stops the deal before the last trick, so card points add "
                            "up to at most %(expected)s: %(side_a)s %(a)s + %(side_b)s %(b)s = "
                            "%(sum)s."
                        ),
                        params,
                    )
                )
        elif cards[0] + cards[1] != CARD_POINTS_PER_DEAL:
            errors.append(
                RuleError(
                    "card_points_sum",
                    gettext_noop(
                        "Card points, the last trick included, must add up to %(expected)s: "
                        "%(side_a)s %(a)s + %(side_b)s %(b)s = %(sum)s."
                    ),
                    params,
                )
            )
        elif typed and kind is DealKind.NORMAL and 0 in cards:
            # Every card point to one side: the other took no trick (a cappotto), or only
            # tricks worth less than a point (a stramazzo). Either ends the match. Asked of
            # a deal typed now: matches stored before this was asked keep their 11-0 deals.
            swept = cards.index(0)
            errors.append(
                RuleError(
                    "card_points_sweep",
                    gettext_noop(
                        "%(side)s took every card point: that is a sweep, which wins the "
                        "match. Pick Cappotto if %(other)s took no trick, else Stramazzo."
                    ),
                    {"side": names[1 - swept], "other": names[swept]},
                    field="kind",
                )
            )

    possible = declaration_totals_for_side(players_per_side)
    declared_ok = True
    for i in (0, 1):
        if not _is_whole(declared[i]):
            declared_ok = False
            errors.append(
                RuleError(
                    "declared_points_not_whole",
                    gettext_noop(
                        "%(side)s: declared points must be a whole number, not %(value)s."
                    ),
                    {"side": names[i], "value": declared[i]},
                    field=f"declared_points_{i}",
                )
            )
        elif declared[i] not in possible:
            declared_ok = False
            errors.append(
                RuleError(
                    "declaration_impossible",
                    gettext_noop(
                        "%(side)s: %(value)s is not a declaration total any real deal can give."
                    ),
                    {"side": names[i], "value": declared[i]},
                    field=f"declared_points_{i}",
                )
            )
    if declared_ok and (declared[0], declared[1]) not in declaration_pairs(players_per_side):
        errors.append(
            RuleError(
                "declarations_exceed_deck",
                gettext_noop(
                    "Both sides' declarations (%(a)s and %(b)s) cannot come from one 40-card deck."
                ),
                {"a": declared[0], "b": declared[1], "side_a": names[0], "side_b": names[1]},
            )
        )
    return errors


def _settle(
    rules: MatchRules, before: _Tally, kind: DealKind, side: int | None, totals: tuple[int, int]
) -> _Tally:
    """Who, if anyone, has won once a deal's points are added.

    A sweep wins for the sweeper; a claim for the claimant if it reached the
    line, else for the other side. Otherwise a side alone at or past the line
    wins. When both reach it on the same deal, higher_total gives it to the
    higher total, and another_deal always plays one more deal first; from
    then on the higher total wins and equal totals play on. Line 21, 18 to 18
    then 11 to 11: 29 to 29, another deal under either rule; then 6 to 5:
    35 to 34, side 0 wins.
    """
    line = rules.line
    if kind in _SWEEPS:
        return _Tally(totals, decided=True, winner=side, reason=EndReason(kind))
    if kind is DealKind.CLAIM:
        assert side is not None
        winner = side if totals[side] >= line else 1 - side
        return _Tally(totals, decided=True, winner=winner, reason=EndReason.CLAIM)
    over = (totals[0] >= line, totals[1] >= line)
    if not any(over):
        return _Tally(totals)
    if not all(over):
        return _Tally(totals, decided=True, winner=0 if over[0] else 1, reason=EndReason.LINE)
    # Both sides are at or past the line.
    first_deal_over = not before.another_deal
    if totals[0] == totals[1] or (first_deal_over and rules.tie_rule is TieRule.ANOTHER_DEAL):
        return _Tally(totals, another_deal=True)
    winner = 0 if totals[0] > totals[1] else 1
    return _Tally(totals, decided=True, winner=winner, reason=EndReason.LINE)


def _play(
    rules: MatchRules,
    before: _Tally,
    entry: DealEntry,
    number: int,
    dealer: int,
    seat_count: int,
    check: bool = True,
    typed: bool = True,
) -> tuple[ScoredDeal, _Tally]:
    """Check (unless told not to) and score deal `number`; raise DealInvalid with every error."""
    errors = _deal_errors(rules, before, entry, seat_count // 2, typed) if check else []
    if errors:
        for error in errors:
            error.deal_number = number
        raise DealInvalid(errors)
    kind = DealKind(entry.kind)
    points = [entry.card_points[i] + entry.declared_points[i] for i in (0, 1)]
    if kind in _SWEEPS:
        # The sweep wins on the spot: the sheet takes the sweeper exactly to the
        # line (from 0 against 20, a cappotto scores 21), whatever it declared.
        sweeper = entry.side
        assert sweeper is not None
        points[sweeper] = max(0, rules.line - before.totals[sweeper])
    totals = (before.totals[0] + points[0], before.totals[1] + points[1])
    after = _settle(rules, before, kind, entry.side, totals)
    return ScoredDeal(number, entry, (points[0], points[1]), totals, dealer), after


def _replay(
    rules: MatchRules,
    deals: Sequence[DealEntry],
    first_dealer: int,
    seat_count: int,
    checked_from: int = 1,
    typed: int | None = None,
) -> tuple[list[ScoredDeal], _Tally]:
    _check_seating(first_dealer, seat_count)
    tally = _Tally()
    scored = []
    for number, entry in enumerate(deals, start=1):
        dealer = (first_dealer + number - 1) % seat_count
        check = number >= checked_from
        row, tally = _play(
            rules, tally, entry, number, dealer, seat_count, check, typed=number == typed
        )
        scored.append(row)
    return scored, tally


def check_deal(
    rules: MatchRules,
    previous: Sequence[DealEntry],
    entry: DealEntry,
    *,
    first_dealer: int = 0,
    seat_count: int = 4,
) -> ScoredDeal:
    """Check `entry` as the next deal after `previous` and score it.

    Raises DealInvalid listing every broken rule (each error's `deal_number`
    is this deal's), including "match_decided" when no deal may follow.
    `previous` is replayed (and so checked too) to know the totals before.

    >>> rules = MatchRules(side_names=("Alice & Carla", "Beppe & Dino"))
    >>> check_deal(rules, [], DealEntry(card_points=(8, 4), declared_points=(5, 0)))
    Traceback (most recent call last):
    ...
    matches.rules.DealInvalid: Card points, the last trick included, must add up to 11: Alice & Carla 8 + Beppe & Dino 4 = 12. Alice & Carla: 5 is not a declaration total any real deal can give.
    """  # noqa: E501
    scored, tally = _replay(rules, previous, first_dealer, seat_count)
    dealer = (first_dealer + len(scored)) % seat_count
    row, _ = _play(rules, tally, entry, len(scored) + 1, dealer, seat_count)
    return row


def evaluate(
    rules: MatchRules,
    deals: Sequence[DealEntry],
    *,
    first_dealer: int = 0,
    seat_count: int = 4,
    checked_from: int = 1,
    typed: int | None = None,
) -> Outcome:
    """Check and score every deal in order and say where the match stands.

    The first invalid deal raises DealInvalid (its errors carry its
    `deal_number`): later deals' points can depend on it, as a sweep's do.
    Editing an earlier deal and evaluating again re-scores everything.

    Deals numbered before `checked_from` are scored as they stand, unchecked:
    they are a match's stored deals, checked when they were stored (by the
    rules of that day), and a sheet must open whatever the rules say today.
    Deal number `typed`, the one a person has just entered (a new deal, an
    edit), is also held to what only a new entry must meet: 11 card points
    against 0 is a sweep, not a deal played out. Deals checked again (after it,
    or on import or under new settings) are not: matches kept from before may
    hold such deals.

    Line 21, the worked deal and then a deal of 7 + 4 against 4 + 3:

    >>> rules = MatchRules(side_names=("Alice & Carla", "Beppe & Dino"))
    >>> outcome = evaluate(rules, [
    ...     DealEntry(card_points=(8, 3), declared_points=(3, 0)),
    ...     DealEntry(card_points=(7, 4), declared_points=(4, 3)),
    ... ])
    >>> outcome.totals, outcome.needs, outcome.decided, outcome.winner, outcome.reason
    ((22, 10), (0, 11), True, 0, <EndReason.LINE: 'line'>)
    """
    scored, tally = _replay(rules, deals, first_dealer, seat_count, checked_from, typed)
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
