"""One test per database constraint: full_clean() refuses, and so does the database."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from matches.models import Change, Deal, Match, Player, Side, Table
from tests.factories import DealFactory, MatchFactory, PlayerFactory, TableFactory

pytestmark = pytest.mark.django_db


def refused(model, **fields):
    """Both guards refuse the row: model validation and the database itself."""
    with pytest.raises(ValidationError):
        model(**fields).full_clean()
    with pytest.raises(IntegrityError), transaction.atomic():
        model.objects.create(**fields)
    return True


def test_a_table_needs_a_name():
    assert refused(Table, name="   ")


def test_a_tables_two_links_differ():
    assert refused(Table, name="Bar Sport", scorer_token="same", viewer_token="same")


def test_player_names_are_unique_per_table_whatever_the_case():
    player = PlayerFactory(name="Alice")
    assert refused(Player, table=player.table, name="ALICE")
    assert Player.objects.create(table=TableFactory(), name="alice")


def test_a_player_needs_a_name():
    assert refused(Player, table=TableFactory(), name=" ")


@pytest.mark.parametrize("line", [10, 102])
def test_the_line_stays_between_11_and_101(line):
    assert refused(Match, table=TableFactory(), line=line)


def test_one_or_two_players_per_side():
    assert refused(Match, table=TableFactory(), players_per_side=3)


@pytest.mark.parametrize("field", ["totals", "declarations", "declared", "sweeps"])
def test_what_a_match_counts_per_side_is_never_negative(field):
    assert refused(Match, table=TableFactory(), **{field: [4, -1]})
    assert Match.objects.create(table=TableFactory(), **{field: [4, 1]})


def test_the_first_dealer_is_a_seat():
    assert refused(Match, table=TableFactory(), players_per_side=1, first_dealer=2)


def test_the_winner_is_a_side():
    assert refused(
        Match,
        table=TableFactory(),
        status="finished",
        winner=2,
        end_reason="line",
        finished_at="2026-11-29T20:00Z",
    )


def test_the_tie_rule_is_known():
    assert refused(Match, table=TableFactory(), tie_rule="coin_toss")


def test_a_finished_match_has_its_result():
    assert refused(Match, table=TableFactory(), status="finished")


def test_a_match_in_progress_has_no_rematch():
    assert refused(Match, table=TableFactory(), next_match=MatchFactory())


def test_a_match_in_progress_has_no_winner():
    assert refused(Match, table=TableFactory(), winner=0)


def test_a_match_stopped_undecided_has_a_stop_time_and_no_winner():
    from django.utils import timezone

    now = timezone.now()
    assert refused(Match, table=TableFactory(), status="abandoned")
    assert refused(Match, table=TableFactory(), status="abandoned", finished_at=now, winner=1)
    assert refused(
        Match, table=TableFactory(), status="abandoned", finished_at=now, end_reason="line"
    )
    stopped = Match(table=TableFactory(), status="abandoned", finished_at=now)
    stopped.full_clean()
    stopped.save()


def test_two_sides_of_a_match_have_different_positions():
    match = MatchFactory()
    assert refused(
        Side, match=match, position=1, name="Again", first_player=PlayerFactory(table=match.table)
    )


def test_a_side_sits_at_a_seat_of_five_at_most():
    """Two sides at Tressette, three players at Terziglio, up to five a perdere: no sixth."""
    match = MatchFactory(sides=[["A"], ["B"]], players_per_side=1)
    assert refused(
        Side, match=match, position=5, name="Sixth", first_player=PlayerFactory(table=match.table)
    )


def test_a_side_needs_a_name():
    match = MatchFactory(sides=[["A"], ["B"]], players_per_side=1)
    Side.objects.filter(match=match, position=1).delete()
    player = PlayerFactory(table=match.table)
    assert refused(Side, match=match, position=1, name="  ", first_player=player)


def test_a_player_cannot_be_both_partners():
    match = MatchFactory(sides=[["A"], ["B"]], players_per_side=1)
    Side.objects.filter(match=match, position=1).delete()
    player = PlayerFactory(table=match.table)
    assert refused(
        Side, match=match, position=1, name="X", first_player=player, second_player=player
    )


def deal(**overrides):
    fields = {
        "match": MatchFactory(),
        "number": 1,
        "card_points": [8, 3],
        "declared_points": [3, 0],
        "points": [11, 3],
    }
    return {**fields, **overrides}


def test_deal_numbers_are_unique_per_match():
    first = DealFactory(number=1)
    assert refused(Deal, **deal(match=first.match, number=1))


def test_deals_are_numbered_from_1():
    assert refused(Deal, **deal(number=0))


def test_an_idempotency_key_makes_at_most_one_deal():
    first = DealFactory(number=1, idempotency_key="k1")
    assert refused(Deal, **deal(match=first.match, number=2, idempotency_key="k1"))


def test_the_deal_kind_is_known():
    assert refused(Deal, **deal(kind="sweep"))


def test_a_normal_deal_has_no_sweeping_side():
    assert refused(Deal, **deal(side=0))


def test_a_sweep_names_its_side():
    assert refused(Deal, **deal(kind="cappotto", card_points=[11, 0]))


@pytest.mark.parametrize(
    "fields",
    [
        {"kind": "cappottone", "side": 0},  # no player named
        {"kind": "cappottone", "side": 0, "seat": 1},  # seat 1 plays for side 1
        {"kind": "stramazzone", "side": 0, "seat": 4},  # no such seat
        {"kind": "cappotto", "side": 0, "seat": 0},  # only a sweep by one player names one
    ],
)
def test_a_sweep_by_one_player_names_their_seat_on_its_side(fields):
    assert refused(Deal, **deal(card_points=[11, 0], points=[21, 0], **fields))
    assert Deal.objects.create(
        **deal(kind="cappottone", side=0, seat=2, card_points=[11, 0], points=[21, 0])
    )


def test_card_points_stay_within_11():
    assert refused(Deal, **deal(card_points=[12, 0]))


def test_card_points_sum_to_11_on_a_played_out_deal():
    assert refused(Deal, **deal(card_points=[8, 4]))


def test_a_claim_may_stop_before_11_but_not_pass_it():
    assert Deal.objects.create(**deal(kind="claim", side=0, card_points=[5, 2]))
    assert refused(Deal, **deal(kind="claim", side=0, card_points=[9, 4]))


def test_points_are_never_negative():
    assert refused(Deal, **deal(points=[11, -1]))


def test_the_change_log_action_is_known():
    assert refused(Change, match=MatchFactory(), action="wiped")


def test_the_change_log_is_append_only():
    change = Change.objects.create(match=MatchFactory(), action="deal_recorded")
    with pytest.raises(ValueError, match="append-only"):
        change.save()
    with pytest.raises(ValueError, match="append-only"):
        change.delete()


def test_names_sort_as_people_alphabetise_them():
    from matches.models import sort_key

    names = ["Zoë", "Élodie", "dino", "Alice", "Ömer"]
    assert sorted(names, key=sort_key) == ["Alice", "dino", "Élodie", "Ömer", "Zoë"]
    assert sorted(["Élodie", "Elodie"], key=sort_key) == ["Elodie", "Élodie"]  # a tie, broken
    assert sorted(["Zoë", "Łukasz", "Marco"], key=sort_key) == ["Łukasz", "Marco", "Zoë"]


TERZIGLIO = {"game": "terziglio", "players_per_side": 1, "payment": "difference", "ends": "line"}


def test_terziglio_balances_sum_to_zero():
    table = TableFactory()
    assert Match.objects.create(table=table, totals=[6, -3, -3], **TERZIGLIO)
    assert refused(Match, table=table, totals=[6, -3, -2], **TERZIGLIO)


def test_tressette_totals_are_never_negative_and_take_no_terziglio_terms():
    table = TableFactory()
    assert refused(Match, table=table, totals=[6, -6])
    assert refused(Match, table=table, payment="flat")


def test_terziglio_ends_after_the_agreed_deals_only_with_a_number_of_them():
    table = TableFactory()
    terms = {**TERZIGLIO, "ends": "deals"}
    assert Match.objects.create(table=table, totals=[0, 0, 0], deals_agreed=12, **terms)
    assert refused(Match, table=table, totals=[0, 0, 0], **terms)
    assert refused(Match, table=table, totals=[0, 0, 0], deals_agreed=12, **TERZIGLIO)


def test_a_terziglio_deal_names_its_soloist_and_moves_the_balances_by_a_sum_of_zero():
    match = Match.objects.create(table=TableFactory(), totals=[0, 0, 0], **TERZIGLIO)
    played = {"match": match, "game": "terziglio", "bid": "chiamo", "card_points": [7],
              "declared_points": []}  # fmt: skip
    assert Deal.objects.create(number=1, side=0, points=[6, -3, -3], **played)
    Deal(number=3, side=0, points=[6, -3, -3], **played).full_clean()  # as the database
    assert refused(Deal, number=2, side=0, points=[6, -3, -2], **played)
    assert refused(Deal, number=2, side=None, points=[6, -3, -3], **played)
    assert refused(Deal, number=2, side=3, points=[6, -3, -3], **played)
    assert refused(Deal, number=2, side=0, points=[6, -3, -3], **{**played, "card_points": [12]})
    assert refused(Deal, number=2, side=0, points=[6, -3, -3], **{**played, "bid": "tutto"})
    a_monte = {"match": match, "game": "terziglio", "bid": "a_monte", "card_points": [],
               "declared_points": []}  # fmt: skip
    assert Deal.objects.create(number=2, points=[0, 0, 0], **a_monte)
    assert refused(Deal, number=3, side=1, points=[0, 0, 0], **a_monte)


def test_terziglio_s_sums_refuse_a_number_missing():
    """Two balances summing to 0 are not three: the missing one's NULL would let the sum's
    check through."""
    table = TableFactory()
    assert refused(Match, table=table, totals=[5, -5], **TERZIGLIO)
    match = Match.objects.create(table=table, totals=[0, 0, 0], **TERZIGLIO)
    played = {"match": match, "game": "terziglio", "bid": "chiamo", "card_points": [7],
              "declared_points": []}  # fmt: skip
    assert refused(Deal, number=1, side=0, points=[6, -6], **played)


def test_only_terziglio_ends_after_its_agreed_deals():
    finished = {"status": "finished", "winner": 0, "finished_at": timezone.now()}
    assert refused(Match, table=TableFactory(), end_reason="deals", **finished)
    terziglio = {**TERZIGLIO, "totals": [2, -1, -1], **finished}
    assert refused(Match, table=TableFactory(), end_reason="cappotto", **terziglio)


A_PERDERE = {"game": "a_perdere", "players_per_side": 1, "ends": "last_in", "fractions": "own"}


def test_a_perdere_totals_are_never_negative_and_its_terms_are_its_own():
    table = TableFactory()
    assert Match.objects.create(table=table, totals=[0, 0, 0, 0, 0], reversed_sweep=True,
                                out_after=[None] * 5, first_dealer=4, **A_PERDERE)  # fmt: skip
    assert refused(Match, table=table, totals=[3, -1, 0], **A_PERDERE)
    assert refused(Match, table=table, totals=[0, 0, 0], **{**A_PERDERE, "ends": "line"})
    assert refused(Match, table=table, totals=[0, 0, 0], **{**A_PERDERE, "fractions": ""})
    assert refused(Match, table=table, totals=[0, 0, 0], first_dealer=5, **A_PERDERE)
    assert refused(Match, table=table, totals=[0, 0], fractions="own")  # Tressette's: none
    assert refused(Match, table=table, totals=[0, 0], reversed_sweep=True)
    won = {"status": "finished", "winner": 3, "finished_at": timezone.now()}
    assert Match.objects.create(table=table, totals=[21, 22, 25, 9], end_reason="last_in",
                                **won, **A_PERDERE)  # fmt: skip
    assert refused(Match, table=table, totals=[21, 22, 25, 9], end_reason="line", **won,
                   **A_PERDERE)  # fmt: skip
    # Won as its terms say: not the lowest where the last one in wins; nor so at Tressette.
    assert refused(Match, table=table, totals=[21, 22, 25, 9], end_reason="lowest", **won,
                   **A_PERDERE)  # fmt: skip
    assert refused(Match, table=table, totals=[21, 9], end_reason="last_in", **won)
    assert refused(Match, table=table, totals=[0, 0], out_after=[None, None])


def test_a_perdere_deal_counts_each_players_points_9_to_11_in_all():
    match = Match.objects.create(table=TableFactory(), totals=[0, 0, 0, 0], **A_PERDERE)
    played = {"match": match, "game": "a_perdere", "declared_points": []}
    assert Deal.objects.create(number=1, card_points=[4, 3, 2, 0], points=[4, 3, 2, 0], **played)
    assert Deal.objects.create(number=2, card_points=[0, 11, 0, 0], side=1,
                               points=[11, 0, 11, 11], **played)  # fmt: skip
    assert Deal.objects.create(number=3, card_points=[3, 3, 2, 1, 1], points=[3, 3, 2, 1, 1],
                               **played)  # fmt: skip
    assert refused(Deal, number=4, card_points=[4, 3, 1, 0], points=[4, 3, 1, 0], **played)
    assert refused(Deal, number=4, card_points=[4, 3, 2, 3], points=[4, 3, 2, 3], **played)
    assert refused(Deal, number=4, card_points=[12, 0, 0, -1], points=[4, 3, 2, 0], **played)
    assert refused(Deal, number=4, card_points=[4, 3, 2, 0], points=[4, 3, 2, -1], **played)
    assert refused(Deal, number=4, card_points=[4, 3, 2, 0], points=[4, 3, 2, 0], side=5,
                   **played)  # fmt: skip
    assert refused(Deal, number=4, card_points=[4, 3, 2, 0], points=[4, 3, 2, 0], bid="solo",
                   **played)  # fmt: skip
    assert refused(Deal, number=4, card_points=[4, 3, 2, 0], points=[4, 3, 2, 0],
                   kind="cappotto", side=0, **played)  # fmt: skip
    # A number for each of three to five players, and no declarations.
    assert refused(Deal, number=4, card_points=[6, 5], points=[6, 5], **played)
    assert refused(Deal, number=4, card_points=[2, 2, 2, 2, 2, 1], points=[2, 2, 2, 2, 2, 1],
                   **played)  # fmt: skip
    assert refused(Deal, number=4, card_points=[4, 3, 2, 0], points=[4, 3], **played)
    assert refused(Deal, **{**played, "declared_points": [0, 0, 0, 0]}, number=4,
                   card_points=[4, 3, 2, 0], points=[4, 3, 2, 0])  # fmt: skip
    # What the model's own validation passes, the database keeps: a deal refused above is
    # refused by both for what it breaks, not for a list left empty.
    Deal(number=4, card_points=[4, 3, 2, 0], points=[4, 3, 2, 0], **played).full_clean()
