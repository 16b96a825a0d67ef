"""Terziglio (Calabresella): one soloist against two, balances that sum to zero
(matches/rules.py, no database). The sources' numbers are cited in docs/rules.md."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.rules import (
    BID_MULTIPLIERS,
    TERZIGLIO_SOLOIST_WINS,
    Bid,
    DealInvalid,
    Payment,
    RuleError,
    TerziglioEnd,
    TerziglioEntry,
    TerziglioRules,
    TerziglioStanding,
    evaluate_terziglio,
    next_terziglio_deal,
    terziglio_changes,
    terziglio_errors,
)
from tests.test_rules_scoring import place

NAMES = ("Anna", "Bruno", "Carla")
ANNA, BRUNO, CARLA = range(3)
RULES = TerziglioRules(player_names=NAMES)
A_MONTE = TerziglioEntry()
START = TerziglioStanding()


def errors_of(entry: TerziglioEntry, standing=START) -> list[RuleError]:
    return terziglio_errors(RULES, standing, entry)


# --- What a deal pays: the sources' deals ------------------------------------


def test_a_chiamo_won_7_to_4_pays_the_difference_from_each_opponent():
    # The soloist needs 6 of the 11; the other two took 11 - 7 = 4. Each pays 7 - 4 = 3
    # (Foster's Hoyle, en.wikipedia: "paying to each or receiving from each the difference").
    assert terziglio_changes(TerziglioEntry(ANNA, Bid.CHIAMO, 7)) == (6, -3, -3)


def test_a_chiamo_won_flat_is_1_from_each_opponent():
    # The flat convention: "CALL and win: 2 points, the opponents -1 each".
    assert terziglio_changes(TerziglioEntry(ANNA, Bid.CHIAMO, 7), Payment.FLAT) == (2, -1, -1)


@pytest.mark.parametrize("payment", list(Payment))
def test_a_solo_lost_5_to_6_is_paid_double_to_each_opponent(payment):
    # Lost by one point: the difference is 1, and 1 either way; solo doubles it.
    assert terziglio_changes(TerziglioEntry(BRUNO, Bid.SOLO, 5), payment) == (2, -4, 2)


def test_a_solissimo_triples_the_stake():
    won = TerziglioEntry(CARLA, Bid.SOLISSIMO, 8)  # 8 - 3 = 5, tripled
    assert terziglio_changes(won) == (-15, -15, 30)
    assert terziglio_changes(won, Payment.FLAT) == (-3, -3, 6)
    lost = TerziglioEntry(CARLA, Bid.SOLISSIMO, 2)  # 9 - 2 = 7, tripled, to each
    assert terziglio_changes(lost) == (21, 21, -42)
    assert terziglio_changes(lost, Payment.FLAT) == (3, 3, -6)


def test_a_deal_a_monte_moves_nothing():
    assert A_MONTE.a_monte
    assert terziglio_changes(A_MONTE) == (0, 0, 0)
    assert errors_of(A_MONTE) == []


def test_the_soloist_needs_6_of_the_11():
    assert TERZIGLIO_SOLOIST_WINS == 6
    assert terziglio_changes(TerziglioEntry(ANNA, Bid.CHIAMO, 6)) == (2, -1, -1)
    assert terziglio_changes(TerziglioEntry(ANNA, Bid.CHIAMO, 5)) == (-2, 1, 1)


def test_the_default_is_the_difference():
    assert TerziglioRules().payment is Payment.DIFFERENCE
    assert BID_MULTIPLIERS == {Bid.CHIAMO: 1, Bid.SOLO: 2, Bid.SOLISSIMO: 3}


@pytest.mark.parametrize("payment", list(Payment))
@pytest.mark.parametrize("bid", list(Bid))
@pytest.mark.parametrize("soloist", range(3))
@pytest.mark.parametrize("cards", range(12))
def test_every_deal_sums_to_zero_and_pays_by_the_rule(payment, bid, soloist, cards):
    changes = terziglio_changes(TerziglioEntry(soloist, bid, cards), payment)
    assert sum(changes) == 0
    opponents = [changes[seat] for seat in range(3) if seat != soloist]
    assert opponents[0] == opponents[1]
    per_opponent = abs(2 * cards - 11) if payment is Payment.DIFFERENCE else 1
    won = cards >= 6
    assert changes[soloist] == (1 if won else -1) * 2 * BID_MULTIPLIERS[bid] * per_opponent


# --- Refusals ----------------------------------------------------------------


def test_a_deal_with_a_bid_but_no_soloist_is_refused():
    [error] = errors_of(TerziglioEntry(bid=Bid.SOLO, card_points=7))
    assert (error.code, place(error)) == ("terziglio_soloist_required", "soloist")
    assert str(error) == "Say who played alone, or leave the deal a monte if all three passed."


def test_a_soloist_not_at_the_table_is_refused():
    [error] = errors_of(TerziglioEntry(3, Bid.SOLO, 7))
    assert (error.code, place(error)) == ("terziglio_soloist_not_seated", "soloist")
    assert str(error) == "Pick one of the three players as the one who played alone."


def test_a_soloist_without_bid_or_card_points_is_told_both_at_once():
    errors = errors_of(TerziglioEntry(BRUNO))
    assert [(e.code, place(e)) for e in errors] == [
        ("terziglio_bid_required", "bid"),
        ("terziglio_card_points_required", "card_points"),
    ]
    assert [str(e) for e in errors] == [
        "Say what Bruno bid: chiamo, solo or solissimo.",
        "Enter the card points Bruno took, the last trick included: 0 to 11.",
    ]


def test_card_points_above_11_are_refused():
    [error] = errors_of(TerziglioEntry(CARLA, Bid.CHIAMO, 12))
    assert (error.code, place(error)) == ("terziglio_card_points_too_high", "card_points")
    assert str(error) == "Carla: card points cannot be more than 11, the last trick included."


def test_no_deal_follows_a_decided_match():
    decided = TerziglioStanding((30, -15, -15), 3, winner=ANNA)
    [error] = errors_of(TerziglioEntry(BRUNO, Bid.SOLO, 7), decided)
    assert error.code == "match_decided"
    assert errors_of(A_MONTE, decided)[0].code == "match_decided"


def test_a_refused_deal_is_raised_with_its_number():
    entries = [TerziglioEntry(ANNA, Bid.CHIAMO, 7), TerziglioEntry(BRUNO, None, 7)]
    with pytest.raises(DealInvalid) as caught:
        evaluate_terziglio(RULES, entries)
    assert caught.value.codes == ["terziglio_bid_required"]
    assert caught.value.errors[0].deal_number == 2
    # Deals stored before are scored as they stand.
    outcome = evaluate_terziglio(RULES, entries[:1], checked_from=2)
    assert outcome.standing.balances == (6, -3, -3)


@pytest.mark.parametrize("value", [-1, 7.5, "7", True])
def test_an_entry_holds_whole_numbers_only(value):
    with pytest.raises(ValueError):
        TerziglioEntry(ANNA, Bid.CHIAMO, value)
    with pytest.raises(ValueError):
        TerziglioEntry(value, Bid.CHIAMO, 7)


def test_the_table_agrees_a_line_and_a_number_of_deals_in_range():
    with pytest.raises(RuleError) as caught:
        TerziglioRules(deals=0)
    assert (caught.value.code, caught.value.part) == ("deals_out_of_range", "deals")
    assert str(caught.value) == "The number of deals must be from 1 to 99, not 0."
    with pytest.raises(RuleError) as caught:
        TerziglioRules(line=5)
    assert caught.value.code == "line_out_of_range"
    with pytest.raises(ValueError):
        TerziglioRules(player_names=("Anna", "Bruno"))


# --- The match ---------------------------------------------------------------


def test_the_sources_deals_in_a_row_and_the_line():
    outcome = evaluate_terziglio(
        RULES,
        [
            TerziglioEntry(ANNA, Bid.CHIAMO, 7),
            A_MONTE,
            TerziglioEntry(BRUNO, Bid.SOLO, 5),
            TerziglioEntry(CARLA, Bid.SOLISSIMO, 8),
        ],
        first_dealer=CARLA,
    )
    assert [deal.changes for deal in outcome.deals] == [
        (6, -3, -3),
        (0, 0, 0),
        (2, -4, 2),
        (-15, -15, 30),
    ]
    assert [deal.balances for deal in outcome.deals] == [
        (6, -3, -3),
        (6, -3, -3),
        (8, -7, -1),
        (-7, -22, 29),
    ]
    assert [deal.soloist_won for deal in outcome.deals] == [True, None, False, True]
    # The deal passes to the right, a monte or not.
    assert [deal.dealer for deal in outcome.deals] == [CARLA, ANNA, BRUNO, CARLA]
    assert outcome.standing == TerziglioStanding((-7, -22, 29), 4, CARLA, ANNA)
    assert outcome.standing.decided


def test_on_the_line_two_highest_balances_alike_play_another_deal():
    rules = TerziglioRules(player_names=NAMES, line=21)
    # Carla loses a solo 4-7: Anna and Bruno, 19 each, are paid 6 and reach 25 together.
    standing = TerziglioStanding((19, 19, -38), 6)
    deal, after = next_terziglio_deal(rules, standing, TerziglioEntry(CARLA, Bid.SOLO, 4))
    assert deal.changes == (6, 6, -12)
    assert after.balances == (25, 25, -50)
    assert not after.decided
    _, after = next_terziglio_deal(rules, after, TerziglioEntry(ANNA, Bid.CHIAMO, 6))
    assert (after.balances, after.winner) == ((27, 24, -51), ANNA)


def test_after_the_agreed_deals_the_highest_balance_wins():
    rules = TerziglioRules(player_names=NAMES, end=TerziglioEnd.DEALS, deals=3)
    entries = [TerziglioEntry(ANNA, Bid.SOLISSIMO, 11), A_MONTE]
    assert not evaluate_terziglio(rules, entries).standing.decided  # 66 up, 2 deals of 3
    outcome = evaluate_terziglio(rules, [*entries, TerziglioEntry(BRUNO, Bid.CHIAMO, 3)])
    assert outcome.standing.balances == (71, -43, -28)
    assert outcome.standing.winner == ANNA


def test_after_the_agreed_deals_a_tie_at_the_top_plays_another_deal():
    rules = TerziglioRules(player_names=NAMES, end=TerziglioEnd.DEALS, deals=1)
    outcome = evaluate_terziglio(rules, [TerziglioEntry(CARLA, Bid.CHIAMO, 5)])
    assert outcome.standing.balances == (1, 1, -2)
    assert not outcome.standing.decided


def test_a_match_played_until_the_table_stops_is_never_decided_by_the_rules():
    rules = TerziglioRules(player_names=NAMES, end=TerziglioEnd.STOPPED)
    outcome = evaluate_terziglio(rules, [TerziglioEntry(ANNA, Bid.SOLISSIMO, 11)] * 5)
    assert outcome.standing.balances == (330, -165, -165)
    assert not outcome.standing.decided


entries = st.one_of(
    st.just(A_MONTE),
    st.builds(
        TerziglioEntry,
        soloist=st.integers(0, 2),
        bid=st.sampled_from(list(Bid)),
        card_points=st.integers(0, 11),
    ),
)


@given(
    st.lists(entries, max_size=30),
    st.sampled_from(list(Payment)),
    st.integers(0, 2),
)
def test_balances_sum_to_zero_after_every_deal_and_one_deal_at_a_time_agrees(
    played, payment, first_dealer
):
    rules = TerziglioRules(payment=payment, end=TerziglioEnd.STOPPED)
    outcome = evaluate_terziglio(rules, played, first_dealer=first_dealer)
    standing = TerziglioStanding(next_dealer=first_dealer)
    for deal, entry in zip(outcome.deals, played, strict=True):
        assert sum(deal.balances) == 0
        again, standing = next_terziglio_deal(rules, standing, entry)
        assert again == deal
    assert standing == outcome.standing


def test_the_first_dealer_sits_at_the_table():
    with pytest.raises(ValueError):
        evaluate_terziglio(RULES, [], first_dealer=3)
    assert evaluate_terziglio(RULES, [], first_dealer=2).standing.next_dealer == 2
