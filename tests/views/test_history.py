"""Looking back (matches/views/history.py): a match's history of changes, a table's stats."""

import doctest

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from matches import rules, selectors, services
from matches.models import NAME_MAX, Change, Match, Player
from matches.selectors import Record, sheet, stats
from tests.factories import TableFactory
from tests.html import one, parsed, words
from tests.views.conftest import deal_data, history, play, queries, same_queries_at_any_size

pytestmark = pytest.mark.django_db
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HX = {"HTTP_HX_REQUEST": "true", **EN}


def changes(response) -> list[str]:
    return [words(item) for item in parsed(response).select(".changes li")]


# --- A match's history -------------------------------------------------------------------


def test_the_history_says_each_change_with_what_it_was_and_became(scorer, match, sheet_url, worked):
    services.edit_deal(deal=worked, version=1, entry=rules.DealEntry((6, 5), (4, 0)))
    services.delete_last_deal(match=match, number=1)
    said = changes(scorer.get(sheet_url + "history", **EN))
    assert [item.split(" · ", 1)[1] for item in said] == [
        "Deal 1 deleted before: Alice & Carla 6 + 4 = 10 · Beppe & Dino 5 + 0 = 5 Restore",
        "Deal 1 edited before: Alice & Carla 8 + 3 = 11 · Beppe & Dino 3 + 0 = 3 "
        "after: Alice & Carla 6 + 4 = 10 · Beppe & Dino 5 + 0 = 5",
        "Deal 1 recorded after: Alice & Carla 8 + 3 = 11 · Beppe & Dino 3 + 0 = 3",
    ]


def test_a_sweep_is_said_to_take_its_side_to_the_line(scorer, match, sheet_url):
    services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((6, 5), (0, 0)))
    cappotto = rules.DealEntry((0, 11), (0, 0), kind=rules.DealKind.CAPPOTTO, side=1)
    services.record_deal(match_id=match.pk, number=2, entry=cappotto)
    assert changes(scorer.get(sheet_url + "history", **EN))[0].endswith(
        "after: Alice & Carla 0 + 0 = 0 · Beppe & Dino 11 + 0 → 16 (cappotto, to the line)"
    )


def test_the_history_shows_an_odd_imported_end_reason_as_it_is(scorer, match, sheet_url):
    Change.objects.create(match=match, action="match_ended", new={"reason": 5, "winner": 0})
    assert changes(scorer.get(sheet_url + "history", **EN))[0].endswith(
        "Match ended after: won by Alice & Carla · 5"
    )


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ((10, 0), "after: won by Alice & Carla · claimed rightly · 21–3"),
        ((5, 2), "after: won by Beppe & Dino · wrong claim by Alice & Carla · 16–5"),
    ],
)
def test_the_history_says_who_claimed_and_who_won(scorer, match, sheet_url, claim, said):
    Match.objects.filter(pk=match.pk).update(claims_allowed=True)
    match.refresh_from_db()
    services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((8, 3), (3, 0)))
    entry = rules.DealEntry(claim, (0, 0), kind=rules.DealKind.CLAIM, side=0)
    services.record_deal(match_id=match.pk, number=2, entry=entry)
    services.end_match(match=match)
    assert changes(scorer.get(sheet_url + "history", **EN))[0].endswith(said)


def test_a_long_history_comes_a_hundred_changes_a_page(scorer, match, sheet_url):
    Change.objects.bulk_create(
        Change(match=match, action="settings_changed", new={"line": 21}) for _ in range(150)
    )
    first = parsed(scorer.get(sheet_url + "history", **EN))
    assert len(first.select(".changes li")) == 100
    assert words(one(first, ".pager .muted")) == "Page 1 of 2"
    assert one(first, ".pager a")["href"] == f"{sheet_url}history?page=2"
    second = parsed(scorer.get(sheet_url + "history?page=2", **EN))
    assert len(second.select(".changes li")) == 50
    assert one(second, ".pager a")["href"] == f"{sheet_url}history?page=1"


def test_the_history_offers_to_restore_the_deal_deleted_last_while_it_would_be_next(
    scorer, match, sheet_url, deal_url
):
    def restores(phone=scorer) -> list[str]:
        page = parsed(phone.get(sheet_url + "history", **EN))
        return [form["action"] for form in page.select(".changes form")]

    for number in (1, 2):
        scorer.post(deal_url, deal_data(number=number, a="5", b="6", da="0"), **HX)
    assert restores() == []  # nothing deleted
    scorer.post(sheet_url + "deals/2/delete", **HX)
    scorer.post(sheet_url + "deals/1/delete", **HX)
    # Deal 1 is the one that would be next: deal 2 cannot come back before it.
    assert restores() == [f"{sheet_url}deals/1/restore"]
    assert restores(Client()) == []  # a viewer
    scorer.post(sheet_url + "deals/1/restore", **EN)
    assert restores() == [f"{sheet_url}deals/2/restore"]  # now deal 2's turn
    # Once another deal takes its place, it stays in the history only.
    scorer.post(deal_url, deal_data(number=2, a="7", b="4", da="0", key="new-2"), **HX)
    assert restores() == []


def test_the_history_asks_the_same_queries_however_long_the_match(joined):
    same_queries_at_any_size(
        joined, lambda table, match: reverse("match_history", args=[table.viewer_token, match.pk])
    )


# --- A table's stats ---------------------------------------------------------------------


def stats_page(client, table):
    return parsed(client.get(reverse("stats", args=[table.viewer_token]), **EN))


def records(page, section: int = 0) -> dict[str, list[str]]:
    """Each row of the players' (or pairs') table: the name, then each column's figures (the
    words labelling them on a phone aside)."""
    rows = page.select(".records")[section].select("tbody tr")
    for label in page.select(".records .cell-label"):
        label.decompose()
    return {words(row.th): [words(cell) for cell in row.select("td")] for row in rows}


def sentence(element) -> str:
    """A paragraph's words as read, punctuation right after a link."""
    return " ".join(element.get_text().split())


def test_stats_count_wins_pairs_declarations_sweeps_and_streaks(joined):
    table, _ = history(matches=3, deals=2)
    page = stats_page(joined(table), table)
    # Each match took 3 deals: each is named, in the order played.
    assert sentence(page.select("main > p")[0]) == (
        "3 finished matches. The longest matches took 3 deals each: "
        "Alice & Dino – Beppe & Carla, Alice & Carla – Beppe & Dino, Alice & Dino – Beppe & Carla."
    )
    assert len(page.select("main > p")[0].select("a")) == 3
    # Alice swept all three: three won in a row, 101 points in 3 deals each, a declaration of
    # 3 in each. Beppe: 5 and 5, then 0.
    players = records(page)
    assert players["Alice"] == ["3", "3 (100%)", "33.7", "3 (9)", "3", "3 won"]
    assert players["Beppe"] == ["3", "0 (0%)", "3.3", "0 (0)", "0", "3 lost"]
    assert set(records(page, 1)) == {
        "Alice & Carla",
        "Alice & Dino",
        "Beppe & Carla",
        "Beppe & Dino",
    }


def test_the_longest_match_alone_is_named_alone(joined):
    table = TableFactory()
    play(table, deals=1)
    longest = play(table, deals=4, players=(("Giulia", "Ante"), ("Beppe", "Dino")))
    play(table, deals=2)
    said = stats_page(joined(table), table).select("main > p")[0]
    assert sentence(said) == (
        "3 finished matches. The longest took 5 deals: Giulia & Ante – Beppe & Dino."
    )
    assert said.a["href"] == reverse("match", args=[table.viewer_token, longest.pk])


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("it", "Le più lunghe sono durate 2 smazzate ciascuna:"),
        ("hr", "Najduže su imale po 2 dijeljenja:"),
    ],
)
def test_matches_tied_for_the_longest_are_said_in_each_language(client, language, said):
    table = TableFactory()
    play(table, deals=1)
    play(table, deals=1)
    page = parsed(
        client.get(reverse("stats", args=[table.viewer_token]), HTTP_ACCEPT_LANGUAGE=language)
    )
    assert said in words(page.select("main > p")[0])


def test_a_pair_is_named_in_the_order_its_sheet_names_it(joined):
    table = TableFactory()
    play(table, deals=1, players=(("Carla", "Alice"), ("Beppe", "Dino")))
    latest = play(table, deals=1, players=(("Giulia", "Ante"), ("Dino", "Beppe")))
    phone = joined(table)
    sheet = parsed(phone.get(reverse("match", args=[table.viewer_token, latest.pk]), **EN))
    assert [words(name) for name in sheet.select(".scoreboard .side-name")] == [
        "Giulia & Ante",
        "Dino & Beppe",
    ]
    # Not "Ante & Giulia": the seats' order, as the sheets name them; of a pair seated both
    # ways, as their last match did.
    pairs = records(stats_page(phone, table), 1)
    assert list(pairs) == ["Carla & Alice", "Giulia & Ante", "Dino & Beppe"]


def test_every_heading_of_the_stats_is_a_word_said_before_the_figures(client):
    table, _ = history(matches=1, deals=1)
    url = reverse("stats", args=[table.viewer_token])
    headings = {
        "en": ["Name", "Played", "Won", "Points per deal", "Declarations", "Sweeps", "Streak"],
        "it": ["Nome", "Giocate", "Vinte", "Punti per smazzata", "Accusi", "Cappotti", "Serie"],
        "hr": ["Ime", "Odigrane", "Dobivene", "Punti po dijeljenju", "Akuže", "Kapoti", "Niz"],
    }
    for language, said in headings.items():
        page = parsed(client.get(url, HTTP_ACCEPT_LANGUAGE=language))
        assert [words(th) for th in page.select(".records thead th")][:7] == said
        # On a phone each figure is labelled with its heading's words, in full.
        first = page.select(".records tbody tr")[0]
        assert [words(label) for label in first.select(".cell-label")] == said[1:]
        assert not page.select("abbr")
    # What the figures in brackets and the less plain headings mean, above the first table.
    key = one(page, "#key")
    assert key.find_next("table") is page.select(".records")[0]
    page = parsed(client.get(url, **EN))
    assert words(one(page, "#key")) == (
        "Won matches won, and in brackets their share of the matches played"
        " · Declarations number of deals with declarations, and the points they scored"
        " · Sweeps cappotti and stramazzi · Streak the last matches in a row won, or lost"
    )


def test_a_players_name_in_the_stats_leads_to_their_matches(joined):
    table, _ = history(matches=2, deals=2)
    alice = table.players.get(name="Alice")
    phone = joined(table)
    page = stats_page(phone, table)
    listed = f"{reverse('table', args=[table.viewer_token])}?player={alice.pk}#matches"
    links = {words(a): a["href"] for a in page.select(".records tbody th a")}
    assert links["Alice"] == listed
    assert "Alice & Carla" not in links  # a pair has no list of its own
    table_page = parsed(phone.get(listed.split("#")[0], **EN))
    assert words(one(table_page, "#filter-player option[selected]")) == "Alice"


def test_a_streak_follows_the_order_of_play_even_after_an_old_match_is_ended_again():
    table = TableFactory()
    first = play(table, deals=1)  # Alice & Carla win
    play(table, deals=1, players=(("Beppe", "Dino"), ("Alice", "Carla")))  # Beppe & Dino win
    streaks = {r.name: r.streak for r in selectors.table_stats(table).players}
    assert streaks["Alice"] == "1 lost" and streaks["Dino"] == "1 won"
    # Reopened to check a deal, then ended again as it was: still the first match played.
    services.reopen_match(match=first)
    services.end_match(match=first)
    streaks = {r.name: r.streak for r in selectors.table_stats(table).players}
    assert streaks["Alice"] == "1 lost" and streaks["Dino"] == "1 won"


def test_stats_follow_a_rename_and_a_match_reopened(joined):
    table, _ = history(matches=1, deals=1)
    client = joined(table)
    assert "Alice" in records(stats_page(client, table))
    services.rename_player(player=Player.objects.get(table=table, name="Alice"), name="Alessia")
    assert "Alessia" in records(stats_page(client, table))
    services.reopen_match(match=Match.objects.get(table=table, status="finished"))
    assert words(one(stats_page(client, table), "main .card.muted")) == (
        "No finished matches yet: stats appear once a match is ended."
    )


def test_a_match_stopped_undecided_counts_in_no_stats(joined):
    table, under_way = history(matches=2, deals=2)
    services.stop_match(match=under_way)
    page = stats_page(joined(table), table)
    assert words(page.select("main > p")[0]).startswith("2 finished matches.")


def test_a_match_decided_but_never_ended_is_pointed_out_where_it_is_missed(joined):
    table = TableFactory()
    play(table, deals=2)  # ended
    forgotten = play(table, deals=2, finish=False)
    sweep = rules.DealEntry((11, 0), (0, 0), kind=rules.DealKind.CAPPOTTO, side=0)
    services.record_deal(match_id=forgotten.pk, number=3, entry=sweep)  # decided; End never tapped
    phone = joined(table)
    page = stats_page(phone, table)
    waiting = one(page, ".notice.warn")
    assert words(waiting).startswith("A match is decided but was never ended: it counts here")
    assert waiting.a["href"] == f"{reverse('table', args=[table.viewer_token])}#matches"
    table_page = parsed(phone.get(reverse("table", args=[table.viewer_token]), **EN))
    assert "decided for Alice & Carla · waiting for End match" in words(one(table_page, "#matches"))
    services.end_match(match=forgotten)
    page = stats_page(phone, table)
    assert not page.select(".notice.warn")
    assert words(page.select("main > p")[0]).startswith("2 finished matches.")


@pytest.mark.parametrize(
    ("won", "played", "rate"), [(1, 8, 13), (3, 8, 38), (5, 8, 63), (1, 3, 33)]
)
def test_win_rates_round_half_up_as_people_do(won, played, rate):
    assert Record("Alice", played=played, won=won).win_rate == rate


def test_points_per_deal_round_half_up_as_people_round():
    # 21 points in 4 deals is 5.25: 5.3, where round() would give 5.2.
    assert Record("Elena", deals=4, points=21).points_per_deal == 5.3
    assert Record("Franco", deals=4, points=23).points_per_deal == 5.8
    assert Record("Gino", deals=3, points=10).points_per_deal == 3.3
    assert Record("Nobody").points_per_deal == 0.0


def test_the_chart_on_the_sheet_and_in_the_history_holds_its_worked_numbers():
    assert doctest.testmod(sheet).failed == 0


def test_each_name_beside_its_bar_is_whole_however_long(joined):
    assert doctest.testmod(stats).failed == 0  # the bars' lengths, worked
    table = TableFactory()
    longest = "Maria Grazia Santangelo Kuharić-Vlašić 👍"  # the most a name takes
    assert len(longest) == NAME_MAX
    play(table, deals=1, players=((longest, "Carla"), ("Beppe", "Dino")))
    page = stats_page(joined(table), table)
    bars = [
        (words(bar.select_one(".who")), words(bar.select_one(".won")), bar.rect["width"])
        for bar in page.select(".wins li")
    ]
    assert bars == [
        ("Carla", "1", "100"),
        (longest, "1", "100"),
        ("Beppe", "0", "1"),
        ("Dino", "0", "1"),
    ]


def test_the_stats_read_the_same_few_queries_whatever_the_history(joined):
    table, _ = history(matches=2, deals=2)
    # The table and its matches in play (its version); the finished matches; their sides with
    # players; those waiting for End match.
    assert queries(joined(table), reverse("stats", args=[table.viewer_token])) == 5
    same_queries_at_any_size(
        joined, lambda table, match: reverse("stats", args=[table.viewer_token])
    )


def test_a_sweep_by_one_player_is_said_with_the_players_name(scorer, match, sheet_url):
    services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((6, 5), (0, 0)))
    alone = rules.DealEntry((10, 1), (0, 0), kind=rules.DealKind.STRAMAZZONE, seat=2)
    services.record_deal(match_id=match.pk, number=2, entry=alone)
    services.end_match(match=match)
    said = changes(scorer.get(sheet_url + "history", **EN))
    assert said[1].endswith(
        "after: Alice & Carla 10 + 0 → 15 (stramazzone by Carla, to the line) · "
        "Beppe & Dino 1 + 0 = 1"
    )
    assert said[0].endswith("Match ended after: won by Alice & Carla · stramazzone · 21–6")


def test_the_history_asks_no_more_for_the_players_names(scorer, match, sheet_url, worked):
    """The sides' and the players' names come in the one query that read the sides'."""
    url = sheet_url + "history"
    before = queries(scorer, url)
    alone = rules.DealEntry((0, 11), (0, 0), kind=rules.DealKind.CAPPOTTONE, seat=1)
    services.record_deal(match_id=match.pk, number=2, entry=alone)
    assert "cappottone by Beppe" in " ".join(changes(scorer.get(url, **EN)))
    assert queries(scorer, url) == before


def test_stats_count_games_beside_matches_once_a_match_played_the_stakes(joined):
    from tests.evening import AB, AC, BD, CD, play

    table = services.create_table(name="Osteria")
    play(table, [AC, BD], 0)
    assert "Games" not in words(stats_page(joined(table), table))  # no stakes played
    services.change_evening(table=table, evening=rules.Evening.TONIGHT, stakes=True)
    play(table, [AB, CD], 1, how="cappotto")  # 2 games
    play(table, [AC, BD], 0, how="stramazzo")  # 3 games
    page = stats_page(joined(table), table)
    headings = [words(th) for th in page.select(".records")[0].select("thead th")]
    assert headings[2:4] == ["Won", "Games"]
    players = records(page)
    # Won (share), then games: Carla 3 matches, 1 + 2 + 3 games; Alice 2, 1 + 3.
    assert players["Carla"][1:3] == ["3 (100%)", "6"]
    assert players["Alice"][1:3] == ["2 (67%)", "4"]
    assert records(page, 1)["Carla & Dino"][1:3] == ["1 (100%)", "2"]


def test_tonight_s_tally_is_shared_as_a_picture(client):
    from tests.evening import AC, BD, play

    table = services.create_table(name="Osteria")
    play(table, [AC, BD], 0, evening=rules.Evening.FIRST_TO_2, stakes=True)
    play(table, [AC, BD], 1, how="cappotto")
    url = reverse("tonight_picture", args=[table.viewer_token])
    answer = client.get(url, **EN)
    assert answer["Content-Type"] == "image/svg+xml"
    drawn = answer.content.decode()
    for said in ("Osteria", "1 – 1", "la bella", "Alice &amp; Carla", "1 won · 2 games"):
        assert said in drawn
    assert client.get(url, HTTP_IF_NONE_MATCH=answer["ETag"], **EN).status_code == 304


def test_each_name_in_tonight_s_picture_stands_on_the_line_of_its_wins():
    """A long name is fitted smaller than a short one: its baseline stays its row's, the
    wins' beside it."""
    from tests.evening import AC, BD, play

    table = services.create_table(name="Osteria")
    long = ["Maria Grazia Santangelo De Benedictis", "Carla"]
    play(table, [long, BD], 0)
    play(table, [AC, BD], 1)
    table.refresh_from_db()  # its evening, begun by the first match
    with translation.override("en"):
        picture = selectors.tonight_picture(selectors.load_tonight(table))
    rows = {}
    for text in picture.texts:
        rows.setdefault(text.y, []).append(text)
    won = [text for text in picture.texts if text.text.endswith(" won")]
    assert len(won) == 3 + 5  # three sides and five players
    sizes = set()
    for wins in won:
        beside = [text for text in rows[wins.y] if text is not wins]
        assert len(beside) == 1, f"no name on the line of {wins.text!r}"
        sizes.add(beside[0].size)
    assert len(sizes) > 1  # the long name fitted smaller, and still in line


def test_the_history_says_how_the_evening_came_to_be_counted_otherwise(client):
    from tests.evening import AB, CD

    table = services.create_table(name="Osteria")
    match = services.start_match(table=table, players=[AB, CD])
    services.change_evening(table=table, evening=rules.Evening.FIRST_TO_2, stakes=True, by="Ugo")
    url = reverse("match_history", args=[table.viewer_token, match.pk])
    page = parsed(client.get(url, **EN))
    said = "Settings changed · Ugo before: Tonight's tally after: Best of three: first to 2 wins"
    assert f"{said}, the old stakes" in words(page)
