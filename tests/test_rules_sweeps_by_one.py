"""The sweeps one player makes alone: cappottone and stramazzone (rule text 000), with the
rule texts' own numbers; and the old stakes of each sweep (000, 001)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.rules import (
    STAKES,
    DealEntry,
    DealInvalid,
    DealKind,
    EndReason,
    MatchRules,
    check_deal,
    complete_card_points,
    evaluate,
    games_won,
    is_sweep,
    side_sweep,
    sweep_points,
)
from tests.test_rules_scoring import place

NAMES = ("Alice & Carla", "Beppe & Dino")
RULES = MatchRules(side_names=NAMES)
# Seats anticlockwise, partners opposite: Alice 0, Beppe 1, Carla 2, Dino 3.
ALICE, BEPPE, CARLA, DINO = range(4)
BY_ONE = (DealKind.CAPPOTTONE, DealKind.STRAMAZZONE)


def by_one(kind: DealKind, seat: int | None, c0: int, c1: int, d0=0, d1=0, side=None) -> DealEntry:
    return DealEntry((c0, c1), (d0, d1), kind, side=side, seat=seat)


def errors_of(entry: DealEntry, *, seat_count: int = 4, previous=()) -> list:
    with pytest.raises(DealInvalid) as caught:
        check_deal(RULES, list(previous), entry, seat_count=seat_count)
    return caught.value.errors


# --- The stakes --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "games"),
    [
        # 000: "cappotto ... they win two games", "stramazzo ... three games",
        # "cappottone ... six games", "stramazzone ... eight games".
        (EndReason.CAPPOTTO, 2),
        (EndReason.STRAMAZZO, 3),
        (EndReason.CAPPOTTONE, 6),
        (EndReason.STRAMAZZONE, 8),
        (EndReason.LINE, 1),
        (EndReason.CLAIM, 1),
    ],
)
def test_each_sweep_counts_the_rule_texts_games_under_the_old_stakes(reason, games):
    assert STAKES[reason] == games
    assert games_won(reason, stakes=True) == games
    assert games_won(reason, stakes=False) == 1


def test_a_cappottone_and_a_stramazzone_end_the_match_with_their_stakes():
    base = [DealEntry((6, 5), (3, 4))]  # 9 against 9
    for entry, games in ((by_one(DealKind.CAPPOTTONE, ALICE, 11, 0), 6),
                         (by_one(DealKind.STRAMAZZONE, DINO, 1, 10), 8)):  # fmt: skip
        outcome = evaluate(RULES, [*base, entry])
        assert games_won(outcome.reason, stakes=True) == games


# --- Scored as their side's sweep, ending the match on the spot ---------------------------


@pytest.mark.parametrize(
    ("entry", "points", "totals", "winner", "reason"),
    [
        # Alice alone takes all ten tricks: Alice & Carla go from 9 to the line (12).
        (by_one(DealKind.CAPPOTTONE, ALICE, 11, 0), (12, 0), (21, 9), 0, EndReason.CAPPOTTONE),
        # Carla, the partner, alone: the same side.
        (
            by_one(DealKind.CAPPOTTONE, CARLA, 11, 0, 0, 3),
            (12, 3),
            (21, 12),
            0,
            EndReason.CAPPOTTONE,
        ),
        # Dino takes every card point; Alice took the last trick (1, which counts for her).
        (by_one(DealKind.STRAMAZZONE, DINO, 1, 10), (1, 12), (10, 21), 1, EndReason.STRAMAZZONE),
        (
            by_one(DealKind.STRAMAZZONE, BEPPE, 0, 11, 3, 0),
            (3, 12),
            (12, 21),
            1,
            EndReason.STRAMAZZONE,
        ),
    ],
)
def test_a_sweep_by_one_player_takes_their_side_to_the_line_and_wins(
    entry, points, totals, winner, reason
):
    outcome = evaluate(RULES, [DealEntry((6, 5), (3, 4)), entry])
    last = outcome.deals[-1]
    assert last.points == points
    assert last.points[winner] == sweep_points(21, 9)
    assert outcome.totals == totals
    assert (outcome.decided, outcome.winner, outcome.reason) == (True, winner, reason)
    assert not outcome.another_deal


def test_no_deal_follows_a_cappottone():
    done = [by_one(DealKind.CAPPOTTONE, BEPPE, 0, 11)]
    [error] = errors_of(DealEntry((6, 5), (0, 0)), previous=done)
    assert error.code == "match_decided"


def test_a_sweep_by_one_is_a_sweep_of_its_side():
    assert all(is_sweep(kind) for kind in BY_ONE)
    assert side_sweep(DealKind.CAPPOTTONE) is DealKind.CAPPOTTO
    assert side_sweep(DealKind.STRAMAZZONE) is DealKind.STRAMAZZO
    assert side_sweep(DealKind.NORMAL) is DealKind.NORMAL


@given(st.sampled_from(BY_ONE), st.integers(0, 3))
def test_the_side_is_the_players_whatever_seat(kind, seat):
    entry = DealEntry((11, 0), (0, 0), kind, seat=seat)
    assert entry.side == seat % 2


# --- Card points, as for a cappotto and a stramazzo ---------------------------------------


@given(st.integers(0, 1), st.integers(1, 11))
def test_a_cappottone_where_the_other_side_took_card_points_is_refused(side, other):
    cards = [11, 11]
    cards[1 - side] = other
    errors = errors_of(by_one(DealKind.CAPPOTTONE, side, *cards))
    assert (errors[0].code, place(errors[0])) == (
        "cappottone_card_points",
        f"card_points_{1 - side}",
    )
    assert str(errors[0]).startswith(f"In a cappottone {NAMES[1 - side]} took no tricks")


@pytest.mark.parametrize("others", [2, 3, 11])
def test_a_stramazzone_is_refused_when_the_others_took_a_point_beyond_the_last_trick(others):
    """000: "the other three players together winning less than one point (the point for the
    last trick does not count in this case)". Beppe & Dino with 2 took a point beyond the
    last trick's."""
    errors = errors_of(by_one(DealKind.STRAMAZZONE, ALICE, 11 - others, others))
    assert errors[0].code == "stramazzone_sweeper_card_points"
    errors = errors_of(by_one(DealKind.STRAMAZZONE, ALICE, 10, others))
    assert errors[0].code in ("stramazzone_card_points", "card_points_sum")
    if errors[0].code == "stramazzone_card_points":
        assert str(errors[0]) == (
            "In a stramazzone Beppe & Dino took no card points, so their card points must be 0, "
            "or 1 for the last trick."
        )


@pytest.mark.parametrize(("alice", "others"), [(11, 0), (10, 1)])
def test_a_stramazzone_with_the_last_trick_elsewhere_stands(alice, others):
    outcome = evaluate(RULES, [by_one(DealKind.STRAMAZZONE, ALICE, alice, others)])
    assert outcome.reason is EndReason.STRAMAZZONE
    assert outcome.deals[0].points == (21, others)


def test_a_cappottone_needs_no_card_points_once_the_player_is_named():
    assert complete_card_points(None, None, kind=DealKind.CAPPOTTONE, side=1) == (0, 11)
    assert complete_card_points(None, 1, kind=DealKind.STRAMAZZONE, side=0) == (10, 1)


def test_a_cappottone_without_its_player_asks_for_them():
    with pytest.raises(Exception) as caught:
        complete_card_points(None, None, kind=DealKind.CAPPOTTONE, side=None)
    assert (caught.value.code, caught.value.part) == ("sweep_player_required", "seat")
    [error] = errors_of(by_one(DealKind.STRAMAZZONE, None, 11, 0))
    assert (error.code, error.part, str(error)) == (
        "sweep_player_required",
        "seat",
        "Say which player took the deal alone.",
    )


# --- Only a four-player match, only a seat of it, only on its side -------------------------


@pytest.mark.parametrize("kind", BY_ONE)
def test_a_sweep_by_one_is_refused_in_tressette_in_due(kind):
    """In due each side is one player: every sweep is one player's, a cappotto or stramazzo."""
    errors = errors_of(by_one(kind, 1, 0, 11), seat_count=2)
    assert [(e.code, e.part) for e in errors] == [("sweep_by_one_in_due", "kind")]
    assert str(errors[0]) == (
        "A cappottone or a stramazzone is a sweep by one player of a pair; in Tressette in due "
        "every sweep is one player's: pick Cappotto or Stramazzo."
    )


@pytest.mark.parametrize("seat", [4, 5, 99])
def test_the_player_must_sit_at_the_match(seat):
    [error] = [e for e in errors_of(by_one(DealKind.CAPPOTTONE, seat, 11, 0))
               if e.part == "seat"]  # fmt: skip
    assert error.code == "sweep_player_not_seated"


def test_a_side_given_that_is_not_the_players_is_refused_in_words():
    errors = errors_of(by_one(DealKind.CAPPOTTONE, BEPPE, 11, 0, side=0))
    assert [(e.code, e.part, str(e)) for e in errors] == [
        (
            "sweep_player_other_side",
            "seat",
            "The player who swept alone plays for Beppe & Dino, not for the other side.",
        )
    ]


@pytest.mark.parametrize("kind", [DealKind.NORMAL, DealKind.CAPPOTTO, DealKind.CLAIM])
def test_no_other_deal_names_a_player(kind):
    side = None if kind is DealKind.NORMAL else 0
    rules = MatchRules(side_names=NAMES, claims_allowed=True)
    cards = {DealKind.NORMAL: (6, 5), DealKind.CAPPOTTO: (11, 0), DealKind.CLAIM: (6, 4)}[kind]
    entry = DealEntry(cards, (0, 0), kind, side, 2)
    with pytest.raises(DealInvalid) as caught:
        check_deal(rules, [], entry)
    assert [(e.code, e.part) for e in caught.value.errors] == [("player_not_allowed", "seat")]
