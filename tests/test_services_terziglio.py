"""Terziglio through the services: three players each a side of one, a soloist a deal, the
balances moved by what each deal pays and always summing to zero."""

import pytest

from matches import rules, services
from matches.models import Action, Change, Deal, Match
from matches.rules import Bid, EndReason, Status, TerziglioEntry, TerziglioTerms
from tests.factories import MatchFactory, TableFactory

pytestmark = pytest.mark.django_db

ANNA, BRUNO, CARLA = 0, 1, 2
TERMS = TerziglioTerms()  # chiamo 1, solo 2, solissimo 3 times the difference; line 21


def start(terms: TerziglioTerms = TERMS, first_dealer: int = 0) -> Match:
    return services.start_match(
        table=TableFactory(),
        players=[["Anna"], ["Bruno"], ["Carla"]],
        side_names=(),
        settings=terms,
        first_dealer=first_dealer,
    )


def play(match: Match, *entries: TerziglioEntry) -> Match:
    for entry in entries:
        number = Match.objects.get(pk=match.pk).deal_count + 1
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    return Match.objects.get(pk=match.pk)


def test_a_match_of_three_seats_each_player_as_a_side_of_one():
    match = start()
    assert match.game == rules.Game.TERZIGLIO
    assert [(side.position, side.name) for side in match.sides.all()] == [
        (0, "Anna"),
        (1, "Bruno"),
        (2, "Carla"),
    ]
    assert match.totals == (0, 0, 0)
    assert match.settings == TerziglioTerms()
    assert Change.objects.get(match=match, action=Action.MATCH_STARTED).new == {
        "payment": "difference",
        "end": "line",
        "line": 21,
    }


def test_each_deal_moves_the_balances_by_what_it_pays_and_they_sum_to_zero():
    """The rules' worked deals: a chiamo won 7-4, a deal a monte, a solo lost 5-6, a
    solissimo won 8-3 (line 21: Carla reaches 29 and the match is decided for her)."""
    match = play(
        start(),
        TerziglioEntry(ANNA, Bid.CHIAMO, 7),
        TerziglioEntry(),
        TerziglioEntry(BRUNO, Bid.SOLO, 5),
        TerziglioEntry(CARLA, Bid.SOLISSIMO, 8),
    )
    deals = list(match.deals.order_by("number"))
    assert [deal.points for deal in deals] == [(6, -3, -3), (0, 0, 0), (2, -4, 2), (-15, -15, 30)]
    assert [deal.entry for deal in deals] == [
        TerziglioEntry(ANNA, Bid.CHIAMO, 7),
        TerziglioEntry(),
        TerziglioEntry(BRUNO, Bid.SOLO, 5),
        TerziglioEntry(CARLA, Bid.SOLISSIMO, 8),
    ]
    assert match.totals == (-7, -22, 29)
    assert sum(match.totals) == 0
    assert match.decided_for == CARLA
    ended = services.end_match(match=match)
    assert (ended.status, ended.winner, ended.end_reason) == (Status.FINISHED, CARLA, "line")


def test_a_deal_the_rules_refuse_is_said_in_the_players_names_and_nothing_is_stored():
    match = start()
    with pytest.raises(rules.DealInvalid) as refused:
        services.record_deal(match_id=match.pk, number=1, entry=TerziglioEntry(BRUNO, None, 12))
    assert [str(error) for error in refused.value.errors] == [
        "Say what Bruno bid: chiamo, solo or solissimo.",
        "Bruno: card points cannot be more than 11, the last trick included.",
    ]
    assert not Deal.objects.filter(match=match).exists()
    assert Match.objects.get(pk=match.pk).revision == match.revision


def test_a_match_of_agreed_deals_ends_after_them_with_the_highest_balance():
    match = play(
        start(TerziglioTerms(end=rules.TerziglioEnd.DEALS, deals=2)),
        TerziglioEntry(ANNA, Bid.CHIAMO, 7),
        TerziglioEntry(BRUNO, Bid.CHIAMO, 6),
    )
    assert match.totals == (5, -1, -4)  # 7-4 pays 3 a player; 6-5, 1
    ended = services.end_match(match=match)
    assert (ended.winner, ended.end_reason) == (ANNA, EndReason.DEALS)


def test_balances_level_at_the_top_after_the_agreed_deals_play_another():
    match = play(
        start(TerziglioTerms(end=rules.TerziglioEnd.DEALS, deals=2)),
        TerziglioEntry(ANNA, Bid.CHIAMO, 7),
        TerziglioEntry(BRUNO, Bid.CHIAMO, 7),
    )
    assert match.totals == (3, 3, -6)
    with pytest.raises(services.ServiceError) as refused:
        services.end_match(match=match)
    assert refused.value.code == "not_decided_tie"
    match = play(match, TerziglioEntry(ANNA, Bid.CHIAMO, 6))
    assert services.end_match(match=match).winner == ANNA


def test_a_match_the_table_stops_has_no_winner_but_keeps_its_balances():
    match = play(
        start(TerziglioTerms(end=rules.TerziglioEnd.STOPPED)),
        *[TerziglioEntry(ANNA, Bid.SOLISSIMO, 11)] * 3,
    )
    assert match.totals == (198, -99, -99)  # past any line: only the table stops it
    assert match.decided_for is None
    stopped = services.stop_match(match=match)
    assert (stopped.status, stopped.totals) == (Status.ABANDONED, (198, -99, -99))


def test_undo_edit_and_restore_keep_the_balances_summing_to_zero():
    match = play(
        start(),
        TerziglioEntry(ANNA, Bid.CHIAMO, 7),
        TerziglioEntry(BRUNO, Bid.SOLO, 5),
    )
    services.delete_last_deal(match=match, number=2)
    assert Match.objects.get(pk=match.pk).totals == (6, -3, -3)
    services.restore_deal(match=Match.objects.get(pk=match.pk), number=2)
    assert Match.objects.get(pk=match.pk).totals == (8, -7, -1)
    first = Deal.objects.get(match=match, number=1)
    services.edit_deal(
        deal=first, version=first.version, entry=TerziglioEntry(CARLA, Bid.CHIAMO, 4)
    )
    edited = Match.objects.get(pk=match.pk)
    assert Deal.objects.get(match=match, number=1).points == (3, 3, -6)
    assert edited.totals == (5, -1, -4)
    assert sum(edited.totals) == 0


def test_the_deal_passes_to_the_right_and_a_rematch_begins_with_the_next_dealer():
    match = play(start(first_dealer=BRUNO), TerziglioEntry(), TerziglioEntry(ANNA, Bid.CHIAMO, 9))
    assert match.standing.next_dealer == ANNA  # Bruno, Carla, then Anna
    match = play(match, TerziglioEntry(ANNA, Bid.SOLISSIMO, 11))  # Anna 80: she has won
    services.end_match(match=match)
    again = services.rematch(match=Match.objects.get(pk=match.pk))
    assert (again.game, again.first_dealer, again.settings) == (
        rules.Game.TERZIGLIO,
        BRUNO,  # Anna dealt the third deal
        match.settings,
    )
    assert again.totals == (0, 0, 0)


def test_three_players_are_seated_once_each():
    with pytest.raises(rules.RuleError) as refused:
        services.start_match(
            table=TableFactory(), players=[["Anna"], ["anna"], ["Carla"]], settings=TerziglioTerms()
        )
    assert refused.value.code == "seated_twice"


def test_a_player_of_a_match_of_three_is_renamed_there_too():
    match = play(start(), TerziglioEntry(ANNA, Bid.CHIAMO, 7))
    anna = match.sides.get(position=ANNA).first_player
    services.rename_player(player=anna, name="Annamaria")
    assert list(match.sides.values_list("name", flat=True)) == ["Annamaria", "Bruno", "Carla"]
    assert Match.objects.get(pk=match.pk).revision == match.revision + 1


def test_a_deal_of_one_game_is_refused_in_a_match_of_the_other_even_under_a_saved_key():
    tressette = MatchFactory()
    worked = rules.DealEntry((8, 3), (3, 0))
    services.record_deal(match_id=tressette.pk, number=1, entry=worked, idempotency_key="k")
    for number in (1, 2):
        solo = TerziglioEntry(0, Bid.SOLO, 7)
        with pytest.raises(services.ServiceError) as refused:
            services.record_deal(
                match_id=tressette.pk, number=number, entry=solo, idempotency_key="k"
            )
        assert refused.value.code == "other_game"
    with pytest.raises(services.ServiceError) as refused:
        services.record_deal(match_id=start().pk, number=1, entry=worked)
    assert refused.value.code == "other_game"
