"""The evening: what tonight is, the tally, the series and la bella, the old stakes."""

from datetime import UTC, datetime, timedelta

import pytest

from matches.rules import (
    EVENING_BREAK,
    EndReason,
    Evening,
    Played,
    begins_evening,
    evening_tally,
    games_won,
    wins_needed,
)

AC, BD, AB, CD = ("Alice", "Carla"), ("Beppe", "Dino"), ("Alice", "Beppe"), ("Carla", "Dino")
NIGHT = datetime(2026, 12, 5, 20, 14, tzinfo=UTC)


@pytest.mark.parametrize(
    ("reason", "games"),
    [
        (EndReason.LINE, 1),
        (EndReason.CLAIM, 1),
        (EndReason.CAPPOTTO, 2),
        (EndReason.STRAMAZZO, 3),
        (EndReason.CAPPOTTONE, 6),
        (EndReason.STRAMAZZONE, 8),
    ],
)
def test_each_way_of_winning_counts_its_stake_only_when_the_table_plays_them(reason, games):
    # Rule texts 000 and 001: "supposing you were playing Tressette for a bottle of wine".
    assert games_won(reason, stakes=True) == games
    assert games_won(reason, stakes=False) == 1


def test_an_evening_begins_after_six_hours_without_play():
    assert timedelta(hours=6) == EVENING_BREAK
    assert begins_evening(last_play=None, now=NIGHT)
    assert not begins_evening(last_play=NIGHT - timedelta(hours=5, minutes=59), now=NIGHT)
    assert begins_evening(last_play=NIGHT - timedelta(hours=6), now=NIGHT)
    # The same instants in another time zone: the same answer on every phone.
    rome = datetime(2026, 12, 5, 21, 14, tzinfo=UTC).astimezone()
    assert not begins_evening(last_play=rome - timedelta(hours=1), now=NIGHT)


def test_the_wins_a_series_needs():
    assert wins_needed(Evening.FIRST_TO_2) == 2
    assert wins_needed(Evening.FIRST_TO_3) == 3
    assert wins_needed(Evening.TONIGHT) is None


def test_la_partita_la_rivincita_e_la_bella():
    # The worked evening of evening_tally: 1 – 0, a cappotto (2 games) makes it 1 – 1, and
    # the third match is la bella; Alice & Carla take it, 2 – 1.
    tally = evening_tally(
        [Played((AC, BD), 0), Played((BD, AC), 0, games=2), Played((AC, BD), 0)],
        Evening.FIRST_TO_2,
    )
    assert [(m.number, m.score, m.deciding) for m in tally.matches] == [
        (1, (1, 0), False),
        (2, (1, 1), False),
        (3, (2, 1), True),
    ]
    assert tally.matches[1].flipped  # Beppe & Dino sat as side 0 at the rivincita
    (series,) = tally.series
    assert series.wins == (2, 1) and series.won_by == 0 and not series.deciding
    assert [(c.who, c.played, c.won, c.games) for c in tally.sides] == [
        (frozenset(AC), 3, 2, 2),
        (frozenset(BD), 3, 1, 2),
    ]


def test_la_bella_is_shown_while_it_is_played():
    tally = evening_tally(
        [Played((AC, BD), 1), Played((AC, BD), 0), Played((AC, BD))], Evening.FIRST_TO_2
    )
    last = tally.matches[-1]
    assert (last.number, last.score, last.deciding) == (3, (1, 1), True)
    assert tally.series[0].deciding  # still 1 – 1: nothing counted for the match in play
    assert [c.played for c in tally.sides] == [2, 2]


def test_first_to_3_decides_at_2_2():
    wins = [0, 1, 0, 1, 1]
    tally = evening_tally([Played((AC, BD), w) for w in wins], Evening.FIRST_TO_3)
    assert [m.deciding for m in tally.matches] == [False, False, False, False, True]
    assert tally.series[0].wins == (2, 3) and tally.series[0].won_by == 1


def test_a_series_won_begins_another_between_the_same_sides():
    tally = evening_tally([Played((AC, BD), 0)] * 3, Evening.FIRST_TO_2)
    assert [(m.series, m.number, m.score) for m in tally.matches] == [
        (0, 1, (1, 0)),
        (0, 2, (2, 0)),
        (1, 1, (1, 0)),
    ]
    assert [s.won_by for s in tally.series] == [0, None]


def test_tonight_s_tally_adds_up_all_night_without_a_bella():
    tally = evening_tally([Played((AC, BD), w) for w in (0, 1, 1, 0, 0)], Evening.TONIGHT)
    assert len(tally.series) == 1 and tally.series[0].wins == (3, 2)
    assert not any(m.deciding for m in tally.matches) and tally.series[0].won_by is None


def test_partners_change_each_player_keeps_their_own_count():
    # Alice & Carla win 2 games (a cappotto), then Alice & Beppe lose to Carla & Dino, with
    # a stramazzo (3 games): Carla won both, Alice one.
    tally = evening_tally([Played((AC, BD), 0, games=2), Played((AB, CD), 1, games=3)],
                          Evening.TONIGHT)  # fmt: skip
    players = {c.who: (c.played, c.won, c.games) for c in tally.players}
    assert players == {
        "Alice": (2, 1, 2),
        "Carla": (2, 2, 5),
        "Beppe": (2, 0, 0),
        "Dino": (2, 1, 3),
    }
    assert [c.who for c in tally.sides] == [frozenset(p) for p in (AC, BD, AB, CD)]
    assert len(tally.series) == 2
