"""Tressette a perdere (Rovescino, Ciapanò, Traversone): 3 to 5 players avoiding points, who
reaches the line is out (matches/rules.py, no database). Sources cited in docs/rules.md."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.rules import (
    A_PERDERE_PLAYERS,
    APerdereEnd,
    APerdereEntry,
    APerdereRules,
    APerdereStanding,
    APerdereTerms,
    DealInvalid,
    EndReason,
    Fractions,
    Game,
    RuleError,
    a_perdere_dealer,
    a_perdere_errors,
    a_perdere_hands,
    a_perdere_points,
    a_perdere_totals,
    card_points_from_count,
    evaluate_a_perdere,
    next_a_perdere_deal,
    seating_errors,
)
from tests.test_rules_scoring import place

NAMES = ("Anna", "Bruno", "Carla", "Dino")
ANNA, BRUNO, CARLA, DINO = range(4)
RULES = APerdereRules(player_names=NAMES)
START = APerdereStanding((0, 0, 0, 0))


def errors_of(
    entry: APerdereEntry, rules: APerdereRules = RULES, standing: APerdereStanding = START
) -> list[RuleError]:
    return a_perdere_errors(rules, standing, entry)


def own(aces: int, figures: int, last_trick: bool = False) -> int:
    """A player's own card points from their pile, their own fraction dropped."""
    return card_points_from_count(aces=aces, figures=figures, last_trick=last_trick)[0]


def splits(total: int, parts: int):
    """Every way `total` cards fall into `parts` piles."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in splits(total - first, parts - 1):
            yield (first, *rest)


# --- The deck and the players' count -----------------------------------------


def test_the_deal_gives_each_player_the_same_hand():
    # Dossena: 13 cards each with three, a 4 set aside; 10 each with four; 8 with five.
    assert [a_perdere_hands(players) for players in A_PERDERE_PLAYERS] == [
        (13, 1),
        (10, 0),
        (8, 0),
    ]


def test_a_deal_holds_10_or_11_with_three_players_and_9_to_11_with_four_or_five():
    assert a_perdere_totals(3) == {10, 11}
    assert a_perdere_totals(4) == {9, 10, 11}
    assert a_perdere_totals(5) == {9, 10, 11}
    # Two players (three went out) are two sides: the partnership game's 11.
    assert a_perdere_totals(2) == {11}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_totals_are_every_way_the_figures_can_fall(players):
    # The 4 aces and the last trick are whole points (5 in all); only the 20 figures, a third
    # each, leave fractions, and each player drops their own.
    by_cards = {5 + sum(figures // 3 for figures in pile) for pile in splits(20, players)}
    assert a_perdere_totals(players) == by_cards


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("fractions", list(Fractions))
def test_the_possible_totals_run_without_a_gap(players, fractions):
    # The refusal says "from the least to the most": no total between them is impossible.
    possible = a_perdere_totals(players, fractions)
    assert possible == set(range(min(possible), max(possible) + 1))


def test_four_players_can_drop_two_thirds_each_and_make_9():
    piles = [own(2, 2), own(2, 2), own(0, 8), own(0, 8, last_trick=True)]
    assert piles == [2, 2, 2, 3]
    assert errors_of(APerdereEntry(tuple(piles))) == []


def test_the_worked_deal_4_3_2_0_plus_the_last_trick():
    # Anna 2 aces and 7 figures (4⅓), Bruno an ace and 6 (3), Carla an ace and 5 (2⅔), Dino
    # 2 figures (⅔) and the last trick: 4 + 3 + 2 + 1 = 10, five thirds dropped.
    piles = (own(2, 7), own(1, 6), own(1, 5), own(0, 2, last_trick=True))
    assert piles == (4, 3, 2, 1)
    outcome = evaluate_a_perdere(RULES, [APerdereEntry(piles)])
    assert outcome.deals[0].points == (4, 3, 2, 1)
    assert outcome.standing.totals == (4, 3, 2, 1)
    # Had Anna taken the last trick instead, her 16 thirds make 5 and Dino's 2 make 0.
    assert (own(2, 7, last_trick=True), own(0, 2)) == (5, 0)
    assert errors_of(APerdereEntry((5, 3, 2, 0))) == []


def test_charged_to_the_last_trick_the_left_over_thirds_make_11():
    rules = APerdereRules(player_names=NAMES, fractions=Fractions.TO_LAST_TRICK)
    # The worked deal: Dino, who took the last trick, is charged 11 - 9 = 2.
    assert errors_of(APerdereEntry((4, 3, 2, 2)), rules) == []
    [error] = errors_of(APerdereEntry((4, 3, 2, 1)), rules)
    assert error.code == "a_perdere_total_exact"
    assert str(error) == (
        "Check the counts: with 4 players in, card points (the last trick included) add up to "
        "11, not 10."
    )


# --- Impossible deals, in words ----------------------------------------------


@pytest.mark.parametrize(
    ("names", "card_points", "said"),
    [
        (NAMES, (4, 3, 2, 3), "with 4 players in, card points (the last trick included) "
         "add up to 9 to 11, not 12."),
        (NAMES, (4, 3, 1, 0), "with 4 players in, card points (the last trick included) "
         "add up to 9 to 11, not 8."),
        (NAMES[:3], (4, 3, 2), "with 3 players in, card points (the last trick included) "
         "add up to 10 to 11, not 9."),
        (("Anna", "Bruno", "Carla", "Dino", "Elio"), (3, 3, 3, 3, 0),
         "with 5 players in, card points (the last trick included) add up to 9 to 11, not 12."),
    ],
)  # fmt: skip
def test_an_impossible_deal_total_is_refused_in_words(names, card_points, said):
    start = APerdereStanding((0,) * len(names))
    [error] = errors_of(APerdereEntry(card_points), APerdereRules(player_names=names), start)
    assert (error.code, place(error)) == ("a_perdere_total", "card_points")
    assert str(error) == f"Check the counts: {said}"


def test_with_two_players_left_a_deal_makes_exactly_11():
    two_left = APerdereStanding((22, 23, 12, 9), 6, (5, 6, None, None))
    [error] = errors_of(APerdereEntry((0, 0, 5, 5)), standing=two_left)
    assert error.code == "a_perdere_total_exact"
    assert str(error).endswith("with 2 players in, card points (the last trick included) add up "
                               "to 11, not 10.")  # fmt: skip
    assert errors_of(APerdereEntry((0, 0, 5, 6)), standing=two_left) == []


def test_a_player_out_plays_no_more():
    one_out = APerdereStanding((22, 13, 12, 9), 5, (5, None, None, None))
    errors = errors_of(APerdereEntry((1, 4, 3, 2)), standing=one_out)
    assert [(e.code, place(e)) for e in errors] == [("a_perdere_player_out", "card_points_0")]
    assert str(errors[0]) == "Anna is out of the match and plays no more: their card points are 0."
    assert errors_of(APerdereEntry((0, 5, 3, 2)), standing=one_out) == []


def test_one_number_for_each_player():
    [error] = errors_of(APerdereEntry((5, 3, 2)))
    assert (error.code, str(error)) == (
        "a_perdere_points_count",
        "Enter one number for each of the 4 players.",
    )


@pytest.mark.parametrize("players", [2, 6])
def test_the_game_is_for_3_to_5_players(players):
    with pytest.raises(RuleError) as caught:
        APerdereRules(player_names=tuple(f"P{seat}" for seat in range(players)))
    assert (caught.value.code, caught.value.part) == ("a_perdere_players", "players")
    assert str(caught.value) == f"Tressette a perdere is played by 3 to 5 players, not {players}."


@pytest.mark.parametrize("value", [-1, 2.5, "3"])
def test_an_entry_holds_whole_numbers_only(value):
    with pytest.raises(ValueError):
        APerdereEntry((4, 3, 2, value))
    with pytest.raises(ValueError):
        APerdereEntry((11, 0, 0, 0), sweeper=value)


# --- The reversed sweep ------------------------------------------------------


def test_taking_every_point_charges_the_full_count_to_everyone_else():
    swept = APerdereEntry((0, 11, 0, 0), sweeper=BRUNO)
    assert errors_of(swept) == []
    outcome = evaluate_a_perdere(RULES, [APerdereEntry((4, 3, 2, 1)), swept])
    assert outcome.deals[1].points == (11, 0, 11, 11)
    assert outcome.standing.totals == (15, 3, 13, 12)


def test_a_player_out_is_charged_nothing_by_a_reversed_sweep():
    assert a_perdere_points(APerdereEntry((0, 11, 0, 0), sweeper=BRUNO), (1, 2, 3)) == (
        0,
        0,
        11,
        11,
    )


def test_11_for_one_player_is_the_reversed_sweep_where_the_table_plays_it():
    [error] = errors_of(APerdereEntry((0, 0, 11, 0)))
    assert (error.code, place(error)) == ("a_perdere_sweep_unmarked", "sweeper")
    assert str(error) == (
        "Carla took every point: that is the reversed sweep, 0 for them and 11 for everyone "
        "else. Mark it as such."
    )
    plain = APerdereRules(player_names=NAMES, reversed_sweep=False)
    assert errors_of(APerdereEntry((0, 0, 11, 0)), plain) == []
    assert evaluate_a_perdere(plain, [APerdereEntry((0, 0, 11, 0))]).standing.totals == (
        0,
        0,
        11,
        0,
    )


def test_a_reversed_sweep_where_the_table_does_not_play_it_is_refused():
    plain = APerdereRules(player_names=NAMES, reversed_sweep=False)
    [error] = errors_of(APerdereEntry((0, 0, 11, 0), sweeper=CARLA), plain)
    assert (error.code, place(error)) == ("a_perdere_sweep_not_played", "sweeper")
    assert str(error) == (
        "This match is played without the reversed sweep: enter each player's card points."
    )


def test_the_sweeper_is_a_player_still_in_who_took_all_11():
    one_out = APerdereStanding((22, 13, 12, 9), 5, (5, None, None, None))
    [error] = errors_of(APerdereEntry((0, 11, 0, 0), sweeper=ANNA), standing=one_out)
    assert (error.code, place(error)) == ("a_perdere_sweeper_not_in", "sweeper")
    assert str(error) == "Pick one of the players still in as the one who took every point."
    [error] = errors_of(APerdereEntry((0, 0, 0, 0), sweeper=7))
    assert error.code == "a_perdere_sweeper_not_in"
    [error] = errors_of(APerdereEntry((1, 10, 0, 0), sweeper=BRUNO))
    assert (error.code, place(error)) == ("a_perdere_sweeper_points", "card_points_1")
    assert str(error) == (
        "In the reversed sweep Bruno took every point: their card points are 11 and everyone "
        "else's 0."
    )


# --- The end of the match ----------------------------------------------------


def test_who_reaches_the_line_is_out_and_the_last_one_in_wins():
    outcome = evaluate_a_perdere(
        RULES,
        [
            APerdereEntry((5, 3, 2, 0)),
            APerdereEntry((0, 0, 0, 11), sweeper=DINO),
            APerdereEntry((6, 1, 2, 1)),  # Anna 22: out
            APerdereEntry((0, 7, 1, 2)),  # three in: 10; Bruno 22: out
            APerdereEntry((0, 0, 5, 6)),  # two in: 11; Carla 21: out
        ],
    )
    assert [deal.out for deal in outcome.deals] == [(), (), (ANNA,), (BRUNO,), (CARLA,)]
    assert outcome.standing.out_after == (3, 4, 5, None)
    assert outcome.standing.still_in == (DINO,)
    assert (outcome.standing.winner, outcome.standing.decided) == (DINO, True)
    # The deal passes to the right, skipping who is out.
    assert [deal.dealer for deal in outcome.deals] == [ANNA, BRUNO, CARLA, DINO, CARLA]
    assert outcome.standing.next_dealer == DINO


def test_three_to_five_players_sit_each_for_themselves():
    def codes(players, first_dealer=0):
        names = [" ".join(side) for side in players]
        return [e.code for e in seating_errors(players, names, first_dealer, Game.A_PERDERE)]

    for count in A_PERDERE_PLAYERS:
        assert codes([[name] for name in "ABCDE"[:count]], first_dealer=count - 1) == []
    assert codes([["A"], ["B"]]) == ["a_perdere_players"]
    assert codes([[name] for name in "ABCDEF"]) == ["a_perdere_players"]
    assert codes([["A", "B"], ["C", "D"], ["E", "F"]]) == ["side_sizes"]
    assert codes([["Anna"], ["Bruno"], ["anna"]]) == ["seated_twice"]
    assert codes([["A"], ["B"], ["C"]], first_dealer=3) == ["first_dealer_not_seated"]


@pytest.mark.parametrize("first", range(4))
def test_who_deals_next_is_found_again_from_who_went_out_when(first):
    """A match keeps only who went out after which deal: the dealer is found from that."""
    entries = [APerdereEntry((5, 3, 2, 0)), APerdereEntry((0, 0, 0, 11), sweeper=DINO),
               APerdereEntry((6, 1, 2, 1)), APerdereEntry((0, 7, 1, 2)),
               APerdereEntry((0, 0, 5, 6))]  # fmt: skip
    for played in range(len(entries) + 1):
        standing = evaluate_a_perdere(RULES, entries[:played], first_dealer=first).standing
        assert a_perdere_dealer(first, played, standing.out_after) == standing.next_dealer


def test_no_deal_follows_a_decided_match():
    decided = APerdereStanding((22, 22, 21, 9), 5, (3, 4, 5, None), winner=DINO)
    [error] = errors_of(APerdereEntry((0, 0, 0, 11), sweeper=DINO), standing=decided)
    assert error.code == "match_decided"


def test_when_everyone_still_in_reaches_the_line_at_once_the_lowest_wins():
    three_in = APerdereStanding((25, 18, 19, 20), 9, (8, None, None, None), next_dealer=BRUNO)
    deal, after = next_a_perdere_deal(RULES, three_in, APerdereEntry((0, 3, 4, 4)))
    assert deal.totals == (25, 21, 23, 24)
    assert (deal.out, after.winner) == ((CARLA, DINO), BRUNO)


def test_when_everyone_still_in_reaches_the_line_alike_they_play_on():
    three_in = APerdereStanding((25, 18, 19, 18), 9, (8, None, None, None), next_dealer=BRUNO)
    deal, after = next_a_perdere_deal(RULES, three_in, APerdereEntry((0, 4, 3, 4)))
    assert deal.totals == (25, 22, 22, 22)
    assert (deal.out, after.winner, after.still_in) == ((), None, (BRUNO, CARLA, DINO))
    _, after = next_a_perdere_deal(RULES, after, APerdereEntry((0, 5, 2, 4)))
    assert (after.totals, after.winner) == ((25, 27, 24, 26), CARLA)


def test_by_the_tables_choice_the_lowest_wins_when_the_first_reaches_the_line():
    rules = APerdereRules(player_names=NAMES, end=APerdereEnd.LOWEST)
    standing = APerdereStanding((18, 12, 15, 9), 4)
    deal, after = next_a_perdere_deal(rules, standing, APerdereEntry((4, 3, 2, 1)))
    assert deal.totals == (22, 15, 17, 10)
    assert (deal.out, after.winner, after.still_in) == ((), DINO, (ANNA, BRUNO, CARLA, DINO))


def test_by_the_tables_choice_a_tie_for_the_lowest_plays_another_deal():
    rules = APerdereRules(player_names=NAMES, end=APerdereEnd.LOWEST)
    standing = APerdereStanding((18, 12, 15, 9), 4)
    _, after = next_a_perdere_deal(rules, standing, APerdereEntry((4, 0, 2, 3)))
    assert (after.totals, after.winner) == ((22, 12, 17, 12), None)
    _, after = next_a_perdere_deal(rules, after, APerdereEntry((2, 5, 3, 0)))
    assert (after.totals, after.winner) == ((24, 17, 20, 12), DINO)


def test_the_outcome_reads_as_an_outcome_of_two_sides_does():
    """What ends, stops or lists a match reads an outcome a perdere as it reads Tressette's."""
    entries = [APerdereEntry((5, 3, 2, 0)), APerdereEntry((0, 0, 0, 11), sweeper=DINO)]
    playing = evaluate_a_perdere(RULES, entries)
    assert (playing.totals, playing.winner, playing.decided, playing.reason) == (
        (16, 14, 13, 0), None, False, None)  # fmt: skip
    assert playing.needs == (5, 7, 8, 21)
    assert (playing.another_deal, playing.next_number, playing.next_dealer) == (False, 3, CARLA)
    entries += [APerdereEntry((6, 1, 2, 1)), APerdereEntry((0, 7, 1, 2))]
    entries += [APerdereEntry((0, 0, 5, 6))]
    won = evaluate_a_perdere(RULES, entries)
    assert (won.winner, won.decided, won.reason, won.another_deal) == (
        DINO, True, EndReason.LAST_IN, False)  # fmt: skip
    assert won.needs == (0, 0, 0, 12)  # who is out needs nothing more


def test_a_tie_for_the_lowest_at_the_line_is_another_deal():
    lowest = APerdereRules(player_names=NAMES, end=APerdereEnd.LOWEST)
    before = evaluate_a_perdere(lowest, [APerdereEntry((4, 2, 2, 3))] * 5)
    assert (before.totals, before.winner, before.another_deal) == ((20, 10, 10, 15), None, False)
    level = evaluate_a_perdere(lowest, [APerdereEntry((4, 2, 2, 3))] * 6)
    assert (level.totals, level.winner, level.another_deal, level.reason) == (
        (24, 12, 12, 18), None, True, None)  # fmt: skip
    won = evaluate_a_perdere(lowest, [APerdereEntry((3, 3, 2, 3))] * 7)
    assert (won.totals, won.winner, won.another_deal, won.reason) == (
        (21, 21, 14, 21), CARLA, False, EndReason.LOWEST)  # fmt: skip


def test_the_terms_as_the_log_keeps_them():
    terms = APerdereTerms(line=31, end=APerdereEnd.LOWEST, fractions=Fractions.TO_LAST_TRICK,
                          reversed_sweep=False)  # fmt: skip
    assert terms.as_dict() == {"line": 31, "end": "lowest", "fractions": "to_last_trick",
                               "reversed_sweep": False}  # fmt: skip
    assert APerdereTerms(**terms.as_dict()) == terms
    assert (terms.end_reason, APerdereTerms().end_reason) == (EndReason.LOWEST, EndReason.LAST_IN)


def test_a_refused_deal_is_raised_with_its_number():
    entries = [APerdereEntry((4, 3, 2, 1)), APerdereEntry((4, 3, 2, 3))]
    with pytest.raises(DealInvalid) as caught:
        evaluate_a_perdere(RULES, entries)
    assert caught.value.codes == ["a_perdere_total"]
    assert caught.value.errors[0].deal_number == 2
    # Deals stored before are scored as they stand.
    assert evaluate_a_perdere(RULES, entries, checked_from=3).standing.totals == (8, 6, 4, 4)


@given(st.data(), st.sampled_from(A_PERDERE_PLAYERS), st.sampled_from(list(APerdereEnd)))
def test_one_deal_at_a_time_agrees_with_the_whole_match(data, players, end):
    rules = APerdereRules(player_names=tuple(f"P{seat}" for seat in range(players)), end=end)
    standing = APerdereStanding((0,) * players)
    entries, deals = [], []
    while not standing.decided and len(entries) < 40:
        still_in = standing.still_in
        total = data.draw(st.sampled_from(sorted(a_perdere_totals(len(still_in)))))
        cuts = sorted(data.draw(st.lists(st.integers(0, total), min_size=len(still_in) - 1,
                                         max_size=len(still_in) - 1)))  # fmt: skip
        shares = [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=True)]
        cards = [0] * players
        for seat, share in zip(still_in, shares, strict=True):
            cards[seat] = share
        sweeper = cards.index(11) if 11 in cards else None
        entry = APerdereEntry(tuple(cards), sweeper)
        deal, after = next_a_perdere_deal(rules, standing, entry)
        assert all(a >= b for a, b in zip(after.totals, standing.totals, strict=True))
        assert len(after.still_in) >= 1
        entries.append(entry)
        deals.append(deal)
        standing = after
    outcome = evaluate_a_perdere(rules, entries)
    assert outcome.deals == tuple(deals)
    assert outcome.standing == standing


def test_the_first_dealer_sits_at_the_table():
    with pytest.raises(ValueError):
        evaluate_a_perdere(RULES, [], first_dealer=4)
    assert evaluate_a_perdere(RULES, [], first_dealer=3).standing.next_dealer == DINO
