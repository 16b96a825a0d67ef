"""Which declared totals (accusi) a side can hold: derived from the deck, checked here.

The cards below are written rank + suit: ranks 3, 2, A (the only cards that
declare), suits c(ups), b(atons), s(words), d (coins). The hand arithmetic
in this file is written independently of matches/rules.py.
"""

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.rules import (
    DealEntry,
    DealInvalid,
    MatchRules,
    check_deal,
    declaration_pairs,
    declaration_totals_for_side,
)
from tests.test_rules_scoring import place

SUITS = "cbsd"
RANKS = "32A"
DECLARING = [rank + suit for rank in RANKS for suit in SUITS]
DECK = DECLARING + [f"other{n}" for n in range(28)]


def combinations_in(hand: set[str]) -> list[int]:
    """Three of a rank 3, four 4, each Napoletana (3, 2, ace of a suit) 3."""
    found = []
    for rank in RANKS:
        held = sum(rank + suit in hand for suit in SUITS)
        if held >= 3:
            found.append(held)
    for suit in SUITS:
        if all(rank + suit in hand for rank in RANKS):
            found.append(3)
    return found


def declarable(hand: set[str]) -> set[int]:
    """A player may declare any of their combinations and keep the rest quiet."""
    found = combinations_in(hand)
    return {sum(chosen) for n in range(len(found) + 1) for chosen in combinations(found, n)}


def side_totals(first: set[str], second: set[str]) -> set[int]:
    assert len(first) <= 10 and len(second) <= 10 and not first & second
    return {a + b for a in declarable(first) for b in declarable(second)}


def test_the_rules_example_napoletana_in_cups_and_four_2s_is_7_from_one_hand():
    hand = {"3c", "2c", "Ac", "2b", "2s", "2d"}
    assert sorted(combinations_in(hand)) == [3, 4]
    assert 7 in side_totals(hand, set())
    assert 7 in declaration_totals_for_side()


def test_6_is_two_partners_each_declaring_three_of_a_kind():
    alice = {"3c", "3b", "3s"}
    carla = {"2c", "2b", "2s"}
    assert side_totals(alice, carla) == {0, 3, 6}
    assert 6 in declaration_totals_for_side()


@pytest.mark.parametrize("total", [0, 3, 4, 6, 7])
def test_the_common_totals_are_possible(total):
    assert total in declaration_totals_for_side()


@pytest.mark.parametrize("total", [1, 2, 5])
def test_1_2_and_5_are_never_possible(total):
    # Every combination is worth 3 or 4, so a side declares a sum of 3s and 4s,
    # and 1, 2 and 5 are no such sum.
    sums_of_3s_and_4s = {3 * threes + 4 * fours for threes in range(8) for fours in range(4)}
    assert total not in sums_of_3s_and_4s
    assert declaration_totals_for_side() <= sums_of_3s_and_4s
    assert total not in declaration_totals_for_side()


def test_the_most_a_side_can_declare_is_21_and_then_the_other_side_has_nothing():
    # Napoletanas in three suits (9) make three of each rank too (9): 18 from nine
    # cards, and the partner holds the fourth suit's Napoletana (3).
    alice = {rank + suit for rank in RANKS for suit in "cbs"}
    carla = {"3d", "2d", "Ad"}
    assert max(side_totals(alice, carla)) == 21
    assert max(declaration_totals_for_side()) == 21
    assert {b for a, b in declaration_pairs() if a == 21} == {0}


def test_7_against_7_cannot_come_from_one_deck():
    # 7 is always a four of a kind (4) plus one more combination (3). The four
    # of a kind takes a whole rank from the other side, so the other side can
    # only make a Napoletana if that rank is not taken, and with 4 + 3 gone it
    # has at most three of each of two ranks left: 3 + 3 = 6, or a single 4.
    assert (7, 7) not in declaration_pairs()
    assert (7, 6) in declaration_pairs()
    alice = {"2c", "2b", "2s", "2d"}  # four 2s
    carla = {"3c", "3b", "3s"}  # three 3s: 7
    beppe = {"Ac", "Ab", "As"}  # three aces
    dino = {"3d", "Ad"}
    assert 7 in side_totals(alice, carla)
    assert max(side_totals(beppe, dino)) == 3


def test_the_pairs_are_a_strict_subset_of_any_two_side_totals():
    sides = declaration_totals_for_side()
    pairs = declaration_pairs()
    assert pairs < {(a, b) for a in sides for b in sides}
    assert {a for a, _ in pairs} == sides
    assert all((b, a) in pairs for a, b in pairs)
    assert all((total, 0) in pairs for total in sides)


def test_the_sets_are_computed_once():
    assert declaration_totals_for_side() is declaration_totals_for_side()
    assert declaration_pairs() is declaration_pairs()


@given(st.permutations(DECK), st.data())
def test_every_real_deal_declares_totals_the_sets_allow(deck, data):
    hands = [set(deck[10 * seat : 10 * seat + 10]) for seat in range(4)]
    # Seats 0 and 2 are one side, 1 and 3 the other.
    side_0 = side_totals(hands[0], hands[2])
    side_1 = side_totals(hands[1], hands[3])
    assert side_0 <= declaration_totals_for_side()
    assert side_1 <= declaration_totals_for_side()
    pair = (data.draw(st.sampled_from(sorted(side_0))), data.draw(st.sampled_from(sorted(side_1))))
    assert pair in declaration_pairs()
    rules = MatchRules(line=101)
    assert check_deal(rules, [], DealEntry((5, 6), pair)).points == (5 + pair[0], 6 + pair[1])


def test_a_deal_names_the_side_whose_declaration_is_impossible():
    rules = MatchRules(side_names=("Alice & Carla", "Beppe & Dino"))
    with pytest.raises(DealInvalid) as caught:
        check_deal(rules, [], DealEntry((5, 6), (3, 5)))
    [error] = caught.value.errors
    assert (error.code, place(error)) == ("declaration_impossible", "declared_points_1")
    assert str(error) == "Beppe & Dino: 5 is not a declaration total any real deal can give."


def test_a_deal_whose_declarations_overflow_the_deck_is_refused():
    with pytest.raises(DealInvalid) as caught:
        check_deal(MatchRules(), [], DealEntry((5, 6), (7, 7)))
    [error] = caught.value.errors
    assert (error.code, place(error)) == ("declarations_exceed_deck", "")
    assert str(error) == "Both sides' declarations (7 and 7) cannot come from one 40-card deck."


@pytest.mark.parametrize("kind", ["cappotto", "stramazzo", "claim"])
def test_declarations_count_on_sweeps_and_claims_too(kind):
    rules = MatchRules(claims_allowed=True)
    cards = (10, 0) if kind == "claim" else (11, 0)  # a claim ends before the last trick
    deal = check_deal(rules, [], DealEntry(cards, (4, 6), kind, side=0))
    assert deal.points[1] == 6
    assert deal.entry.declared_points == (4, 6)


# --- Tressette in due: each side is one hand of ten, twenty cards stay in the monte ---


def test_in_due_one_hand_declares_at_most_19():
    hands = (
        set(chosen) for size in range(11) for chosen in combinations(DECLARING, size)
    )  # every hand's share of the declaring cards (the rest of its ten are other cards)
    possible = set().union(*(declarable(hand) for hand in hands))
    assert possible == declaration_totals_for_side(1)
    assert max(possible) == 19  # four 3s, three 2s, three aces: 4 + 3 + 3 and 3 Napoletanas
    assert possible == declaration_totals_for_side(2) - {21}


def test_in_due_21_needs_two_hands_and_is_refused():
    rules = MatchRules(side_names=("Anna", "Giovanni"))
    assert check_deal(rules, [], DealEntry((6, 5), (21, 0)), seat_count=4).points == (27, 5)
    with pytest.raises(DealInvalid) as caught:
        check_deal(rules, [], DealEntry((6, 5), (21, 0)), seat_count=2)
    [error] = caught.value.errors
    assert (error.code, place(error)) == ("declaration_impossible", "declared_points_0")
    assert str(error) == "Anna: 21 is not a declaration total any real deal can give."


@given(st.permutations(DECK), st.data())
def test_every_real_deal_in_due_declares_totals_the_sets_allow(deck, data):
    anna, giovanni = set(deck[:10]), set(deck[10:20])  # deck[20:] is the monte
    pair = (
        data.draw(st.sampled_from(sorted(declarable(anna)))),
        data.draw(st.sampled_from(sorted(declarable(giovanni)))),
    )
    assert pair in declaration_pairs(1)
    rules = MatchRules(line=101)
    deal = check_deal(rules, [], DealEntry((5, 6), pair), seat_count=2)
    assert deal.points == (5 + pair[0], 6 + pair[1])


def test_in_due_the_pairs_are_the_four_player_pairs_without_21():
    assert declaration_pairs(1) == declaration_pairs(2) - {(21, 0), (0, 21)}


def test_a_match_without_declarations_refuses_declared_points_and_counts_cards_only():
    without = MatchRules(line=31, declarations_allowed=False)
    with pytest.raises(DealInvalid) as invalid:
        check_deal(without, [], DealEntry(card_points=(8, 3), declared_points=(3, 0)))
    assert [error.code for error in invalid.value.errors] == ["declarations_not_allowed"]
    assert check_deal(without, [], DealEntry((8, 3), (0, 0))).points == (8, 3)
