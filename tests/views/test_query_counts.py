"""Every page costs the same number of queries however much history there is."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from matches import rules, services
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db


def play(
    table, *, deals: int, finish: bool = True, players=(("Alice", "Carla"), ("Beppe", "Dino"))
):
    match = services.start_match(table=table, players=players, settings=rules.MatchSettings(101))
    for number in range(1, deals + 1):
        entry = rules.DealEntry(card_points=(6, 5), declared_points=(3 * (number % 2), 0))
        services.record_deal(match=match, number=number, entry=entry)
    if finish:
        entry = rules.DealEntry(
            card_points=(11, 0), declared_points=(0, 0), kind="cappotto", side=0
        )
        services.record_deal(match=match, number=deals + 1, entry=entry)
        services.end_match(match=match)
    return match


def queries(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


@pytest.fixture
def joined(client):
    def join(table):
        client.post(reverse("join", args=[table.scorer_token]))
        return client

    return join


def history(matches: int, deals: int):
    table = TableFactory()
    for index in range(matches):
        pairs = (
            (("Alice", "Carla"), ("Beppe", "Dino"))
            if index % 2
            else (("Alice", "Dino"), ("Beppe", "Carla"))
        )
        play(table, deals=deals, players=pairs)
    return table, play(table, deals=deals, finish=False)


@pytest.mark.parametrize("page", ["table", "stats", "match", "history", "home"])
def test_a_page_costs_the_same_queries_with_more_matches_and_deals(joined, page):
    small_table, small_match = history(matches=2, deals=2)
    large_table, large_match = history(matches=7, deals=9)
    counts = []
    for table, match in ((small_table, small_match), (large_table, large_match)):
        client = joined(table)
        url = {
            "table": reverse("table", args=[table.viewer_token]),
            "stats": reverse("stats", args=[table.viewer_token]),
            "match": reverse("match", args=[table.viewer_token, match.pk]),
            "history": reverse("match_history", args=[table.viewer_token, match.pk]),
            "home": "/",
        }[page]
        counts.append(queries(client, url))
    assert counts[0] == counts[1]


def test_stats_count_wins_pairs_sweeps_and_streaks(joined):
    table, _ = history(matches=3, deals=2)
    html = joined(table).get(reverse("stats", args=[table.viewer_token]), HTTP_ACCEPT_LANGUAGE="en")
    text = html.content.decode()
    assert "3 finished matches." in text
    assert "Alice &amp; Carla" in text  # a pair, whatever its seat order
    assert "3 won" in text  # Alice swept all three: a streak of three
    # Each short heading is said in words on the page: a touch screen shows no title.
    assert "<strong>Pl.</strong> matches played · <strong>Won</strong> matches won" in text


def test_a_players_name_in_the_stats_leads_to_their_matches(joined):
    table, _ = history(matches=2, deals=2)
    alice = table.players.get(name="Alice")
    phone = joined(table)
    stats = phone.get(reverse("stats", args=[table.viewer_token]), HTTP_ACCEPT_LANGUAGE="en")
    listed = f"{reverse('table', args=[table.viewer_token])}?player={alice.pk}#matches"
    assert f'<th scope="row"><a href="{listed}">Alice</a></th>' in stats.text
    assert '<th scope="row">Alice &amp; Carla</th>' in stats.text  # a pair has no list of its own
    page = phone.get(listed.split("#")[0], HTTP_ACCEPT_LANGUAGE="en").text
    assert f'<option value="{alice.pk}" selected>Alice</option>' in page


def test_stats_are_drawn_again_when_a_finished_match_changes(joined):
    from matches.models import Player

    table, _ = history(matches=1, deals=1)
    client = joined(table)
    url = reverse("stats", args=[table.viewer_token])
    assert "Alice" in client.get(url).content.decode()
    # The table, the finished matches (the cache key), those waiting for End match: no more.
    assert queries(client, url) == 3
    services.rename_player(player=Player.objects.get(table=table, name="Alice"), name="Alessia")
    assert "Alessia" in client.get(url).content.decode()


def test_stats_follow_one_match_reopened_and_another_ended_at_the_same_revision(joined):
    # Both end at revision 4 (started, two deals, ended): the finished set is one match of
    # revision 4 before and after, yet it is another match, with other players.
    table = TableFactory()
    first = play(table, deals=1, players=(("Ann", "Bob"), ("Cid", "Dan")))
    client = joined(table)
    url = reverse("stats", args=[table.viewer_token])
    assert "Ann" in client.get(url).content.decode()
    first.refresh_from_db()
    revision = first.revision
    services.reopen_match(match=first)
    second = play(table, deals=1, players=(("Eve", "Fay"), ("Gus", "Hal")))
    second.refresh_from_db()
    assert second.revision == revision  # one finished match, of the same revision
    text = client.get(url).content.decode()
    assert "Eve" in text
    assert "Ann" not in text


def test_a_match_stopped_undecided_counts_in_no_stats(joined):
    table, under_way = history(matches=2, deals=2)
    services.stop_match(match=under_way)
    html = joined(table).get(reverse("stats", args=[table.viewer_token]), HTTP_ACCEPT_LANGUAGE="en")
    assert "2 finished matches." in html.content.decode()


def test_a_match_decided_but_never_ended_is_pointed_out_where_it_is_missed(joined):
    table = TableFactory()
    play(table, deals=2)  # ended
    forgotten = play(table, deals=2, finish=False)
    sweep = rules.DealEntry(card_points=(11, 0), declared_points=(0, 0), kind="cappotto", side=0)
    services.record_deal(match=forgotten, number=3, entry=sweep)  # decided; End never tapped
    phone, en = joined(table), {"HTTP_ACCEPT_LANGUAGE": "en"}
    stats = phone.get(reverse("stats", args=[table.viewer_token]), **en).text
    assert "1 finished match." in stats
    assert "A match is decided but was never ended: it counts here once someone taps" in stats
    assert f'href="{reverse("table", args=[table.viewer_token])}#matches"' in stats
    assert (
        'decided for <span class="clip">Alice &amp; Carla</span> · <em>waiting for End match</em>'
        in phone.get(reverse("table", args=[table.viewer_token]), **en).text
    )
    services.end_match(match=forgotten)
    stats = phone.get(reverse("stats", args=[table.viewer_token]), **en).text
    assert "2 finished matches." in stats and "never ended" not in stats


def test_the_table_lists_matches_under_way_first_then_the_rest_newest_first(joined):
    from datetime import timedelta

    from django.utils import timezone

    from matches.models import Match

    table = TableFactory()
    finished = play(table, deals=1)
    stopped, under_way = play(table, deals=1, finish=False), play(table, deals=1, finish=False)
    services.stop_match(match=stopped)
    # Under way since last week, yet first; then the stopped one (an hour ago), then the rest.
    for match, age in ((under_way, timedelta(days=7)), (stopped, timedelta(hours=1))):
        Match.objects.filter(pk=match.pk).update(started_at=timezone.now() - age)
    Match.objects.filter(pk=finished.pk).update(started_at=timezone.now() - timedelta(hours=2))
    html = joined(table).get(reverse("table", args=[table.viewer_token])).content.decode()
    links = [reverse("match", args=[table.viewer_token, m.pk]) for m in (under_way, stopped)]
    links.append(reverse("match", args=[table.viewer_token, finished.pk]))
    assert sorted(links, key=html.index) == links


@pytest.mark.parametrize(
    ("won", "played", "rate"), [(1, 8, 13), (3, 8, 38), (5, 8, 63), (1, 3, 33)]
)
def test_win_rates_round_half_up_as_people_do(won, played, rate):
    from matches.stats import Record

    assert Record("Alice", played=played, won=won).win_rate == rate


def test_stats_drawn_while_a_match_ends_are_not_kept(joined, monkeypatch):
    from matches import stats

    table, under_way = history(matches=1, deals=1)
    drawn = stats.table_stats

    def end_then_draw(table):  # the match ends between reading the state and drawing
        services.record_deal(
            match=under_way,
            number=2,
            entry=rules.DealEntry((11, 0), (0, 0), kind="cappotto", side=0),
        )
        services.end_match(match=under_way)
        return drawn(table)

    monkeypatch.setattr(stats, "table_stats", end_then_draw)
    client = joined(table)
    url = reverse("stats", args=[table.viewer_token])
    assert "2 finished matches." in client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    monkeypatch.setattr(stats, "table_stats", drawn)
    # Reopened, the table is back in the state read first: its stats count one match.
    services.reopen_match(match=under_way)
    assert "1 finished match." in client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_stats_drawn_while_a_match_ends_and_reopens_are_not_kept(joined, monkeypatch):
    from matches import stats

    table, under_way = history(matches=1, deals=1)
    drawn = stats.table_stats

    def end_draw_reopen(table):  # the key is the same before and after; the stats are not
        services.record_deal(
            match=under_way,
            number=2,
            entry=rules.DealEntry((11, 0), (0, 0), kind="cappotto", side=0),
        )
        services.end_match(match=under_way)
        result = drawn(table)
        services.reopen_match(match=under_way)
        return result

    monkeypatch.setattr(stats, "table_stats", end_draw_reopen)
    client = joined(table)
    url = reverse("stats", args=[table.viewer_token])
    assert "2 finished matches." in client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    monkeypatch.setattr(stats, "table_stats", drawn)
    assert "1 finished match." in client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
