"""Tressette a perdere in a table's documents (issue 52): JSON exported, imported and exported
again the same, each deal checked by its rules on the way in; the CSV's columns for a table
that played it, after Terziglio's."""

import copy
import json

import pytest
from django.urls import reverse

from matches import exports, imports, rules, services
from matches.imports import ImportInvalid
from matches.models import Match, Table
from matches.rules import APerdereEnd, APerdereEntry, APerdereTerms, Fractions
from tests.html import one, parsed, words
from tests.test_exports import _english, csv_rows, json_document  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("_english")]


FOUR = [["Anna"], ["Bruno"], ["Carla"], ["Dino"]]
DINO = 3


def play(match: Match, *entries: APerdereEntry) -> Match:
    for number, entry in enumerate(entries, start=match.deal_count + 1):
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    return Match.objects.get(pk=match.pk)


def evening_a_perdere() -> Table:
    """Four players to 21, Dino the last one in (a reversed sweep, a deal edited); a match of
    Tressette; the rematch, five players to 31, the lowest wins, still played."""
    table = services.create_table(name="Osteria")
    won = services.start_match(table=table, players=FOUR, settings=APerdereTerms())
    won = play(won, APerdereEntry((5, 3, 2, 0)), APerdereEntry((0, 0, 0, 11), sweeper=DINO))
    deal = won.deals.get(number=1)
    services.edit_deal(deal=deal, version=1, entry=APerdereEntry((5, 3, 1, 1)))
    won = play(won, APerdereEntry((6, 1, 2, 1)), APerdereEntry((0, 7, 1, 2)))
    won = play(won, APerdereEntry((0, 0, 6, 5)))
    services.end_match(match=won)
    tressette = services.start_match(table=table, players=[["Anna", "Carla"], ["Bruno", "Dino"]])
    services.record_deal(match_id=tressette.pk, number=1, entry=rules.DealEntry((8, 3), (3, 0)))
    five = services.start_match(
        table=table,
        players=[*FOUR, ["Elena"]],
        settings=APerdereTerms(31, APerdereEnd.LOWEST, Fractions.TO_LAST_TRICK, False),
        first_dealer=4,
    )
    play(five, APerdereEntry((3, 2, 2, 2, 2)))
    return table


def test_export_then_import_then_export_gives_the_same_document():
    first = json_document(evening_a_perdere())
    table = services.import_table(document=imports.read(json.dumps(first).encode()))
    second = json_document(table)
    del first["exported_at"], second["exported_at"]
    assert second == first
    won, tressette, five = first["matches"]
    terms = {"line": 21, "end": "last_in", "fractions": "own", "reversed_sweep": True}
    assert (won["game"], won["terms"]) == ("a_perdere", terms)
    assert won["deals"][1] == {"number": 2, "card_points": [0, 0, 0, 11], "sweeper": DINO,
                               "points": [11, 11, 11, 0]}  # fmt: skip
    assert (won["totals"], won["winner"], won["end_reason"]) == ([22, 22, 21, 9], DINO, "last_in")
    assert "game" not in tressette  # a match of Tressette is written as it always was
    assert (five["first_dealer"], five["totals"], five["status"]) == (
        "Elena", [3, 2, 2, 2, 2], "in_progress")  # fmt: skip
    kept = Match.objects.get(table=table, game=rules.Game.A_PERDERE, status="finished")
    assert kept.out_after == (3, 4, 5, None)


def refused(document: dict) -> list[str]:
    with pytest.raises(ImportInvalid) as invalid:
        imports.validate_document(document)
    return invalid.value.messages


def test_an_import_checks_each_deal_a_perdere_by_its_rules():
    document = json_document(evening_a_perdere())

    def changed(change) -> dict:
        wrong = copy.deepcopy(document)
        change(wrong["matches"][0])
        return wrong

    def points(match):
        match["deals"][0]["points"] = [4, 3, 2, 2]

    assert refused(changed(points)) == [
        "Match 1, deal 1: the file gives points [4, 3, 2, 2], but the rules score [5, 3, 1, 1]."
    ]

    def too_many(match):
        match["deals"][0]["card_points"] = [5, 3, 2, 3]

    assert refused(changed(too_many)) == [
        "Match 1, deal 1: Check the counts: with 4 players in, card points (the last trick "
        "included) add up to 9 to 11, not 13."
    ]

    def out_scores(match):
        match["deals"][3]["card_points"] = [1, 6, 1, 2]

    assert refused(changed(out_scores))[0].startswith("Match 1, deal 4: Anna")

    def two(match):
        match["sides"] = match["sides"][:2]

    assert refused(changed(two)) == [
        "Match 1: Tressette a perdere is played by 3 to 5 players, not 2."
    ]

    def of_tressette(match):
        match["deals"][0] = {"number": 1, "kind": "normal", "side": None, "card_points": [7, 4],
                             "declared_points": [0, 0], "points": [7, 4]}  # fmt: skip

    assert refused(changed(of_tressette)) == [
        "Match 1, deal 1: this deal is not of this match's game."
    ]

    def sweeper(match):
        match["deals"][1]["sweeper"] = "Dino"

    assert refused(changed(sweeper)) == [
        "Match 1, deal 2: “sweeper” is missing or wrong: a deal of Tressette a perdere names "
        "each player's card points and who took every point (null if no one)."
    ]

    wrong = copy.deepcopy(document)
    wrong["matches"][1]["deals"][0]["sweeper"] = None  # a deal of Tressette
    assert refused(wrong) == ["Match 2, deal 1: this deal is not of this match's game."]

    def terms(match):
        match["terms"]["fractions"] = "half"

    assert refused(changed(terms))[0].startswith("Match 1: ")

    def winner(match):
        match["winner"] = 0

    assert "Dino" in refused(changed(winner))[0]


def test_a_match_a_perdere_imported_is_seen_on_its_sheet_as_it_was_played(client):
    document = json_document(evening_a_perdere())
    table = services.import_table(document=imports.read(json.dumps(document).encode()))
    won = Match.objects.get(table=table, game=rules.Game.A_PERDERE, status="finished")
    url = reverse("match", args=[table.viewer_token, won.pk])
    page = parsed(client.get(url, HTTP_ACCEPT_LANGUAGE="en"))
    assert [words(total) for total in page.select("#live .total")] == ["22", "22", "21", "9"]
    assert "Dino won the match (the last one in)" in words(one(page, "#live .result"))
    assert len(page.select("#deal-rows tr")) == 5


def test_the_csv_of_a_table_that_played_a_perdere_has_its_columns_after_terziglios():
    rows = csv_rows(exports.table_csv_rows(evening_a_perdere()))
    header = rows[0]
    assert header[-16:] == [
        "Game", "Played alone by", "Bid", "Side 3 name", "Side 3 card points", "Side 3 points",
        "Side 3 total", "Took every point", "Side 4 name", "Side 4 card points", "Side 4 points",
        "Side 4 total", "Side 5 name", "Side 5 card points", "Side 5 points", "Side 5 total",
    ]  # fmt: skip
    assert all(len(row) == len(header) for row in rows)
    swept = dict(zip(header, rows[2], strict=True))
    assert (swept["Game"], swept["Took every point"], swept["Winner"]) == (
        "Tressette a perdere", "Dino", "Dino")  # fmt: skip
    assert (swept["Side 1, first player"], swept["Side 1 points"], swept["Side 3 points"]) == (
        "Anna", "11", "11")  # fmt: skip
    assert (swept["Side 4 name"], swept["Side 4 card points"], swept["Side 4 total"]) == (
        "Dino", "11", "1")  # fmt: skip
    assert swept["Side 5 name"] == ""  # four players
    tressette = dict(zip(header, rows[6], strict=True))
    assert (tressette["Game"], tressette["Took every point"]) == ("Tressette", "")
    five = dict(zip(header, rows[7], strict=True))
    assert (five["Deal"], five["Dealer"], five["Side 5 name"], five["Side 5 total"]) == (
        "1", "Elena", "Elena", "2")  # fmt: skip
