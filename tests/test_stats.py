"""A table's stats: the numbers the stats page shows, worked out by hand."""

import doctest

import pytest

from matches import services, stats
from matches.stats import Record, table_stats
from tests.factories import TableFactory
from tests.views.test_query_counts import play


def test_points_per_deal_round_half_up_as_people_round():
    # 21 points in 4 deals is 5.25: 5.3, where round() would give 5.2.
    assert Record("Elena", deals=4, points=21).points_per_deal == 5.3
    assert Record("Franco", deals=4, points=23).points_per_deal == 5.8
    assert Record("Gino", deals=3, points=10).points_per_deal == 3.3
    assert Record("Nobody").points_per_deal == 0.0


@pytest.mark.django_db
def test_a_streak_follows_the_order_of_play_even_after_an_old_match_is_ended_again():
    table = TableFactory()
    first = play(table, deals=1)  # Alice & Carla win
    play(table, deals=1, players=(("Beppe", "Dino"), ("Alice", "Carla")))  # Beppe & Dino win
    streaks = {r.name: r.streak for r in table_stats(table)["players"]}
    assert streaks["Alice"] == ("lost", 1) and streaks["Dino"] == ("won", 1)
    # Reopened to check a deal, then ended again as it was: still the first match played.
    services.reopen_match(match=first)
    services.end_match(match=first)
    streaks = {r.name: r.streak for r in table_stats(table)["players"]}
    assert streaks["Alice"] == ("lost", 1) and streaks["Dino"] == ("won", 1)


def test_a_long_name_beside_its_bar_is_cut_between_characters_one_sees():
    assert doctest.testmod(stats).failed == 0
    # Never a thumb without its skin tone, nor an e without its accent (e + U+0301).
    assert stats._label("abcdefghijklmn👍🏽xyz") == "abcdefghijklmn…"
    assert stats._label("abcdefghijklmne\u0301xyz") == "abcdefghijklmn…"
    # Nor half a flag: 🇮🇹 is two letters, cut before both.
    assert stats._label("abcdefghijklmn🇮🇹x") == "abcdefghijklmn…"
    assert stats._label("abcdefghijklm🇮🇹🇫🇷x") == "abcdefghijklm🇮🇹…"
    assert stats._label("Maria Antonietta") == "Maria Antonietta"  # 16 fit whole
