"""Tressette a perdere through the services: three to five players each a side of one, each
deal charging each player their card points; who reaches the line is out, the last one in
wins (or, by the table's choice, the lowest when the first reaches it)."""

import pytest

from matches import rules, services
from matches.models import (
    Action,
    Change,
    Deal,
    DocumentError,
    Match,
    deal_document,
    entry_from_document,
)
from matches.rules import APerdereEnd, APerdereEntry, APerdereTerms, EndReason, Status
from tests.factories import MatchFactory, TableFactory

pytestmark = pytest.mark.django_db

ANNA, BRUNO, CARLA, DINO = range(4)
NAMES = ("Anna", "Bruno", "Carla", "Dino")
TERMS = APerdereTerms()  # line 21, the last one in wins, own fractions, the reversed sweep
# The rules' worked match: Dino sweeps the second deal; Anna, Bruno and Carla go out in turn.
WORKED = (
    APerdereEntry((5, 3, 2, 0)),
    APerdereEntry((0, 0, 0, 11), sweeper=DINO),
    APerdereEntry((6, 1, 2, 1)),
    APerdereEntry((0, 7, 1, 2)),
    APerdereEntry((0, 0, 5, 6)),
)


def start(terms: APerdereTerms = TERMS, first_dealer: int = 0, names=NAMES) -> Match:
    return services.start_match(
        table=TableFactory(),
        players=[[name] for name in names],
        side_names=(),
        settings=terms,
        first_dealer=first_dealer,
    )


def play(match: Match, *entries: APerdereEntry) -> Match:
    for entry in entries:
        number = Match.objects.get(pk=match.pk).deal_count + 1
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    return Match.objects.get(pk=match.pk)


def test_a_match_a_perdere_seats_each_player_as_a_side_of_one_everyone_in():
    match = Match.objects.get(pk=start().pk)
    assert (match.game, match.side_count, match.seat_count) == (rules.Game.A_PERDERE, 4, 4)
    assert list(match.sides.values_list("position", "name")) == list(enumerate(NAMES))
    assert (match.totals, match.out_after) == ((0, 0, 0, 0), (None, None, None, None))
    assert match.settings == TERMS
    assert Change.objects.get(match=match, action=Action.MATCH_STARTED).new == {
        "line": 21, "end": "last_in", "fractions": "own", "reversed_sweep": True}  # fmt: skip
    five = start(names=(*NAMES, "Elena"), first_dealer=4)
    assert (five.totals, five.standing.next_dealer) == ((0, 0, 0, 0, 0), 4)


def test_each_deal_charges_the_card_points_and_the_last_one_in_wins():
    match = play(start(), *WORKED[:3])
    assert [deal.points for deal in Deal.objects.filter(match=match)] == [
        (5, 3, 2, 0), (11, 11, 11, 0), (6, 1, 2, 1)]  # fmt: skip
    assert (match.totals, match.out_after, match.decided_for) == (
        (22, 15, 15, 1), (3, None, None, None), None)  # fmt: skip
    assert match.standing.next_dealer == DINO  # Anna, Bruno, Carla dealt
    match = play(match, *WORKED[3:])
    assert (match.totals, match.out_after, match.decided_for) == (
        (22, 22, 21, 9), (3, 4, 5, None), DINO)  # fmt: skip
    ended = services.end_match(match=match)
    assert (ended.status, ended.winner, ended.end_reason) == (
        Status.FINISHED, DINO, EndReason.LAST_IN)  # fmt: skip


def test_a_deal_the_rules_refuse_is_said_in_the_players_names_and_nothing_is_stored():
    match = play(start(), *WORKED[:3])  # Anna is out
    with pytest.raises(rules.DealInvalid) as refused:
        services.record_deal(match_id=match.pk, number=4, entry=APerdereEntry((1, 6, 2, 2)))
    assert "Anna" in str(refused.value)
    with pytest.raises(rules.DealInvalid) as refused:
        services.record_deal(match_id=match.pk, number=4, entry=APerdereEntry((0, 6, 2, 4)))
    assert refused.value.codes == ["a_perdere_total"]
    assert Match.objects.get(pk=match.pk).deal_count == 3
    assert not Deal.objects.filter(match=match, number=4).exists()


def test_by_the_tables_choice_the_lowest_wins_once_the_first_reaches_the_line():
    match = play(start(APerdereTerms(end=APerdereEnd.LOWEST)), *[APerdereEntry((3, 3, 2, 3))] * 7)
    assert (match.totals, match.out_after, match.decided_for) == (
        (21, 21, 14, 21), (None, None, None, None), CARLA)  # fmt: skip
    assert services.end_match(match=match).end_reason == EndReason.LOWEST


def test_a_match_not_decided_cannot_be_ended_but_can_be_stopped():
    match = play(start(), *WORKED[:3])
    with pytest.raises(services.ServiceError) as refused:
        services.end_match(match=match)
    assert refused.value.code == "not_decided"
    stopped = services.stop_match(match=match)
    assert (stopped.status, stopped.totals) == (Status.ABANDONED, (22, 15, 15, 1))


def test_undo_edit_and_restore_keep_who_is_out_and_who_deals():
    match = play(start(), *WORKED[:3])  # Anna out after deal 3
    services.delete_last_deal(match=match, number=3)
    undone = Match.objects.get(pk=match.pk)
    assert (undone.totals, undone.out_after, undone.standing.next_dealer) == (
        (16, 14, 13, 0), (None, None, None, None), CARLA)  # fmt: skip
    services.restore_deal(match=undone, number=3)
    assert Match.objects.get(pk=match.pk).out_after == (3, None, None, None)
    first = Deal.objects.get(match=match, number=1)
    services.edit_deal(deal=first, version=first.version, entry=APerdereEntry((0, 3, 2, 5)))
    edited = Match.objects.get(pk=match.pk)
    assert (edited.totals, edited.out_after) == ((17, 15, 15, 6), (None, None, None, None))
    assert edited.standing.next_dealer == DINO


def test_the_terms_change_only_while_the_deals_stand_under_them():
    match = play(start(), *WORKED[:3])
    changed = services.change_settings(match=match, settings=APerdereTerms(line=31))
    assert (changed.line, changed.out_after) == (31, (None, None, None, None))  # Anna back in
    with pytest.raises(rules.DealInvalid):  # no reversed sweep: deal 2 would not stand
        services.change_settings(match=changed, settings=APerdereTerms(reversed_sweep=False))
    with pytest.raises(services.ServiceError) as refused:
        services.change_settings(match=changed, settings=rules.MatchSettings())
    assert refused.value.code == "other_game"


@pytest.mark.parametrize(("first", "rematch"), [(BRUNO, DINO), (DINO, ANNA)])
def test_a_rematch_seats_everyone_again_and_passes_the_deal_on(first, rematch):
    """From Bruno: Bruno, Carla, Dino; Anna out, Bruno deal 4, Carla deal 5: Dino deals the
    rematch. From Dino: Dino, Anna, Bruno, Carla; Anna out, Dino deal 5: then Anna."""
    match = play(start(first_dealer=first), *WORKED)
    services.end_match(match=match)
    again = services.rematch(match=Match.objects.get(pk=match.pk))
    assert (again.game, again.settings, again.first_dealer) == (
        rules.Game.A_PERDERE, TERMS, rematch)  # fmt: skip
    assert (again.totals, again.out_after) == ((0, 0, 0, 0), (None, None, None, None))


def test_a_deal_of_another_game_is_refused_and_a_deal_a_perdere_elsewhere():
    with pytest.raises(services.ServiceError) as refused:
        services.record_deal(match_id=start().pk, number=1, entry=rules.DealEntry((8, 3), (3, 0)))
    assert refused.value.code == "other_game"
    with pytest.raises(services.ServiceError) as refused:
        services.record_deal(match_id=MatchFactory().pk, number=1, entry=WORKED[0])
    assert refused.value.code == "other_game"


def test_a_deals_document_gives_back_its_entry_in_a_match_of_its_game_only():
    for entry in (WORKED[0], WORKED[1]):
        document = deal_document(2, entry, (1, 2, 3, 4))
        assert document["sweeper"] == entry.sweeper
        assert entry_from_document(document, rules.Game.A_PERDERE) == entry
        with pytest.raises(DocumentError):
            entry_from_document(document, rules.Game.TRESSETTE)
    # A deal of Tressette that says who swept a perdere is no deal of Tressette (a file's).
    odd = {"number": 1, "kind": "normal", "side": None, "sweeper": None, "card_points": [6, 5],
           "declared_points": [0, 0], "points": [6, 5]}  # fmt: skip
    with pytest.raises(DocumentError):
        entry_from_document(odd, rules.Game.TRESSETTE)
