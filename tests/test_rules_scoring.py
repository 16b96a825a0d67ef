"""Entries, card points and scoring one deal: matches/rules.py, no database."""

import doctest
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches import rules
from matches.rules import (
    DealEntry,
    DealInvalid,
    DealKind,
    MatchRules,
    RuleError,
    card_points_from_count,
    check_deal,
    check_line,
    complete_card_points,
    dealer_for,
    declaration_pairs,
    declaration_totals_for_side,
    evaluate,
    seat_player,
    seats,
)

NAMES = ("Alice & Carla", "Beppe & Dino")
RULES = MatchRules(side_names=NAMES, claims_allowed=True)
PAIRS = sorted(declaration_pairs())
SIDE_TOTALS = declaration_totals_for_side()


def normal(c0: int, c1: int, d0: int = 0, d1: int = 0) -> DealEntry:
    return DealEntry(card_points=(c0, c1), declared_points=(d0, d1))


def place(error: RuleError) -> str:
    """Where a refusal belongs, as a form names its fields: the part, with its side."""
    return error.part if error.side is None else f"{error.part}_{error.side}"


def errors_of(entry: DealEntry, rules: MatchRules = RULES, previous=()) -> list[RuleError]:
    with pytest.raises(DealInvalid) as caught:
        check_deal(rules, list(previous), entry)
    return caught.value.errors


# --- The worked deal -------------------------------------------------------


def test_the_worked_deal_napoletana_3_plus_cards_7_plus_last_trick_1_is_11_against_3():
    # Alice and Carla: cards worth 7⅓ (3 aces, 13 figures) plus the last trick.
    assert card_points_from_count(aces=3, figures=13, last_trick=True) == (8, 3)
    deal = check_deal(
        MatchRules(side_names=NAMES), [], DealEntry(card_points=(8, 3), declared_points=(3, 0))
    )
    assert deal.points == (11, 3)
    assert deal.totals == (11, 3)
    assert deal.number == 1


def test_the_docstring_examples_hold():
    results = doctest.testmod(rules)
    assert results.attempted >= 10
    assert results.failed == 0


def test_the_rules_module_imports_nothing_from_django():
    code = (
        "import sys, matches.rules; "
        "sys.exit(any(name.split('.')[0] == 'django' for name in sys.modules))"
    )
    root = Path(__file__).resolve().parent.parent
    assert subprocess.run([sys.executable, "-c", code], cwd=root).returncode == 0


# --- Card points: the rules' arithmetic ------------------------------------


def test_dropping_each_sides_fraction_always_leaves_11():
    # 4 aces of 3 thirds, 20 figures (3s, 2s, kings, cavalli, fanti) of 1 third,
    # and the last trick of 3 thirds: 35 thirds, split between the two sides.
    assert 4 * 3 + 20 * 1 + 3 == 35
    splits = set()
    for aces in range(5):
        for figures in range(21):
            for last_trick in (False, True):
                mine = 3 * aces + figures + 3 * last_trick
                theirs = 3 * (4 - aces) + (20 - figures) + 3 * (not last_trick)
                assert mine + theirs == 35
                assert mine // 3 + theirs // 3 == 11
                assert card_points_from_count(
                    aces=aces, figures=figures, last_trick=last_trick
                ) == (mine // 3, theirs // 3)
                splits.add(mine)
    # Every split of the 35 thirds is reached, so no case is left unchecked.
    assert splits == set(range(36))


def test_every_card_point_entry_from_0_to_11_can_happen():
    reachable = {
        card_points_from_count(aces=a, figures=f, last_trick=t)[0]
        for a in range(5)
        for f in range(21)
        for t in (False, True)
    }
    assert reachable == set(range(12))


@pytest.mark.parametrize(
    ("aces", "figures", "last_trick", "expected"),
    [
        (2, 4, True, (4, 7)),  # 13 thirds against 22
        (3, 13, True, (8, 3)),  # the worked deal
        (0, 0, False, (0, 11)),  # a cappotto seen from the losing side
        (4, 20, True, (11, 0)),
        (4, 20, False, (10, 1)),  # a stramazzo: the other side took only the last trick
        (1, 2, False, (1, 10)),
    ],
)
def test_card_points_from_a_count_of_the_pile(aces, figures, last_trick, expected):
    assert card_points_from_count(aces=aces, figures=figures, last_trick=last_trick) == expected


@pytest.mark.parametrize(
    ("aces", "figures", "code", "field"),
    [
        (5, 0, "aces_out_of_range", "aces"),
        (-1, 0, "aces_out_of_range", "aces"),
        (0, 21, "figures_out_of_range", "figures"),
        (0, -1, "figures_out_of_range", "figures"),
    ],
)
def test_an_impossible_count_is_refused(aces, figures, code, field):
    with pytest.raises(RuleError) as caught:
        card_points_from_count(aces=aces, figures=figures, last_trick=False)
    assert (caught.value.code, caught.value.part) == (code, field)


@pytest.mark.parametrize("last_trick", [False, True])
@pytest.mark.parametrize(("aces", "figures"), [(0, 0), (2, 4), (4, 20), (3, 13)])
def test_a_claims_count_gives_the_counted_side_only(aces, figures, last_trick):
    # A claim stops the deal early: the cards still in hand are nobody's yet, and nobody
    # has taken the last trick.
    if last_trick:
        with pytest.raises(RuleError) as caught:
            card_points_from_count(aces=aces, figures=figures, last_trick=True, claim=True)
        assert (caught.value.code, caught.value.part) == ("claim_last_trick", "last_trick")
        return
    counted = card_points_from_count(aces=aces, figures=figures, last_trick=False, claim=True)
    assert counted == ((3 * aces + figures) // 3, None)
    assert counted[0] <= 10


# --- The line ----------------------------------------------------------------


@pytest.mark.parametrize("line", [11, 21, 31, 101])
def test_a_line_from_11_to_101_is_accepted(line):
    assert check_line(line) == line
    assert MatchRules(line=line).line == line


@pytest.mark.parametrize("line", [10, 102, 0])
def test_a_line_outside_11_to_101_is_refused(line):
    with pytest.raises(RuleError) as caught:
        check_line(line)
    assert (caught.value.code, caught.value.part) == ("line_out_of_range", "line")
    assert str(caught.value) == f"The line must be from 11 to 101, not {line}."
    with pytest.raises(RuleError):
        MatchRules(line=line)


# --- One deal ----------------------------------------------------------------


def test_card_points_must_add_up_to_11():
    [error] = errors_of(normal(8, 4))
    assert error.code == "card_points_sum"
    assert place(error) == ""
    assert (
        str(error) == "Card points, the last trick included, must add up to 11: "
        "Alice & Carla 8 + Beppe & Dino 4 = 12."
    )


def test_card_points_above_11_name_the_side():
    [error] = errors_of(normal(5, 12))
    assert error.code == "card_points_too_high"
    assert place(error) == "card_points_1"
    assert str(error) == "Beppe & Dino: card points cannot be more than 11."


def test_every_wrong_field_is_reported_at_once():
    errors = errors_of(normal(12, 13, 5, 1))
    assert [(e.code, place(e)) for e in errors] == [
        ("card_points_too_high", "card_points_0"),
        ("card_points_too_high", "card_points_1"),
        ("declaration_impossible", "declared_points_0"),
        ("declaration_impossible", "declared_points_1"),
    ]
    assert all(e.deal_number == 1 for e in errors)


def test_the_errors_carry_the_number_of_the_deal_they_belong_to():
    previous = [normal(6, 5), normal(5, 6)]
    [error] = errors_of(normal(6, 6), previous=previous)
    assert error.deal_number == 3
    with pytest.raises(DealInvalid) as caught:
        evaluate(RULES, [normal(6, 5), normal(2, 2), normal(5, 5)])
    assert [e.deal_number for e in caught.value.errors] == [2]


@pytest.mark.parametrize(
    ("entry", "code", "field", "message"),
    [
        (
            DealEntry((5, 6), (0, 0), DealKind.NORMAL, side=0),
            "side_not_allowed",
            "side",
            "Only a sweep or a claim names a side; a played-out deal does not.",
        ),
        (
            DealEntry((11, 0), (0, 0), DealKind.CAPPOTTO),
            "sweep_side_required",
            "side",
            "Say which side swept the deal.",
        ),
        (
            DealEntry((11, 0), (0, 0), DealKind.STRAMAZZO, side=2),
            "sweep_side_required",
            "side",
            "Say which side swept the deal.",
        ),
        (
            DealEntry((5, 5), (0, 0), DealKind.CLAIM),
            "claim_side_required",
            "side",
            "Say which side claimed.",
        ),
    ],
)
def test_each_broken_rule_has_its_own_code_field_and_message(entry, code, field, message):
    [error] = errors_of(entry)
    assert (error.code, place(error), str(error)) == (code, field, message)


def test_a_deal_kind_given_as_text_is_understood():
    entry = DealEntry((11, 0), (0, 0), "cappotto", side=0)
    assert check_deal(RULES, [], entry).points == (21, 0)


@pytest.mark.parametrize(
    ("card_points", "declared_points", "kind", "side"),
    [((5, "6"), (0, 0), "normal", None), ((5, 6), (-3, 0), "normal", None),
     ((5, 6), (0, 0), "trick", None), ((5, 6), (0, 0), "normal", True),
     ((5.0, 6), (0, 0), "normal", None)],
)  # fmt: skip
def test_an_entry_is_whole_numbers_and_a_kind_or_it_is_not_an_entry(
    card_points, declared_points, kind, side
):
    """Reading what was typed is the edges' job: the rules take whole numbers only."""
    with pytest.raises(ValueError):
        DealEntry(card_points, declared_points, kind, side)


# --- Hypothesis: valid deals are accepted, invalid ones refused ---------------


@st.composite
def valid_normal_deals(draw) -> DealEntry:
    mine = draw(st.integers(1, 10))  # 11 against 0 is a sweep, never a deal played out
    declared = draw(st.sampled_from(PAIRS))
    return normal(mine, 11 - mine, *declared)


@given(valid_normal_deals())
def test_a_valid_played_out_deal_is_always_accepted_and_scored_as_the_sum(entry):
    deal = check_deal(RULES, [], entry)
    assert deal.points == (
        entry.card_points[0] + entry.declared_points[0],
        entry.card_points[1] + entry.declared_points[1],
    )


def _rejected_with(entry: DealEntry, code: str, field: str, side: int | None, rules=RULES):
    errors = errors_of(entry, rules)
    matching = [e for e in errors if e.code == code]
    assert matching, [e.code for e in errors]
    assert place(matching[0]) == field
    if side is not None:
        assert NAMES[side] in str(matching[0])


@given(st.integers(0, 11), st.integers(0, 11))
def test_card_points_not_adding_up_to_11_are_always_refused(a, b):
    if a + b == 11:
        return
    _rejected_with(normal(a, b), "card_points_sum", "", None)


@given(st.integers(12, 999), st.integers(0, 1))
def test_card_points_above_11_are_always_refused(points, side):
    cards = [0, 0]
    cards[side] = points
    _rejected_with(normal(*cards), "card_points_too_high", f"card_points_{side}", side)


@given(st.integers(0, 999).filter(lambda n: n not in SIDE_TOTALS), st.integers(0, 1))
def test_an_impossible_declared_total_is_always_refused(value, side):
    declared = [0, 0]
    declared[side] = value
    entry = normal(5, 6, *declared)
    _rejected_with(entry, "declaration_impossible", f"declared_points_{side}", side)


@given(
    st.sampled_from(sorted((a, b) for a in SIDE_TOTALS for b in SIDE_TOTALS if (a, b) not in PAIRS))
)
def test_declarations_that_do_not_fit_one_deck_are_always_refused(pair):
    _rejected_with(normal(5, 6, *pair), "declarations_exceed_deck", "", None)


@given(st.integers(0, 1), st.integers(1, 11))
def test_a_cappotto_where_the_other_side_scored_card_points_is_always_refused(side, other):
    cards = [11, 11]
    cards[1 - side] = other
    entry = DealEntry(tuple(cards), (0, 0), DealKind.CAPPOTTO, side=side)
    _rejected_with(entry, "cappotto_card_points", f"card_points_{1 - side}", 1 - side)


@given(st.integers(0, 1), st.integers(0, 10), st.integers(0, 11))
def test_a_cappotto_where_the_sweeper_has_not_all_11_is_refused_of_the_sweeper(
    side, sweeper, other
):
    """Whatever the other side shows: typed as 10, with the other side's left blank, it was
    the sweeper's points that were wrong."""
    cards = [other, other]
    cards[side] = sweeper
    entry = DealEntry(tuple(cards), (0, 0), DealKind.CAPPOTTO, side=side)
    _rejected_with(entry, "cappotto_sweeper_card_points", f"card_points_{side}", side)
    assert "took every trick, so their card points are 11" in str(errors_of(entry, RULES)[0])


@given(st.integers(0, 1), st.integers(2, 11), st.integers(10, 11))
def test_a_stramazzo_where_the_other_side_scored_more_than_the_last_trick_is_refused(
    side, other, sweeper
):
    cards = [sweeper, sweeper]
    cards[1 - side] = other
    entry = DealEntry(tuple(cards), (0, 0), DealKind.STRAMAZZO, side=side)
    _rejected_with(entry, "stramazzo_card_points", f"card_points_{1 - side}", 1 - side)


@given(st.integers(0, 1), st.integers(0, 9), st.integers(0, 11))
def test_a_stramazzo_where_the_sweeper_has_less_than_10_is_refused_of_the_sweeper(
    side, sweeper, other
):
    cards = [other, other]
    cards[side] = sweeper
    entry = DealEntry(tuple(cards), (0, 0), DealKind.STRAMAZZO, side=side)
    _rejected_with(entry, "stramazzo_sweeper_card_points", f"card_points_{side}", side)


@given(st.integers(0, 1), st.integers(0, 1), st.integers(10, 11))
def test_a_sweep_must_still_add_up_to_11(side, last_trick, sweeper):
    if sweeper + last_trick == 11:
        return
    cards = [0, 0]
    cards[side], cards[1 - side] = sweeper, last_trick
    entry = DealEntry(tuple(cards), (0, 0), DealKind.STRAMAZZO, side=side)
    _rejected_with(entry, "card_points_sum", "", None)


@given(
    st.sampled_from([DealKind.CAPPOTTO, DealKind.STRAMAZZO]),
    st.integers(0, 1),
    st.integers(0, 1),
    st.integers(0, 12),
)
def test_a_sweeps_blank_side_is_filled_in_by_the_sweeps_rule(kind, side, blank, typed):
    """So whatever is wrong is said of the number typed, never of the blank field."""
    cards: list[int | None] = [typed, typed]
    cards[blank] = None
    completed = complete_card_points(*cards, kind=kind, side=side)
    try:
        check_deal(RULES, [], DealEntry(completed, (0, 0), kind, side=side))
    except DealInvalid as invalid:
        fields = {place(error) for error in invalid.errors}
        assert fields <= {"", f"card_points_{1 - blank}"}, invalid.errors
    else:
        assert sum(completed) == 11 and completed[side] >= 10


@given(st.integers(0, 11), st.integers(0, 11), st.integers(0, 1))
def test_a_claim_is_always_refused_when_the_match_does_not_allow_claims(a, b, side):
    entry = DealEntry((a, b), (0, 0), DealKind.CLAIM, side=side)
    rules = MatchRules(side_names=NAMES, claims_allowed=False)
    _rejected_with(entry, "claims_not_allowed", "kind", None, rules=rules)
    assert str(errors_of(entry, rules)[0]) == "Claims are not allowed in this match."


@given(st.integers(0, 11), st.integers(0, 11), st.integers(0, 1))
def test_a_claim_with_more_than_10_card_points_is_always_refused(a, b, side):
    # A claim stops the deal before the last trick: 10⅔ at most, fractions dropped.
    entry = DealEntry((a, b), (0, 0), DealKind.CLAIM, side=side)
    if a + b <= 10:
        assert check_deal(RULES, [], entry).points == (a, b)
    else:
        _rejected_with(entry, "claim_card_points_sum", "", None)


# --- Seats and dealing -------------------------------------------------------


def test_seats_for_partnerships_and_for_tressette_in_due():
    assert seats(2) == 4
    assert seats(1) == 2
    with pytest.raises(ValueError):
        seats(3)


def test_partners_sit_opposite_and_the_player_on_the_dealers_right_is_an_opponent():
    assert [seat_player(seat) for seat in range(4)] == [(0, 0), (1, 0), (0, 1), (1, 1)]
    for seat_count in (2, 4):
        for dealer in range(seat_count):
            leader = (dealer + 1) % seat_count
            assert seat_player(leader)[0] != seat_player(dealer)[0]


@pytest.mark.parametrize(
    ("seat_count", "first_dealer", "expected"),
    [
        (4, 0, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]),
        (4, 1, [1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0]),
        (4, 3, [3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2]),
        (2, 0, [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]),
        (2, 1, [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]),
    ],
)
def test_the_deal_passes_to_the_right_over_12_deals(seat_count, first_dealer, expected):
    assert [
        dealer_for(n, first_dealer=first_dealer, seat_count=seat_count) for n in range(1, 13)
    ] == expected
    deals = [normal(6, 5)] * 12  # 72 against 60: never at the line of 101
    outcome = evaluate(
        MatchRules(line=101), deals, first_dealer=first_dealer, seat_count=seat_count
    )
    assert [deal.dealer for deal in outcome.deals] == expected
    assert outcome.next_dealer == expected[0]
    assert outcome.next_number == 13
    scored = check_deal(
        MatchRules(line=101), deals[:5], deals[5], first_dealer=first_dealer, seat_count=seat_count
    )
    assert scored.dealer == expected[5]


@pytest.mark.parametrize(
    ("number", "first_dealer", "seat_count"),
    [(0, 0, 4), (1, 4, 4), (1, 2, 2), (1, 3, 3), (1, 0, 5)],
)
def test_impossible_seating_is_a_programming_error(number, first_dealer, seat_count):
    with pytest.raises(ValueError):
        dealer_for(number, first_dealer=first_dealer, seat_count=seat_count)


def test_one_sides_card_points_fix_the_others():
    from matches.rules import DealKind, RuleError, complete_card_points

    assert complete_card_points(8, None) == (8, 3)
    assert complete_card_points(None, 0) == (11, 0)
    assert complete_card_points(6, 6) == (6, 6)  # both typed: the rules judge the sum
    assert complete_card_points(5, None, kind=DealKind.CLAIM) == (5, 0)
    with pytest.raises(RuleError) as missing:
        complete_card_points(None, None)
    assert missing.value.code == "card_points_missing"


def test_a_cappotto_needs_no_card_points_typed_once_its_side_is_known():
    from matches.rules import DealKind, RuleError, complete_card_points

    assert complete_card_points(None, None, kind=DealKind.CAPPOTTO, side=0) == (11, 0)
    assert complete_card_points(None, None, kind=DealKind.CAPPOTTO, side=1) == (0, 11)
    # A stramazzo still needs them: the swept side took at least one trick, maybe the last.
    with pytest.raises(RuleError):
        complete_card_points(None, None, kind=DealKind.STRAMAZZO, side=0)
    with pytest.raises(RuleError) as no_side:
        complete_card_points(None, None, kind=DealKind.CAPPOTTO, side=None)
    # What is missing is the side, not card points: the refusal says so.
    assert (no_side.value.code, place(no_side.value)) == ("sweep_side_required", "side")
