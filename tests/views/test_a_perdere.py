"""Tressette a perdere on its pages: a new match of three to five players, its sheet (each
player's total toward the line, who is out), its deals typed a player a line or tapped as the
reversed sweep, refused in words with what was typed kept, edited, ended."""

import pytest
from django.urls import reverse

from matches import rules, services
from matches.models import Deal, Match
from tests.factories import TableFactory
from tests.html import errors_of, one, parsed, words

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
NAMES = ("Anna", "Bruno", "Carla", "Dino")


@pytest.fixture
def table(client):
    table = TableFactory()
    client.post(reverse("join", args=[table.scorer_token]), {"label": "Anna's phone"})
    return table


def start(table, names=NAMES, **terms) -> Match:
    return services.start_match(
        table=table,
        players=[[name] for name in names],
        settings=rules.APerdereTerms(**terms),
        first_dealer=0,
    )


def sheet_url(match: Match) -> str:
    return reverse("match", args=[match.table.viewer_token, match.pk])


def deal_url(match: Match) -> str:
    return reverse("record_deal", args=[match.table.viewer_token, match.pk])


def deal(number: int, *points, key: str = "", sweeper: str = "") -> dict:
    data = {"game": "a_perdere", "number": number, "key": key or f"k{number}"}
    data |= {"players": len(points), "sweeper": sweeper}
    return data | {f"card_points_{seat}": str(p) for seat, p in enumerate(points)}


def new_match(client, table, **fields):
    data = {"first_dealer": "0", "line": "21", "end": "last_in", "fractions": "own"}
    data |= {"reversed_sweep": "on", **fields}
    return client.post(reverse("new_a_perdere", args=[table.viewer_token]), data, **EN)


# --- A new match -------------------------------------------------------------------------


def test_a_new_match_a_perdere_seats_three_to_five_players_in_the_order_typed(client, table):
    answer = new_match(client, table, player_0="Anna", player_1="Bruno", player_2="Carla",
                       player_3="Dino", player_4="Elena", first_dealer="4")  # fmt: skip
    match = Match.objects.get()
    assert answer.status_code == 302 and answer["Location"] == sheet_url(match)
    assert match.game == rules.Game.A_PERDERE
    assert list(match.sides.values_list("name", flat=True)) == [*NAMES, "Elena"]
    assert (match.first_dealer, match.settings) == (4, rules.APerdereTerms())
    three = new_match(client, table, player_0="Anna", player_1="Bruno", player_2="Carla",
                      end="lowest", fractions="to_last_trick", reversed_sweep="")  # fmt: skip
    assert three.status_code == 302
    terms = Match.objects.latest("pk").settings
    assert terms == rules.APerdereTerms(21, "lowest", "to_last_trick", reversed_sweep=False)


def test_a_new_match_a_perdere_is_refused_in_words_and_keeps_what_was_typed(client, table):
    two = parsed(new_match(client, table, player_0="Anna", player_1="Bruno"))
    assert errors_of(two, "id_player_2") == ["Type a name or pick a player."]
    gap = parsed(new_match(client, table, player_0="Anna", player_1="Bruno", player_3="Dino"))
    assert errors_of(gap, "id_player_2") == ["Type a name or pick a player."]
    assert one(gap, "#id_player_3")["value"] == "Dino"
    twice = parsed(new_match(client, table, player_0="Anna", player_1="Bruno", player_2="anna"))
    assert errors_of(twice, "id_player_2") == ["This player already sits at this match."]
    dealer = parsed(new_match(client, table, player_0="A", player_1="B", player_2="C",
                              first_dealer="4"))  # fmt: skip
    assert errors_of(dealer, "id_first_dealer")
    assert not Match.objects.exists()


def test_a_viewer_cannot_start_a_match_a_perdere(table):
    from django.test import Client

    answer = Client().get(reverse("new_a_perdere", args=[table.viewer_token]), **EN)
    assert answer.status_code == 403


# --- The sheet ---------------------------------------------------------------------------


def test_the_sheet_shows_each_total_what_is_left_to_the_line_and_who_deals(client, table):
    match = start(table)
    services.record_deal(match_id=match.pk, number=1, entry=rules.APerdereEntry((5, 3, 2, 0)))
    page = parsed(client.get(sheet_url(match), **EN))
    assert [words(n) for n in page.select("#live .total")] == ["5", "3", "2", "0"]
    assert [words(n) for n in page.select("#live .needs")] == [
        "16 to the line", "18 to the line", "19 to the line", "21 to the line"]  # fmt: skip
    assert words(one(page, ".next-dealer")) == "Deal 2: Bruno deals."
    assert words(one(page, "#deal-1")) == "1 Anna 5 +5 3 +3 2 +2 0 +0 ✎"
    assert words(one(page, "#live .meta summary")) == "Line 21"
    labels = [words(label) for label in page.select("#deal-form .player-points label")]
    assert labels == list(NAMES)


def test_a_deal_typed_a_player_a_line_is_saved_as_typed(client, table):
    match = start(table)
    assert client.post(deal_url(match), deal(1, "4", " 3", "2", "0"), **EN).status_code == 302
    assert Deal.objects.get(match=match).entry == rules.APerdereEntry((4, 3, 2, 0))
    thirds = parsed(client.post(deal_url(match), deal(2, "4", "3⅔", "2", "0"), **EN))
    assert "3⅔ is 3" in errors_of(thirds, "id_card_points_1")[0]
    assert one(thirds, "#id_card_points_1")["value"] == "3⅔"


def test_a_deal_the_deck_cannot_give_is_refused_in_words_and_nothing_is_kept(client, table):
    match = start(table)
    page = parsed(client.post(deal_url(match), deal(1, 4, 3, 2, 3), **EN))
    said = words(one(page, "#deal-errors"))
    assert "with 4 players in, card points (the last trick included) add up to 9 to 11" in said
    assert one(page, "#id_card_points_3")["value"] == "3"
    missing = parsed(client.post(deal_url(match), deal(1, 4, 3, 2, ""), **EN))
    assert errors_of(missing, "id_card_points_3") == ["Type Dino's card points: 0 if none."]
    assert not Deal.objects.exists()


def test_the_reversed_sweep_is_a_tap_and_charges_everyone_else_eleven(client, table):
    match = start(table)
    swept = client.post(deal_url(match), deal(1, "", "", "", "", sweeper="1"), **EN)
    assert swept.status_code == 302
    page = parsed(client.get(sheet_url(match), **EN))
    assert [words(n) for n in page.select("#live .total")] == ["11", "0", "11", "11"]
    assert "took every point" in words(one(page, "#deal-1 .side-1"))
    without = start(table, reversed_sweep=False)
    assert parsed(client.get(sheet_url(without), **EN)).select("#deal-form .player-points")
    assert not parsed(client.get(sheet_url(without), **EN)).select("#deal-form .sweeper")
    assert client.post(deal_url(without), deal(1, 0, 11, 0, 0), **EN).status_code == 302
    assert Deal.objects.get(match=without).entry == rules.APerdereEntry((0, 11, 0, 0))
    refused = parsed(client.post(deal_url(without), deal(2, "", "", "", "", sweeper="1"), **EN))
    said = "This match is played without the reversed sweep: enter each player's card points."
    assert words(one(refused, "#deal-errors")) == said


def test_a_player_out_is_not_asked_and_the_last_one_in_wins(client, table):
    match = start(table, names=NAMES[:3])
    for number, points in enumerate(((9, 1, 1), (9, 1, 0), (4, 5, 1)), start=1):
        assert client.post(deal_url(match), deal(number, *points), **EN).status_code == 302
    page = parsed(client.get(sheet_url(match), **EN))
    needs = ["out", "14 to the line", "19 to the line"]
    assert [words(n) for n in page.select("#live .needs")] == needs
    assert "out" in words(one(page, "#deal-3 .side-0"))
    assert [words(n) for n in page.select("#deal-form .player-points label")] == ["Bruno", "Carla"]
    assert one(page, "#deal-form input[name=card_points_0]")["type"] == "hidden"
    two_in = parsed(client.post(deal_url(match), deal(4, 0, 10, 0), **EN))
    assert "with 2 players in, card points (the last trick included) add up to 11" in words(two_in)
    assert client.post(deal_url(match), deal(4, 0, 10, 1), **EN).status_code == 302
    assert client.post(deal_url(match), deal(5, 0, 5, 6), **EN).status_code == 302
    page = parsed(client.get(sheet_url(match), **EN))
    assert "Only Carla is still in, and wins the match." in words(one(page, "#live"))
    end = reverse("end_match", args=[table.viewer_token, match.pk])
    assert client.post(end, **EN).status_code == 302
    page = parsed(client.get(sheet_url(match), **EN))
    assert "Carla won the match (the last one in)" in words(one(page, "#live .result"))


def test_a_deal_a_perdere_is_edited_on_its_own_page(client, table):
    match = start(table)
    services.record_deal(match_id=match.pk, number=1, entry=rules.APerdereEntry((5, 3, 2, 0)))
    url = reverse("edit_deal", args=[table.viewer_token, match.pk, 1])
    page = parsed(client.get(url, **EN))
    typed = [one(page, f"#id_card_points_{seat}")["value"] for seat in range(4)]
    assert typed == ["5", "3", "2", "0"]
    data = deal(1, 4, 3, 2, 1) | {"version": "1"}
    assert client.post(url, data, **EN).status_code == 302
    assert Deal.objects.get(match=match).entry == rules.APerdereEntry((4, 3, 2, 1))


def test_a_rematch_a_perdere_seats_everyone_again_dealt_by_the_next_player(client, table):
    match = start(table, names=NAMES[:3])
    for number, points in enumerate(((9, 1, 1), (9, 1, 0), (4, 5, 1), (0, 10, 1), (0, 5, 6)), 1):
        services.record_deal(match_id=match.pk, number=number, entry=rules.APerdereEntry(points))
    services.end_match(match=Match.objects.get(pk=match.pk))
    answer = client.post(reverse("rematch", args=[table.viewer_token, match.pk]), **EN)
    again = Match.objects.exclude(pk=match.pk).get()
    assert answer.status_code == 302 and answer["Location"] == sheet_url(again)
    assert (again.game, again.settings, again.totals) == (match.game, match.settings, (0, 0, 0))
    # Carla dealt deal 5 (Anna, Bruno, Carla, Bruno, Carla): Anna, to her right, deals.
    assert again.first_dealer == 0
    page = parsed(client.get(sheet_url(again), **EN))
    assert words(one(page, ".next-dealer")) == "Deal 1: Anna deals."
    assert words(one(page, "#tonight-line summary")) == "Tonight Carla 1 · Anna 0 · Bruno 0"


def test_a_deal_is_edited_with_the_players_in_it_then_though_one_went_out_since(client, table):
    match = start(table, names=NAMES[:3])
    for number, points in enumerate(((9, 1, 1), (9, 1, 0), (4, 5, 1)), start=1):
        services.record_deal(match_id=match.pk, number=number, entry=rules.APerdereEntry(points))
    url = reverse("edit_deal", args=[table.viewer_token, match.pk, 3])  # it put Anna out
    page = parsed(client.get(url, **EN))
    assert one(page, "#id_card_points_0")["value"] == "4"
    assert one(page, "#id_card_points_0")["type"] != "hidden"
    assert client.post(url, deal(3, 3, 5, 2) | {"version": "1"}, **EN).status_code == 302
    assert Match.objects.get(pk=match.pk).totals == (21, 7, 3)


def test_points_sent_for_a_player_out_are_refused_over_the_form_in_words(client, table):
    match = start(table, names=NAMES[:3])
    for number, points in enumerate(((9, 1, 1), (9, 1, 0), (4, 5, 1)), start=1):
        services.record_deal(match_id=match.pk, number=number, entry=rules.APerdereEntry(points))
    page = parsed(client.post(deal_url(match), deal(4, 2, 5, 4), **EN))  # a page drawn before
    said = words(one(page, "#deal-errors"))
    assert said == "Anna is out of the match and plays no more: their card points are 0."
    assert Deal.objects.filter(match=match).count() == 3


def test_a_deal_sent_after_another_phones_says_both_though_its_sweeper_went_out(client, table):
    match = start(table, names=NAMES[:3])
    for number, points in enumerate(((9, 1, 1), (9, 1, 0)), start=1):
        services.record_deal(match_id=match.pk, number=number, entry=rules.APerdereEntry(points))
    # Another phone's deal 3 puts Anna out; this phone, still at deal 3, says she took it all.
    services.record_deal(match_id=match.pk, number=3, entry=rules.APerdereEntry((4, 5, 1)))
    answer = client.post(deal_url(match), deal(3, "", "", "", sweeper="0"), **EN)
    assert answer.status_code == 200
    said = words(one(parsed(answer), "#conflict"))
    assert "Anna · took every point" in said
    assert Deal.objects.filter(match=match).count() == 3


def test_undo_puts_a_deal_a_perdere_back_in_the_form_and_restore_brings_it_back(client, table):
    match = start(table)
    hx = {"HTTP_HX_REQUEST": "true", **EN}
    saved = parsed(client.post(deal_url(match), deal(1, 5, 3, 2, 0), follow=True, **hx))
    revision = Match.objects.get(pk=match.pk).revision
    url = sheet_url(match) + "deals/1/delete"
    page = parsed(client.post(url, {"undo": one(saved, "#saved [name=undo]")["value"]}, **hx))
    assert not Deal.objects.exists() and revision == Match.objects.get(pk=match.pk).revision - 1
    typed = [one(page, f"#id_card_points_{seat}")["value"] for seat in range(4)]
    assert typed == ["5", "3", "2", "0"]
    restore = reverse("restore_deal", args=[table.viewer_token, match.pk, 1])
    assert client.post(restore, **EN).status_code == 302
    assert Deal.objects.get().entry == rules.APerdereEntry((5, 3, 2, 0))
    history = reverse("match_history", args=[table.viewer_token, match.pk])
    said = words(parsed(client.get(history, **EN)))
    assert said.count("Anna 5 · Bruno 3 · Carla 2 · Dino 0") == 3  # entered, taken back, restored
