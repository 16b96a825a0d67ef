"""Terziglio in a table's documents, pages and history (issue 52): JSON exported, imported
and exported again the same, each deal checked by Terziglio's rules on the way in; the CSV's
columns for a table that played it; the table's list and the history in words; Undo."""

import copy
import json

import pytest
from django.urls import reverse

from matches import exports, imports, rules, selectors, services
from matches.imports import ImportInvalid
from matches.models import Match, Table
from matches.rules import Bid, TerziglioEntry, TerziglioTerms
from tests.html import one, parsed, value, words
from tests.test_exports import _english, csv_rows, json_document  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("_english")]

THREE = [["Anna"], ["Bruno"], ["Carla"]]


def play(match: Match, *entries: TerziglioEntry) -> Match:
    for number, entry in enumerate(entries, start=match.deal_count + 1):
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    return Match.objects.get(pk=match.pk)


def evening_of_three() -> Table:
    """A Terziglio won at the line (a deal a monte, one edited), its rematch to 4 deals paid
    flat, still played, and a match of Tressette between them."""
    table = services.create_table(name="Bar Sport")
    won = services.start_match(table=table, players=THREE, settings=TerziglioTerms())
    won = play(won, TerziglioEntry(0, Bid.CHIAMO, 7), TerziglioEntry())
    deal = won.deals.get(number=1)
    services.edit_deal(deal=deal, version=1, entry=TerziglioEntry(0, Bid.SOLO, 7))
    won = play(won, TerziglioEntry(2, Bid.SOLISSIMO, 10))
    services.end_match(match=won)
    tressette = services.start_match(table=table, players=[["Anna", "Carla"], ["Bruno", "Dino"]])
    services.record_deal(match_id=tressette.pk, number=1, entry=rules.DealEntry((8, 3), (3, 0)))
    again = services.rematch(match=Match.objects.get(pk=won.pk))
    again.refresh_from_db()
    flat = TerziglioTerms(rules.Payment.FLAT, rules.TerziglioEnd.DEALS, deals=4)
    services.change_settings(match=again, settings=flat)
    play(again, TerziglioEntry(1, Bid.CHIAMO, 3))
    return table


def test_export_then_import_then_export_gives_the_same_document():
    first = json_document(evening_of_three())
    table = services.import_table(document=imports.read(json.dumps(first).encode()))
    second = json_document(table)
    del first["exported_at"], second["exported_at"]
    assert second == first
    won, tressette, again = first["matches"]
    assert (won["game"], won["terms"]) == ("terziglio", {"payment": "difference", "end": "line",
                                                          "line": 21})  # fmt: skip
    assert won["deals"][1] == {"number": 2, "bid": "a_monte", "soloist": None,
                               "card_points": None, "points": [0, 0, 0]}  # fmt: skip
    # Anna's solo 7-4 pays her 3 doubled by each; Carla's solissimo 10-1, 9 tripled.
    assert (won["totals"], won["winner"], won["end_reason"]) == ([-15, -33, 48], 2, "line")
    assert "game" not in tressette  # a match of Tressette is written as it always was
    assert again["terms"] == {"payment": "flat", "end": "deals", "line": 21, "deals": 4}
    assert sum(again["totals"]) == 0


def refused(document: dict) -> list[str]:
    with pytest.raises(ImportInvalid) as invalid:
        imports.validate_document(document)
    return invalid.value.messages


def test_an_import_checks_each_deal_of_terziglio_by_its_rules():
    document = json_document(evening_of_three())
    wrong = copy.deepcopy(document)
    wrong["matches"][0]["deals"][0]["points"] = [4, -2, -2]
    assert refused(wrong) == [
        "Match 1, deal 1: the file gives points [4, -2, -2], but the rules score [12, -6, -6]."
    ]
    wrong = copy.deepcopy(document)
    wrong["matches"][0]["deals"][0]["card_points"] = 12
    assert refused(wrong) == [
        "Match 1, deal 1: Anna: card points cannot be more than 11, the last trick included."
    ]
    wrong = copy.deepcopy(document)
    wrong["matches"][0]["sides"] = wrong["matches"][0]["sides"][:2]
    assert refused(wrong) == ["Match 1: “sides” must be a list of 3 sides."]
    wrong = copy.deepcopy(document)
    wrong["matches"][0]["deals"][0] = {"number": 1, "kind": "normal", "side": None,
                                       "card_points": [7, 4], "declared_points": [0, 0],
                                       "points": [7, 4]}  # fmt: skip
    assert refused(wrong) == ["Match 1, deal 1: this deal is not of this match's game."]
    wrong = copy.deepcopy(document)
    wrong["matches"][0]["winner"] = 0  # Carla won it
    assert refused(wrong)[0].startswith("Match 1: ")
    assert "Anna" in refused(wrong)[0] and "Carla" in refused(wrong)[0]
    # The third player named too, as the winner given.
    error = rules.RuleError("result_winner", {"given": 2, "winner": 0}, part="winner")
    said = imports._result_message("Match 1", error, ("Anna", "Bruno", "Carla"))
    assert "Carla" in said and "Anna" in said and "2" not in said


def test_the_csv_of_a_table_that_played_terziglio_has_its_columns_after_the_rest():
    rows = csv_rows(exports.table_csv_rows(evening_of_three()))
    header = rows[0]
    assert header[-7:] == ["Game", "Played alone by", "Bid", "Side 3 name",
                           "Side 3 card points", "Side 3 points", "Side 3 total"]  # fmt: skip
    first = dict(zip(header, rows[1], strict=True))
    assert (first["Game"], first["Played alone by"], first["Bid"]) == ("Terziglio", "Anna", "solo")
    assert (first["Side 1, first player"], first["Side 1 card points"]) == ("Anna", "7")
    assert (first["Side 1 points"], first["Side 2 points"], first["Side 3 points"]) == (
        "12",
        "-6",
        "-6",
    )
    tressette = dict(zip(header, rows[4], strict=True))
    assert (tressette["Game"], tressette["Side 1 card points"]) == ("Tressette", "8")


def test_the_history_says_a_deal_of_terziglio_in_words():
    table = evening_of_three()
    match = Match.objects.filter(table=table, game="terziglio").order_by("pk").first()
    names, seats = selectors.match_names(match)
    said = [logged.after for logged in selectors.match_changes(match, names, None, seats)]
    assert "Anna chiamo 7–4 · Anna +6, Bruno -3, Carla -3" in said  # recorded
    assert "Anna solo 7–4 · Anna +12, Bruno -6, Carla -6" in said  # then edited
    assert "a monte · Anna 0, Bruno 0, Carla 0" in said
    assert said[-1] == (
        "The difference in card points, times the bid · When a balance reaches the line · line 21"
    )


def test_the_tables_list_and_the_history_name_all_three_players(client):
    table = evening_of_three()
    listed = client.get(f"/t/{table.viewer_token}/").content.decode()
    assert "Anna – Bruno – Carla" in listed
    assert "-15 · -33 · 48" in listed
    match = Match.objects.filter(table=table, game="terziglio").order_by("pk").first()
    history = client.get(f"/t/{table.viewer_token}/m/{match.pk}/history").content.decode()
    assert "Anna – Bruno – Carla" in history


def test_a_match_of_terziglio_takes_no_settings_of_tressette():
    match = Match.objects.get(table=evening_of_three(), game="terziglio", status="in_progress")
    with pytest.raises(services.ServiceError) as refused:
        services.change_settings(match=match, settings=rules.MatchSettings(claims_allowed=True))
    assert refused.value.code == "other_game"


@pytest.fixture
def scoring(client) -> tuple[Match, str]:
    """A match of Terziglio to the line, and its sheet's address; `client` a scorer of it."""
    table = services.create_table(name="Bar Sport")
    match = services.start_match(table=table, players=THREE, settings=TerziglioTerms())
    client.post(reverse("join", args=[table.scorer_token]), {"label": "Anna's phone"})
    return match, reverse("match", args=[table.viewer_token, match.pk])


HX = {"HTTP_HX_REQUEST": "true", "HTTP_ACCEPT_LANGUAGE": "en"}


def test_the_sheet_says_what_each_deal_would_pay_for_a_phone_offline(client, scoring):
    match, sheet_url = scoring
    flat = TerziglioTerms(rules.Payment.FLAT, rules.TerziglioEnd.DEALS, deals=4)
    services.change_settings(match=match, settings=flat)
    offline = json.loads(one(parsed(client.get(sheet_url, **HX)), "#offline-data").get_text())
    assert (offline["game"], offline["line"], offline["deals"]) == ("terziglio", None, 4)
    assert offline["totals"] == [0, 0, 0] and offline["sides"] == ["Anna", "Bruno", "Carla"]
    # Flat: 1 times the bid's, to the soloist from each of the other two (or to each of them).
    assert offline["pays"]["solissimo"][8] == [6, -3] and offline["pays"]["chiamo"][5] == [-2, 1]
    services.change_settings(match=match, settings=TerziglioTerms())
    offline = json.loads(one(parsed(client.get(sheet_url, **HX)), "#offline-data").get_text())
    assert (offline["line"], offline["deals"]) == (21, None)
    # By the difference: a chiamo won 7-4 pays 3 from each; a solo lost 5-6, 1 doubled to each.
    assert offline["pays"]["chiamo"][7] == [6, -3] and offline["pays"]["solo"][5] == [-4, 2]
    assert [len(pays) for pays in offline["pays"].values()] == [12, 12, 12]


def test_undo_puts_a_deal_of_terziglio_back_in_its_form_to_correct(client, scoring):
    match, sheet_url = scoring
    typed = {"game": "terziglio", "number": 1, "key": "phone-a", "soloist": "1", "bid": "solo",
             "card_pad": "5", "shown": match.revision, "typing": "0"}  # fmt: skip
    saved = parsed(client.post(sheet_url + "deals", typed, follow=True, **HX))
    assert Match.objects.get().totals == (2, -4, 2)  # Bruno's solo lost 5-6
    undo = {"undo": value(one(saved, "#saved"), "undo")}  # the sheet the save left
    page = parsed(client.post(sheet_url + "deals/1/delete", undo, **HX))
    assert not match.deals.exists()
    assert "its points are in the form" in words(one(page, "#deleted"))
    put_back = [value(page, field) for field in ("soloist", "bid", "card_pad")]
    assert put_back == ["1", "solo", "5"]
    again = {**typed, "key": value(page, "key"), "card_pad": "6"}
    client.post(sheet_url + "deals", again, **HX)
    assert Match.objects.get().totals == (-2, 4, -2)  # corrected: won 6-5


def test_save_with_nothing_given_is_refused_in_words_and_a_monte_has_its_own_button(
    client, scoring
):
    match, sheet_url = scoring
    blank = {"game": "terziglio", "number": 1, "key": "k1", "shown": match.revision}
    page = parsed(client.post(sheet_url + "deals", blank, **HX))
    assert "Say who played alone, or leave the deal a monte if all three passed." in words(
        one(page, "#deal-form")
    )
    assert not match.deals.exists()
    client.post(sheet_url + "deals", {**blank, "a_monte": "1"}, **HX)
    assert match.deals.get().bid == "a_monte"


def test_undo_s_refilled_form_is_held_against_the_polls(client, scoring):
    match, sheet_url = scoring
    typed = {"game": "terziglio", "number": 1, "key": "k1", "soloist": "2", "bid": "chiamo",
             "card_pad": "8", "shown": match.revision}  # fmt: skip
    saved = parsed(client.post(sheet_url + "deals", typed, follow=True, **HX))
    undo = {"undo": value(one(saved, "#saved"), "undo")}
    page = parsed(client.post(sheet_url + "deals/1/delete", undo, **HX))
    assert value(page, "typing") == "1"  # the polls leave the form as it is


def test_the_history_says_what_an_imported_log_holds_however_odd():
    odd = {"bid": "solo", "soloist": 2, "card_points": [1], "points": 5}
    assert selectors.history.describe(odd, ("Alice & Carla", "Beppe & Dino")) == (
        "? solo [1]–? · Alice & Carla ?, Beppe & Dino ?"
    )
    terms = {"payment": ["flat"], "end": "deals", "deals": "four"}
    assert selectors.history.describe(terms, ("A", "B", "C")) == "? · after four deals"


def test_the_stats_count_each_player_s_matches_of_three_apart(client):
    table = evening_of_three()
    stats = selectors.table_stats(table)
    assert (stats.matches_played, stats.terziglio_played, stats.players) == (1, 1, [])
    counted = [(r.name, r.played, r.won, r.balance, r.alone, r.won_alone) for r in stats.terziglio]
    assert counted == [
        ("Carla", 1, 1, 48, 1, 1),
        ("Anna", 1, 0, -15, 1, 1),
        ("Bruno", 1, 0, -33, 0, 0),
    ]
    page = parsed(client.get(f"/t/{table.viewer_token}/stats", HTTP_ACCEPT_LANGUAGE="en"))
    assert "1 match of three, ended or stopped." in words(one(page, "#terziglio"))
    carla = words(page.select("#terziglio tbody tr")[0])
    assert carla == "Carla Played 1 Won 1 (100%) Balance +48 Alone 1 of 1 (100%)"
    assert not page.select(".wins")  # no match of Tressette finished: no chart of its wins


def test_tonight_adds_up_the_balances_of_the_matches_of_three_ended_or_stopped(client):
    table = evening_of_three()
    again = Match.objects.get(table=table, game="terziglio", status="in_progress")
    tonight = selectors.load_tonight(Table.objects.get(pk=table.pk))
    counted = [(one.name, one.played, one.won, one.signed) for one in tonight.three]
    assert counted == [("Carla", 1, 1, "+48"), ("Anna", 1, 0, "-15"), ("Bruno", 1, 0, "-33")]
    # The match being played is not counted yet; its sheet says the rest of the evening.
    sheet = parsed(client.get(f"/t/{table.viewer_token}/m/{again.pk}/", HTTP_ACCEPT_LANGUAGE="en"))
    assert words(one(sheet, "#tonight-line summary")) == "Tonight Carla +48 · Anna -15 · Bruno -33"

    services.stop_match(match=again)  # Bruno's chiamo lost 3-8, paid flat: 1 to each
    tonight = selectors.load_tonight(Table.objects.get(pk=table.pk))
    counted = [(one.name, one.played, one.won, one.signed) for one in tonight.three]
    assert counted == [("Carla", 2, 1, "+49"), ("Anna", 2, 0, "-14"), ("Bruno", 2, 0, "-35")]
    assert tonight.text.endswith("\nTerziglio: Carla +49 (1 won), Anna -14, Bruno -35")
    page = parsed(client.get(f"/t/{table.viewer_token}/", HTTP_ACCEPT_LANGUAGE="en"))
    rows = [words(row) for row in page.select("#tonight-three tbody tr")]
    assert rows == ["Carla 1 +49", "Anna 0 -14", "Bruno 0 -35"]
    drawn = [text.text for text in selectors.tonight_picture(tonight).texts]
    assert drawn[-8:-1] == ["Terziglio", "Carla", "+49 · 1 won", "Anna", "-14", "Bruno", "-35"]


def test_a_deal_is_edited_to_a_monte_by_its_own_button(client, scoring):
    match, sheet_url = scoring
    play(match, TerziglioEntry(0, Bid.CHIAMO, 7), TerziglioEntry(1, Bid.SOLO, 5))
    page = parsed(client.get(sheet_url + "deals/1/edit", HTTP_ACCEPT_LANGUAGE="en"))
    assert words(one(page, "#a-monte")) == "All passed: a monte"
    edit = {"game": "terziglio", "number": 1, "deal": value(page, "deal"),
            "version": value(page, "version"), "soloist": "0", "bid": "chiamo",
            "card_pad": "7"}  # fmt: skip
    client.post(sheet_url + "deals/1/edit", {**edit, "a_monte": "1"}, HTTP_ACCEPT_LANGUAGE="en")
    match = Match.objects.get(pk=match.pk)
    assert match.deals.get(number=1).bid == "a_monte"
    assert match.totals == (2, -4, 2)  # only Bruno's solo lost 5-6 is paid now
