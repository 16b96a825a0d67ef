"""A match a perdere on the pages that look back: the stats, tonight's tally, the result to
share and the history. Three to five players each for themselves, the fewest points win:
never counted as a match of two sides."""

import xml.etree.ElementTree as ElementTree

import pytest
from django.urls import reverse

from matches import rules, services
from matches.models import Match
from matches.rules import APerdereEnd, APerdereEntry, APerdereTerms
from tests.evening import AC, BD
from tests.evening import play as play_tressette
from tests.factories import TableFactory
from tests.html import one, parsed, said, words
from tests.views.conftest import queries

pytestmark = pytest.mark.django_db
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
SVG = "{http://www.w3.org/2000/svg}"
NAMES = ("Anna", "Bruno", "Carla", "Dino")
# The rules' worked match, line 21: Dino takes every point in deal 2 (11 to each of the
# others); Anna goes out after deal 3, Bruno after 4, Carla after 5: Dino, the last one in,
# wins on 22 · 22 · 21 · 9.
WORKED = (
    APerdereEntry((5, 3, 2, 0)),
    APerdereEntry((0, 0, 0, 11), sweeper=3),
    APerdereEntry((6, 1, 2, 1)),
    APerdereEntry((0, 7, 1, 2)),
    APerdereEntry((0, 0, 5, 6)),
)
# Three, four or five players, the lowest total winning once the first reaches 21: five
# deals of these points each (11 a deal); Anna reaches the line on 25, and the last player,
# the lowest, wins.
LAST_IN = APerdereTerms()
LOWEST = APerdereTerms(end=APerdereEnd.LOWEST)
LOWEST_DEAL = {3: (5, 4, 2), 4: (5, 3, 2, 1), 5: (5, 3, 2, 1, 0)}


def a_perdere(table, names=NAMES, deals=WORKED, terms=LAST_IN, end=True) -> Match:
    """A match a perdere at `table` of these players and deals, ended if `end`."""
    match = services.start_match(
        table=table, players=[[name] for name in names], settings=terms, first_dealer=0
    )
    for number, entry in enumerate(deals, start=1):
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    match = Match.objects.get(pk=match.pk)
    return services.end_match(match=match) if end else match


def lowest_deals(players: int) -> tuple[APerdereEntry, ...]:
    return (APerdereEntry(LOWEST_DEAL[players]),) * 5


def rows(table_element) -> dict[str, list[str]]:
    """A table's rows by their heading (a name): each cell's words, without a phone's labels."""
    found = {}
    for row in table_element.select("tbody tr"):
        for label in row.select(".cell-label"):
            label.extract()
        found[words(row.th)] = [words(cell) for cell in row.select("td")]
    return found


# --- The stats ---------------------------------------------------------------------------


def stats_page(client, table):
    return parsed(client.get(reverse("stats", args=[table.viewer_token]), **EN))


def test_a_match_a_perdere_has_records_of_its_own_and_none_among_the_pairs(client):
    table = TableFactory()
    play_tressette(table, [AC, BD], 0)  # Carla and Dino play Tressette too
    a_perdere(table)
    page = stats_page(client, table)
    assert words(page.select("main > p")[0]).startswith("2 finished matches.")
    # Tressette's players and pairs: the four of its one match, each once.
    players = rows(page.select(".records")[0])
    assert {name: figures[:2] for name, figures in players.items()} == {
        "Alice": ["1", "1 (100%)"],
        "Carla": ["1", "1 (100%)"],
        "Beppe": ["1", "0 (0%)"],
        "Dino": ["1", "0 (0%)"],
    }
    assert set(rows(page.select(".records")[1])) == {"Alice & Carla", "Beppe & Dino"}
    # A perdere's, most wins first: points per deal played, until out (Anna 22 in 3 deals).
    section = one(page, "#a-perdere")
    assert words(section.h2) == "Tressette a perdere"
    assert words(section.p).startswith("1 match a perdere ended.")
    assert rows(section) == {
        "Dino": ["1", "1 (100%)", "1.8"],
        "Anna": ["1", "0 (0%)", "7.3"],
        "Bruno": ["1", "0 (0%)", "5.5"],
        "Carla": ["1", "0 (0%)", "4.2"],
    }
    dino = table.players.get(name="Dino")
    listed = f"{reverse('table', args=[table.viewer_token])}?player={dino.pk}#matches"
    assert section.select("tbody th a")[0]["href"] == listed
    assert not page.select("#terziglio")


def test_only_matches_a_perdere_show_no_empty_tressette_tables(client):
    table = TableFactory()
    a_perdere(table)
    a_perdere(table, names=("Elena", "Dino", "Bruno"), deals=lowest_deals(3), terms=LOWEST)
    a_perdere(table, deals=WORKED[:3], end=False)  # under way: counts once it ends
    page = stats_page(client, table)
    assert words(page.select("main > p")[0]).startswith("2 finished matches.")
    assert not page.select(".wins") and not page.select("#key")
    assert [words(section.h2) for section in page.select("main section")] == ["Tressette a perdere"]
    # Bruno won the second (10, to Elena's 25 and Dino's 20): 22 in 4 deals and 10 in 5.
    assert rows(one(page, "#a-perdere")) == {
        "Bruno": ["2", "1 (50%)", "3.6"],
        "Dino": ["2", "1 (50%)", "2.9"],
        "Anna": ["1", "0 (0%)", "7.3"],
        "Carla": ["1", "0 (0%)", "4.2"],
        "Elena": ["1", "0 (0%)", "5.0"],
    }


def test_a_match_a_perdere_stopped_counts_in_no_stats(client):
    table = TableFactory()
    stopped = a_perdere(table, deals=WORKED[:3], end=False)
    services.stop_match(match=stopped)
    page = stats_page(client, table)
    assert words(one(page, "main .card.muted")) == (
        "No finished matches yet: stats appear once a match is ended."
    )


def test_the_stats_read_as_many_queries_for_many_matches_a_perdere_as_for_one(client):
    counts = []
    for matches in (1, 4):
        table = TableFactory()
        play_tressette(table, [AC, BD], 0)
        a_perdere(table, names=(*NAMES, "Elena"), deals=lowest_deals(5), terms=LOWEST)
        for _ in range(matches - 1):
            a_perdere(table)
        counts.append(queries(client, reverse("stats", args=[table.viewer_token])))
        played = rows(stats_page(client, table).select_one("#a-perdere"))["Anna"][0]
        assert played == str(matches)
    # The table and its matches in play, the finished matches, their sides, those waiting.
    assert counts == [5, 5]


# --- Tonight's tally ---------------------------------------------------------------------


def test_tonight_a_match_a_perdere_counts_for_its_winner_and_in_no_series(client):
    table = services.create_table(name="Osteria")
    play_tressette(table, [AC, BD], 0)
    a_perdere(table)
    a_perdere(table, names=("Elena", "Dino", "Bruno"), deals=lowest_deals(3)[:2], end=False)
    stopped = a_perdere(table, deals=WORKED[:3], end=False)
    services.stop_match(match=stopped)  # undecided: counts for nothing
    page = parsed(client.get(reverse("table", args=[table.viewer_token]), **EN))
    tonight = one(page, "#tonight")
    # Tressette's one series and its four players; none of a perdere's among them.
    assert [words(series) for series in tonight.select(".series li")] == [
        "Alice & Carla 1 – 0 Beppe & Dino"
    ]
    players = tonight.select(".tonight-table")[1]  # after the sides'
    assert list(rows(players)) == ["Alice", "Carla", "Beppe", "Dino"]
    assert rows(players)["Dino"] == ["0"]
    # A perdere's: the match ended, played by each of its four and won by Dino.
    assert rows(one(tonight, "#tonight-a-perdere")) == {
        "Dino": ["1", "1"],
        "Anna": ["1", "0"],
        "Bruno": ["1", "0"],
        "Carla": ["1", "0"],
    }
    text = words(one(tonight, "#tonight-text"))
    assert "Tressette a perdere: Dino 1, Anna 0, Bruno 0, Carla 0" in text
    # The same tally as the sheet's line opens it, and as a picture.
    alone = parsed(client.get(reverse("tonight", args=[table.viewer_token]), **EN))
    assert rows(one(alone, "#tonight-a-perdere"))["Dino"] == ["1", "1"]
    picture = client.get(reverse("tonight_picture", args=[table.viewer_token]), **EN)
    texts = [t.text for t in ElementTree.fromstring(picture.content).iter(f"{SVG}text")]
    at = texts.index("Tressette a perdere")
    assert texts[at + 1 : at + 5] == ["Dino", "1 won", "Anna", "0 won"]


def test_tonight_of_matches_a_perdere_alone_draws_no_series_and_no_pairs(client):
    table = services.create_table(name="Osteria")
    services.change_evening(table=table, evening=rules.Evening.FIRST_TO_2, stakes=True)
    a_perdere(table, names=(*NAMES, "Elena"), deals=lowest_deals(5), terms=LOWEST)
    page = parsed(client.get(reverse("table", args=[table.viewer_token]), **EN))
    tonight = one(page, "#tonight")
    assert not tonight.select(".series") and not tonight.select("#no-match-tonight")
    headings = [words(th) for th in tonight.select("thead th")]
    assert headings == ["Tressette a perdere", "Played", "Won"]  # the stakes count no games
    assert rows(tonight)["Elena"] == ["1", "1"]  # the lowest total, 0
    assert rows(tonight)["Dino"] == ["1", "0"]


# --- The result to share -----------------------------------------------------------------


def picture(client, match) -> list[str]:
    """The result's picture, parsed (a broken one raises): its texts in drawing order, and
    its title (the text shared with it) first."""
    url = reverse("result_picture", args=[match.table.viewer_token, match.pk])
    answer = client.get(url, **EN)
    assert answer["Content-Type"].startswith("image/svg+xml")
    svg = ElementTree.fromstring(answer.content)
    return [svg.find(f"{SVG}title").text, *(text.text for text in svg.iter(f"{SVG}text"))]


def test_the_result_draws_every_player_their_totals_who_went_out_and_who_won(client):
    match = a_perdere(TableFactory())
    title, *texts = picture(client, match)
    assert title.splitlines()[:2] == [
        "Anna 22 · Bruno 22 · Carla 21 · Dino 9",
        "Dino won the match (the last one in).",
    ]
    assert title.splitlines()[2].startswith("Tressette a perdere · Line 21 · 5 deals · ")
    # After the table and the day, a card a player: name, total, "out" or "match won".
    assert texts[2:14] == [
        "Anna", "22", "out", "Bruno", "22", "out", "Carla", "21", "out", "Dino", "9", "match won",
    ]  # fmt: skip
    drawn = " ".join(texts)  # a sentence may be wrapped over lines
    assert "Dino won the match (the last one in)." in drawn
    assert "Tressette a perdere · Line 21 · 5 deals" in drawn
    # Every deal under its players' names: each one's total and what it charged them; "out"
    # where it put them out, a dash for those out before it.
    heading = texts.index("#")
    assert texts[heading + 1 : heading + 5] == list(NAMES)
    deals = texts[heading + 5 :]
    assert deals[:9] == ["1", "5", "+5", "3", "+3", "2", "+2", "0", "+0"]
    assert deals[9:18] == ["2", "16", "+11", "14", "+11", "13", "+11", "0", "+0"]
    assert deals[18:28] == ["3", "22", "+6", "out", "15", "+1", "15", "+2", "1", "+1"]
    assert deals[28:37] == ["4", "\u2013", "22", "+7", "out", "16", "+1", "3", "+2"]
    assert deals[37:45] == ["5", "\u2013", "\u2013", "21", "+5", "out", "9", "+6"]
    assert deals[45:] == ["Tressette Scoresheet"]


@pytest.mark.parametrize(
    ("names", "totals"),
    [
        (NAMES[:3], "Anna 25 · Bruno 20 · Carla 10"),
        (NAMES, "Anna 25 · Bruno 15 · Carla 10 · Dino 5"),
        ((*NAMES, "Elena"), "Anna 25 · Bruno 15 · Carla 10 · Dino 5 · Elena 0"),
    ],
)
def test_the_lowest_total_wins_the_result_of_three_four_or_five(client, names, totals):
    match = a_perdere(TableFactory(), names=names, deals=lowest_deals(len(names)), terms=LOWEST)
    title, *texts = picture(client, match)
    assert title.splitlines()[:2] == [
        totals,
        f"{names[-1]} won the match (the lowest total at the line).",
    ]
    # A card a player, its name and total; the last, the lowest, won. The first at the line
    # ends the match: nobody is out.
    cards = [said for one in totals.split(" · ") for said in one.split()]
    assert texts[2 : 3 + 2 * len(names)] == [*cards, "match won"]
    assert texts.count("match won") == 1
    assert "out" not in texts


def test_the_sheet_shares_the_result_of_a_match_a_perdere(client):
    match = a_perdere(TableFactory())
    page = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN))
    assert words(one(page, "#result-text")).startswith(
        "Anna 22 · Bruno 22 · Carla 21 · Dino 9 Dino won the match (the last one in)."
    )


def test_a_match_a_perdere_stopped_is_shared_as_stopped_with_its_totals(client):
    match = a_perdere(TableFactory(), deals=WORKED[:3], end=False)
    services.stop_match(match=match)
    title, *texts = picture(client, match)
    assert title.splitlines()[:2] == [
        "Anna 22 · Bruno 15 · Carla 15 · Dino 1",
        "Stopped, undecided: the totals stand as they are.",
    ]
    assert "match won" not in texts
    assert texts[2:9] == ["Anna", "22", "out", "Bruno", "15", "Carla", "15"]


# --- The history -------------------------------------------------------------------------


def test_the_history_says_each_deal_a_perdere_its_terms_and_its_winner(client):
    match = a_perdere(TableFactory())
    url = reverse("match_history", args=[match.table.viewer_token, match.pk])
    page = parsed(client.get(url, **EN))
    assert words(one(page, "main > p.muted")) == "Anna – Bruno – Carla – Dino"
    changes = [words(item).split(" · ", 1)[1] for item in page.select(".changes li")]
    assert changes == [
        "Match ended after: won by Dino · the last one in · 22 · 22 · 21 · 9",
        "Deal 5 recorded after: Anna 0 · Bruno 0 · Carla 5 · Dino 6",
        "Deal 4 recorded after: Anna 0 · Bruno 7 · Carla 1 · Dino 2",
        "Deal 3 recorded after: Anna 6 · Bruno 1 · Carla 2 · Dino 1",
        "Deal 2 recorded after: Anna 11 · Bruno 11 · Carla 11 · Dino 0 (took every point)",
        "Deal 1 recorded after: Anna 5 · Bruno 3 · Carla 2 · Dino 0",
        "Match started after: line 21 · Who reaches the line is out; the last one in wins · "
        "Each player drops their own thirds · reversed sweep",
    ]


def test_a_deal_a_perdere_edited_is_said_before_and_after_for_five(client):
    names = (*NAMES, "Elena")
    match = a_perdere(TableFactory(), names=names, deals=lowest_deals(5)[:1], end=False)
    first = match.deals.get(number=1)
    services.edit_deal(deal=first, version=first.version, entry=APerdereEntry((2, 4, 2, 1, 1)))
    url = reverse("match_history", args=[match.table.viewer_token, match.pk])
    said_now = said(client.get(url, **EN))
    assert (
        "Deal 1 edited before: Anna 5 · Bruno 3 · Carla 2 · Dino 1 · Elena 0 "
        "after: Anna 2 · Bruno 4 · Carla 2 · Dino 1 · Elena 1"
    ) in said_now


def test_the_tables_list_names_a_match_a_perdere_its_totals_and_winner(client):
    match = a_perdere(TableFactory())
    page = parsed(client.get(reverse("table", args=[match.table.viewer_token]), **EN))
    line = words(one(page, "#matches .list li"))
    assert line.startswith(
        "Anna – Bruno – Carla – Dino 22 · 22 · 21 · 9 · 5 deals · won by Dino (the last one in)"
    )
