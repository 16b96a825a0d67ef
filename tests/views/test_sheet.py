"""The sheet (matches/views/sheet.py): what each phone sees, and each action on a match."""

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.urls import reverse

from matches import rules, services
from matches.models import Change, Deal, Match, Player, Table
from matches.views import kept
from tests.factories import MatchFactory
from tests.html import action, errors_of, one, parsed, said, value, words
from tests.views.conftest import deal_data

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HX = {"HTTP_HX_REQUEST": "true", **EN}


def scores(page) -> list[str]:
    return [words(total) for total in page.select("#live .total")]


def notices(page) -> str:
    return words(page.select_one("#notices"))


# --- What everyone sees ------------------------------------------------------------------


def test_the_sheet_shows_both_totals_what_each_needs_and_who_deals(scorer, sheet_url, worked):
    page = parsed(scorer.get(sheet_url, **EN))
    assert scores(page) == ["11", "3"]
    assert [words(n) for n in page.select("#live .needs")] == ["needs 10 more", "needs 18 more"]
    assert words(one(page, ".next-dealer")) == "Deal 2: Beppe deals."
    assert words(one(page, "#deal-1")) == "1 Alice 11 8 + 3 3 11–3 ✎"


def test_a_scorer_gets_the_entry_form_and_a_viewer_is_told_it_is_watching(scorer, sheet_url):
    assert parsed(scorer.get(sheet_url, **EN)).select("#deal-form")
    page = parsed(Client().get(sheet_url, **EN))
    assert not page.select("#deal-form")
    assert words(one(page, "#watching")) == (
        "You are watching: this link shows everything and changes nothing."
    )


def test_the_scoreboard_shows_a_pair_a_player_a_line_so_a_long_name_hides_no_partner(client):
    long = "Maria Grazia Annunziata Esposito-Russo"
    match = MatchFactory(sides=[[long, "Bruno"], ["Gianfranco", "Dino"]])
    match.sides.filter(position=1).update(name="I Leoni")  # a name the table gave the side
    page = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN))
    pair, named = page.select(".scoreboard .side-name")
    assert [words(line) for line in pair.select(".clip")] == [long, "& Bruno"]
    assert "pair" not in named["class"] and words(named) == "I Leoni"
    due = MatchFactory(players_per_side=1)
    page = parsed(client.get(reverse("match", args=[due.table.viewer_token, due.pk]), **EN))
    assert words(page.select(".scoreboard .side-name")[0]) == "Alice"


def test_the_deals_head_a_pair_a_player_a_line_too(scorer, sheet_url, worked):
    head = parsed(scorer.get(sheet_url, **EN)).select_one(".deals thead th.side-0")
    assert [words(line) for line in head.select(".clip")] == ["Alice", "& Carla"]


def test_a_long_side_name_is_clipped_not_breaking_the_layout(scorer, match, sheet_url):
    match.sides.filter(position=0).update(name="Alessandra " * 7)
    legend = parsed(scorer.get(sheet_url, **EN)).select_one(".side-entry.side-0 legend .clip")
    assert words(legend).startswith("Alessandra Alessandra")


def test_the_sheet_says_when_the_match_began(scorer, match, sheet_url):
    match.started_at = datetime(2026, 11, 28, 21, 5, tzinfo=ZoneInfo("Europe/Rome"))
    match.save()
    english = parsed(scorer.get(sheet_url, **EN))
    assert words(one(english, ".started")) == "started Nov. 28, 2026, 21:05"
    italian = parsed(scorer.get(sheet_url, HTTP_ACCEPT_LANGUAGE="it"))
    assert words(one(italian, ".started")) == "iniziata: 28 nov 2026 alle 21:05"


def test_a_won_match_says_so_instead_of_what_each_side_needs(scorer, match, sheet_url):
    for number in (1, 2):
        services.record_deal(match=match, number=number, entry=rules.DealEntry((8, 3), (3, 0)))
    page = parsed(scorer.get(sheet_url, **EN))
    assert [words(n) for n in page.select("#live .needs")] == ["match won", ""]
    assert "winner" in one(page, ".score.side-0")["class"]


def test_a_sweepers_points_are_said_to_reach_the_line_not_summed(scorer, match, sheet_url):
    services.record_deal(match=match, number=1, entry=rules.DealEntry((6, 5), (0, 0)))
    cappotto = rules.DealEntry((0, 11), (0, 0), kind=rules.DealKind.CAPPOTTO, side=1)
    services.record_deal(match=match, number=2, entry=cappotto)
    row = parsed(scorer.get(sheet_url, **EN)).select_one("#deal-2")
    # Beppe & Dino had 5: the cappotto scores the 16 that take them to 21.
    assert words(row.select_one("td.side-1")) == "16 → 21 Cappotto"
    assert row.select_one("td.side-1 .detail")["title"] == "to the line"
    assert words(row.select_one("td.side-0")) == "0 0 + 0"


def test_a_sweeper_already_past_the_line_scores_0_without_reaching_for_it(scorer, match, sheet_url):
    # 23-23: both at the line, another deal; then Beppe & Dino's cappotto wins it.
    for number, entry in enumerate([(6, 5, 0, 0), (5, 6, 0, 0), (6, 5, 6, 7)], start=1):
        deal = rules.DealEntry(entry[:2], entry[2:])
        services.record_deal(match=match, number=number, entry=deal)
    cappotto = rules.DealEntry((0, 11), (3, 0), kind=rules.DealKind.CAPPOTTO, side=1)
    services.record_deal(match=match, number=4, entry=cappotto)
    row = parsed(scorer.get(sheet_url, **EN)).select_one("#deal-4")
    assert words(row.select_one("td.side-1")) == "0 Cappotto"


def test_the_chart_writes_each_sides_total_at_the_end_of_its_trace(scorer, sheet_url, worked):
    chart = parsed(scorer.get(sheet_url, **EN)).select_one("#chart")
    assert [words(total) for total in chart.select("text")] == ["11", "3"]
    assert words(chart.select_one("figcaption")) == "■ Alice & Carla ■ Beppe & Dino – – line 21"


def test_both_sides_at_the_line_say_the_higher_total_won(scorer, match, sheet_url):
    # 11 to 11, then 6 + 4 against 5 + 6: both reach 21 on one deal, 21 to 22.
    for number, entry in enumerate([(6, 5, 0, 0), (5, 6, 0, 0), (6, 5, 4, 6)], start=1):
        services.record_deal(
            match=match, number=number, entry=rules.DealEntry(entry[:2], entry[2:])
        )
    decided = parsed(scorer.get(sheet_url, **EN)).select_one(".decided p")
    assert words(decided) == (
        "Both sides have reached the line: Beppe & Dino have the higher total and win the match."
    )
    assert words(decided.select_one("strong")) == "Beppe & Dino"


@pytest.mark.parametrize(
    ("players", "claimer", "verdict"),
    [
        (1, 0, "Alice claimed the line rightly and wins the match."),
        (2, 1, "Beppe & Dino claimed the line wrongly: Alice & Carla win the match."),
    ],
)
def test_a_claim_says_who_claimed_and_who_wins_in_good_english(client, players, claimer, verdict):
    match = MatchFactory(players_per_side=players, claims_allowed=True)
    # Side 0 has 14, then 21 when the claim stops deal 2: its claim is right, side 1's wrong.
    services.record_deal(match=match, number=1, entry=rules.DealEntry((10, 1), (4, 0)))
    claim = rules.DealEntry((7, 0), (0, 0), kind=rules.DealKind.CLAIM, side=claimer)
    services.record_deal(match=match, number=2, entry=claim)
    page = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN))
    assert words(page.select_one(".decided p")) == verdict


def test_a_side_name_full_of_markup_is_shown_as_typed(client):
    match = MatchFactory(sides=[["<b>Alice</b>"], ["Beppe"]], players_per_side=1)
    services.record_deal(match=match, number=1, entry=rules.DealEntry((8, 3), (13, 0)))
    page = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN))
    verdict = page.select_one(".decided p")
    assert words(verdict) == "<b>Alice</b> has reached the line and wins the match."
    assert not verdict.select("b")


def test_an_ended_match_won_on_a_wrong_claim_says_who_claimed(client):
    match = MatchFactory(players_per_side=1, claims_allowed=True)
    services.record_deal(match=match, number=1, entry=rules.DealEntry((6, 5), (0, 0)))
    claim = rules.DealEntry((3, 2), (0, 0), kind=rules.DealKind.CLAIM, side=0)
    services.record_deal(match=match, number=2, entry=claim)  # 9: wrong
    services.end_match(match=match)
    page = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN))
    assert words(page.select_one(".result")) == (
        "Beppe won the match (claim). Alice claimed the line wrongly."
    )


def test_the_side_question_mentions_claims_only_where_claims_are_allowed(scorer, match, sheet_url):
    question = parsed(scorer.get(sheet_url, **EN)).select_one("#side-choice-label")
    assert words(question) == "Which side swept"
    services.change_settings(match=match, settings=rules.MatchSettings(21, "higher_total", True))
    question = parsed(scorer.get(sheet_url, **EN)).select_one("#side-choice-label")
    assert words(question) == "Which side swept or claimed"


def test_the_entry_form_offers_claims_only_where_allowed_in_the_phones_language(
    scorer, match, sheet_url
):
    def kinds(page) -> list[str]:
        return [field["value"] for field in page.select("#deal-form input[name=kind]")]

    english = parsed(scorer.get(sheet_url, **EN))
    assert kinds(english) == ["normal", "cappotto", "stramazzo"]
    services.change_settings(match=match, settings=rules.MatchSettings(21, "higher_total", True))
    assert kinds(parsed(scorer.get(sheet_url, **EN)))[-1] == "claim"
    italian = parsed(scorer.get(sheet_url, HTTP_ACCEPT_LANGUAGE="it"))
    assert words(italian.select_one("label[for=id_card_points_0]")) == "Punti carte"


def test_the_page_names_the_other_sides_card_points_as_the_rules_fill_them_in(scorer, sheet_url):
    form = parsed(scorer.get(sheet_url, **EN)).select_one("#deal-form")
    others = form["data-other-card-points"].split()
    assert others == [str(11 - typed) for typed in range(12)]
    assert others[8] == str(rules.complete_card_points(8, None)[1])


# --- Saving a deal -----------------------------------------------------------------------


def test_saving_a_deal_without_htmx_redirects_to_the_sheet_which_says_so(scorer, deal_url):
    response = scorer.post(deal_url, deal_data(), **EN)
    assert response.status_code == 302 and response["Location"].endswith("?saved=1")
    assert Deal.objects.get().points == (11, 3)
    page = parsed(scorer.get(response["Location"], **EN))
    assert words(one(page, "#saved")) == "Deal 1 saved. Undo"


def test_saving_a_deal_with_htmx_answers_the_parts_that_changed(scorer, deal_url, sheet_url):
    response = scorer.post(deal_url, deal_data(), **HX)
    page = parsed(response)
    assert "HX-Request" in response["Vary"] and not page.select("html, #sheet")
    parts = [part["id"] for part in page.find_all(attrs={"hx-swap-oob": "true"}, recursive=False)]
    # A save changes no setting; the entry comes with this phone's key for the next deal.
    assert parts == ["notices", "live", "elsewhere", "rows", "entry", "phone"]
    assert words(one(page, "#saved")) == "Deal 1 saved. Undo"
    assert scores(page) == ["11", "3"] and page.select("#deal-1")
    assert value(page, "number") == "2" and value(page, "card_points_0") == ""


def test_one_sides_card_points_fill_in_the_other(scorer, deal_url):
    scorer.post(deal_url, deal_data(b="", da="", db=""), **EN)
    assert Deal.objects.get().card_points == (8, 3)


def test_a_cappotto_is_saved_with_no_card_points_typed(scorer, deal_url):
    scorer.post(deal_url, deal_data(a="", b="", da="", db="", kind="cappotto", side="1"), **HX)
    deal = Deal.objects.get()
    assert (deal.card_points, deal.kind, deal.side) == ((0, 11), "cappotto", 1)


def test_card_points_summing_to_12_are_refused_and_what_was_typed_stays(scorer, deal_url):
    page = parsed(scorer.post(deal_url, deal_data(a="8", b="4"), **HX))
    assert words(one(page, "#deal-errors")) == (
        "Card points, the last trick included, must add up to 11: "
        "Alice & Carla 8 + Beppe & Dino 4 = 12."
    )
    assert (value(page, "card_points_0"), value(page, "card_points_1")) == ("8", "4")
    assert value(page, "typing") == "1"  # the polls leave it alone
    assert not Deal.objects.exists()


def test_a_declaration_of_5_is_refused_beside_its_field_in_its_sides_column(scorer, deal_url):
    page = parsed(scorer.post(deal_url, deal_data(da="5"), **HX))
    assert errors_of(page, "id_declared_points_0") == [
        "5 is not a declaration total any real deal can give."
    ]
    assert one(page, "#id_declared_points_0")["aria-invalid"] == "true"
    page = parsed(scorer.post(deal_url, deal_data(a="12", b="0"), **HX))
    assert errors_of(page, "id_card_points_0") == ["Card points cannot be more than 11."]
    assert not Deal.objects.exists()


def test_a_cappotto_with_10_typed_for_the_sweeper_is_said_of_that_field(scorer, deal_url):
    """Left blank, the other side's points are not 11 minus the 10 (a blank field blamed)."""
    data = deal_data(a="10", b="", da="", db="", kind="cappotto", side="0")
    page = parsed(scorer.post(deal_url, data, **HX))
    assert errors_of(page, "id_card_points_0") == [
        "In a cappotto Alice & Carla took every trick, so their card points are 11."
    ]
    assert errors_of(page, "id_card_points_1") == []
    assert not Deal.objects.exists()
    scorer.post(deal_url, {**data, "card_points_0": "11"}, **HX)
    assert Deal.objects.get().card_points == (11, 0)


def test_a_cappotto_without_its_side_asks_for_the_side(scorer, deal_url):
    page = parsed(scorer.post(deal_url, deal_data(a="", b="", da="", db="", kind="cappotto"), **HX))
    assert errors_of(page, "id_side") == ["Say which side swept the deal."]
    assert one(page, ".side-choice")["aria-describedby"] == "id_side_error"
    assert not page.select("#deal-errors") and not Deal.objects.exists()


def test_the_kind_and_side_refusals_are_tied_to_their_choices(scorer, deal_url):
    page = parsed(scorer.post(deal_url, deal_data(kind="cappotto", a="11", b="0"), **HX))
    assert one(page, ".side-choice")["aria-describedby"] == "id_side_error"
    page = parsed(scorer.post(deal_url, deal_data(kind="x"), **HX))
    assert one(page, "fieldset.kind")["aria-describedby"] == "id_kind_error"
    assert errors_of(page, "id_kind") == ["Pick the kind of deal."]


def test_a_claim_with_no_card_points_typed_asks_for_them_with_0_for_none(scorer, match, deal_url):
    match.claims_allowed = True
    match.save()
    data = deal_data(a="", b="", da="21", db="", kind="claim", side="0")
    page = parsed(scorer.post(deal_url, data, **HX))
    assert errors_of(page, "id_card_points_0") == [
        "A claim counts the card points taken so far: type them (0 for a side that took none)."
    ]
    assert not Deal.objects.exists()
    scorer.post(deal_url, {**data, "card_points_0": "0"}, **HX)
    assert Deal.objects.get().card_points == (0, 0)


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("-1", "Card points cannot be negative."),
        (
            "2.5",
            "Card points must be a whole number: each side drops its own fraction, so 2.5 is 2.",
        ),
        ("abc", "Card points must be a number, like 7."),
        ("1" * 5000 + ".5", "Card points is too large: at most 11."),  # was a 500: int() of it
    ],
)
def test_bad_numbers_get_a_message_in_words(scorer, deal_url, typed, message):
    page = parsed(scorer.post(deal_url, deal_data(a=typed), **HX))
    assert errors_of(page, "id_card_points_0") == [message]
    assert not Deal.objects.exists()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        # Another phone switched claims off while this one was showing the claim chip.
        (
            {"kind": "claim", "side": "0", "a": "4", "b": "3"},
            "Claims are not allowed in this match.",
        ),
        ({"kind": ""}, "Pick the kind of deal."),
        ({"kind": "cappotto", "side": "2", "a": "11", "b": "0"}, "Pick one of the two sides."),
        ({"a": "1" + "0" * 22}, "Card points is too large: at most 11."),
        ({"da": "3" * 5000}, "Declarations is too large: at most 999."),
    ],
)
def test_a_refused_deal_says_why_in_the_apps_own_words(scorer, match, deal_url, fields, message):
    page = parsed(scorer.post(deal_url, deal_data(**fields), **HX))
    form = words(one(page, "#deal-form"))
    assert message in form
    assert "Select a valid choice" not in form and "Ensure this value" not in form
    assert not match.deals.exists()


@pytest.mark.parametrize(
    "tampered", [{"number": ""}, {"number": "0"}, {"number": "abc"}, {"key": "k" * 65}]
)
def test_a_deal_form_tampered_with_says_so_and_stores_nothing(scorer, deal_url, tampered):
    page = parsed(scorer.post(deal_url, {**deal_data(), **tampered}, **HX))
    assert words(one(page, "#deal-errors")) == "This page is out of date: reload it and try again."
    assert not Deal.objects.exists()


def test_in_due_one_player_cannot_declare_21(client):
    match = MatchFactory(players_per_side=1)
    client.post(reverse("join", args=[match.table.scorer_token]))
    deal_url = reverse("record_deal", args=[match.table.viewer_token, match.pk])
    page = parsed(client.post(deal_url, deal_data(a="6", b="5", da="21"), **HX))
    assert errors_of(page, "id_declared_points_0") == [
        "21 is not a declaration total any real deal can give."
    ]
    assert not Deal.objects.exists()


def test_a_double_tap_makes_one_deal_and_is_told_it_was_saved(scorer, deal_url):
    scorer.post(deal_url, deal_data(key="same"), **HX)
    again = parsed(scorer.post(deal_url, deal_data(key="same"), **HX))
    assert Deal.objects.count() == 1
    assert words(one(again, "#saved")) == "Deal 1 saved. Undo"


def test_a_second_phone_saving_the_same_deal_is_told_and_shown_it(scorer, deal_url):
    scorer.post(deal_url, deal_data(key="phone-a"), **HX)
    page = parsed(scorer.post(deal_url, deal_data(a="5", b="6", key="phone-b"), **HX))
    assert Deal.objects.count() == 1
    # What this phone typed is said, with the way to put it there; it is not offered for
    # deal 2, where a second tap of Save would enter the same hand twice.
    assert words(one(page, "#conflict")) == (
        "Deal 1 was just entered on another phone. Alice & Carla 11, Beppe & Dino 3. "
        "Yours were not saved: Alice & Carla 5 + 3, Beppe & Dino 6 + 0. "
        "If they are the right ones, edit deal 1. Edit deal 1"
    )
    assert one(page, "#conflict a.button")["href"].endswith("/deals/1/edit")
    assert value(page, "number") == "2" and value(page, "card_points_0") == ""
    assert value(page, "typing") == "0"


def test_a_second_phone_that_typed_the_very_same_deal_keeps_nothing_to_save_twice(scorer, deal_url):
    scorer.post(deal_url, deal_data(key="phone-a"), **HX)
    page = parsed(scorer.post(deal_url, deal_data(key="phone-b"), **HX))  # the same points
    assert words(one(page, "#conflict")).endswith("The same points as yours: nothing more to do.")
    assert value(page, "number") == "2" and value(page, "card_points_0") == ""
    assert Deal.objects.count() == 1


def test_a_conflict_on_the_deal_that_decides_the_match_keeps_nothing_for_later(scorer, deal_url):
    scorer.post(deal_url, deal_data(number=1, key="a-1"), **HX)
    scorer.post(deal_url, deal_data(number=2, key="a-2"), **HX)  # 22 to 6: decided
    page = parsed(scorer.post(deal_url, deal_data(number=2, a="5", b="6", key="b-2"), **HX))
    assert "Yours were not saved: Alice & Carla 5 + 3" in words(one(page, "#conflict"))
    assert not page.select("#deal-form")


def test_a_resent_deal_with_other_points_is_refused_in_words(scorer, deal_url):
    scorer.post(deal_url, deal_data(key="mine"), **HX)
    page = parsed(scorer.post(deal_url, deal_data(a="2", b="9", key="mine"), **HX))
    assert words(one(page, "#conflict")) == (
        "Deal 1 was already saved from this phone, with other points. "
        "Alice & Carla 11, Beppe & Dino 3. Edit deal 1 to change it."
    )
    assert value(page, "card_points_0") == ""  # not offered again
    assert Deal.objects.get().card_points == (8, 3)


def test_a_save_into_a_match_another_phone_just_decided_says_so(scorer, match, deal_url):
    scorer.post(deal_url, deal_data(number=1, key="a"), **HX)
    scorer.post(deal_url, deal_data(number=2, key="b"), **HX)  # 22-6: decided
    page = parsed(scorer.post(deal_url, deal_data(number=3, key="c"), **HX))
    assert "The match is already decided: no more deals." in said_of(page)
    scorer.post(reverse("end_match", args=[match.table.viewer_token, match.pk]), **HX)
    page = parsed(scorer.post(deal_url, deal_data(number=3, key="d"), **HX))
    assert "This match is finished. Reopen it to change it." in said_of(page)
    assert Deal.objects.count() == 2


def said_of(page) -> str:
    return words(page)


def test_a_save_after_another_phone_deleted_a_deal_says_so_and_renumbers(
    scorer, match, deal_url, sheet_url
):
    for number in (1, 2):
        scorer.post(deal_url, deal_data(number=number, a="5", b="6", da="0"), **HX)
    services.delete_last_deal(match=match, number=2)  # on another phone
    data = deal_data(number=3, a="7", b="4", da="0", key="k3")
    page = parsed(scorer.post(deal_url, data, **HX))
    assert words(one(page, "#deal-errors")) == (
        "Another phone deleted a deal meanwhile: this one is now deal 2. "
        "Check the sheet, then save again."
    )
    assert value(page, "number") == "2" and value(page, "card_points_0") == "7"
    assert match.deals.count() == 1
    scorer.post(deal_url, {**data, "number": "2"}, **HX)  # saved again, as the form now says
    assert match.deals.count() == 2


def test_a_change_between_reading_the_match_and_saving_shows_in_the_answer(
    scorer, match, deal_url, worked, monkeypatch
):
    record = services.record_deal

    def renamed_first(**kwargs):  # another phone renames Beppe just before this save
        services.rename_player(player=Player.objects.get(name="Beppe"), name="Bepi")
        return record(**kwargs)

    monkeypatch.setattr(services, "record_deal", renamed_first)
    page = parsed(scorer.post(deal_url, deal_data(number=2, a="6", b="5", da="0"), **HX))
    assert words(one(page, "#deal-2 .dealer")) == "Bepi"  # deal 2's dealer, by the new name
    assert words(one(page, "#saved")) == "Deal 2 saved. Undo"


def test_a_match_full_of_deals_takes_no_more(scorer, match, deal_url, monkeypatch):
    monkeypatch.setattr(services, "MATCH_DEALS_MAX", 1)
    scorer.post(deal_url, deal_data(number=1, a="5", b="6", da="0"), **HX)
    page = parsed(scorer.post(deal_url, deal_data(number=2, a="5", b="6", da="0"), **HX))
    assert words(one(page, "#deal-errors")) == (
        "A match holds at most 1 deals: stop this one, undecided, and start a new match."
    )
    assert match.deals.count() == 1


# --- Counting the pile -------------------------------------------------------------------


def test_counting_the_pile_fills_in_both_sides_card_points(scorer, deal_url):
    data = deal_data(a="", b="", da="", db="", count="1", count_side="1")
    data.update(aces="1", figures="7", last_trick="")
    page = parsed(scorer.post(deal_url, data, **HX))
    assert (value(page, "card_points_0"), value(page, "card_points_1")) == ("8", "3")
    assert words(one(page, "#counted")) == (
        "Card points filled in from the count: check them, then save the deal."
    )
    assert not Deal.objects.exists()


def test_counting_five_aces_is_refused_in_words_and_no_deal_check_is_said(scorer, deal_url):
    data = deal_data(a="", b="", count="1", count_side="0", aces="5", figures="3")
    page = parsed(scorer.post(deal_url, data, **HX))
    assert errors_of(page, "id_aces") == ["A side can win from 0 to 4 aces, not 5."]
    assert not page.select("#deal-errors") and not page.select("#counted")
    assert not Deal.objects.exists()


def test_counting_without_saying_whose_pile_says_so(scorer, deal_url):
    page = parsed(scorer.post(deal_url, deal_data(a="", b="", count="1", aces="1"), **HX))
    assert errors_of(page, "id_count_side") == ["Pick whose pile you counted."]


def test_counting_a_claims_pile_fills_only_the_counted_side(client, deal_url, match):
    match.claims_allowed = True
    match.save()
    client.post(reverse("join", args=[match.table.scorer_token]))
    data = deal_data(a="", b="4", da="", db="", kind="claim", side="0", count="1")
    data.update(count_side="0", aces="2", figures="4")
    page = parsed(client.post(deal_url, data, **HX))
    assert (value(page, "card_points_0"), value(page, "card_points_1")) == ("3", "4")
    data.update(last_trick="on", count_side="1")
    page = parsed(client.post(deal_url, data, **HX))
    assert "A claim stops the deal before the last trick: nobody took it." in words(page)
    # The count shown again is the one sent: the second side's pile, the last trick ticked.
    assert (value(page, "count_side"), value(page, "last_trick")) == ("1", "on")
    assert one(page, "details.count").has_attr("open")
    assert not Deal.objects.exists()


# --- The phones' polls -------------------------------------------------------------------


def test_an_unchanged_sheet_answers_304_to_a_poll(scorer, sheet_url, worked):
    first = scorer.get(sheet_url + "?poll=1", **HX)
    assert first.status_code == 200
    again = scorer.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=first["ETag"], **HX)
    assert again.status_code == 304 and again.content == b""


def test_a_compressed_sheet_still_answers_304_to_its_weak_etag(scorer, sheet_url, worked):
    first = scorer.get(sheet_url + "?poll=1", HTTP_ACCEPT_ENCODING="gzip", **HX)
    assert first["Content-Encoding"] == "gzip" and first["ETag"].startswith('W/"')
    again = scorer.get(
        sheet_url + "?poll=1", HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=first["ETag"], **HX
    )
    assert again.status_code == 304


def test_a_new_deal_changes_the_etag_and_the_poll_shows_it(scorer, sheet_url, deal_url, worked):
    etag = scorer.get(sheet_url + "?poll=1", **HX)["ETag"]
    scorer.post(deal_url, deal_data(number=2), **HX)
    response = scorer.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=etag, **HX)
    assert response.status_code == 200 and parsed(response).select("#deal-2")


def test_a_poll_may_be_told_unchanged_for_a_second_but_an_opened_sheet_never(
    scorer, sheet_url, deal_url, worked, settings, monkeypatch
):
    settings.POLL_STALE_SECONDS = 1
    clock = [1000.0]
    monkeypatch.setattr(kept.time, "monotonic", lambda: clock[0])
    poll = sheet_url + "?poll=1&number=2&typing=0"
    etag = scorer.get(poll, **HX)["ETag"]
    other = Client()
    other.post(reverse("join", args=[Table.objects.get().scorer_token]))
    other.post(deal_url, deal_data(number=2), **HX)  # another phone saves deal 2
    clock[0] += 0.9
    assert scorer.get(poll, HTTP_IF_NONE_MATCH=etag, **HX).status_code == 304
    assert parsed(scorer.get(sheet_url, **EN)).select("#deal-2")  # the page reads afresh
    clock[0] += 0.1
    answer = scorer.get(poll, HTTP_IF_NONE_MATCH=etag, **HX)
    assert answer.status_code == 200 and parsed(answer).select("#deal-2")


def test_renaming_a_player_changes_the_sheet_every_phone_sees(scorer, sheet_url, worked):
    etag = scorer.get(sheet_url + "?poll=1", **HX)["ETag"]
    services.rename_player(player=Player.objects.get(name="Beppe"), name="Giuseppe")
    response = scorer.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=etag, **HX)
    assert words(one(parsed(response), ".next-dealer")) == "Deal 2: Giuseppe deals."


def test_a_poll_leaves_this_phones_notices_and_its_typing_alone(scorer, sheet_url, worked):
    idle = parsed(scorer.get(sheet_url + "?poll=1&number=2&typing=0", **HX))
    parts = [part["id"] for part in idle.find_all(attrs={"hx-swap-oob": "true"})]
    assert parts == ["live", "elsewhere", "rows", "entry", "phone"]
    typing = parsed(scorer.get(sheet_url + "?poll=1&number=2&typing=1", **HX))
    assert [part["id"] for part in typing.find_all(attrs={"hx-swap-oob": "true"})] == [
        "live",
        "elsewhere",
        "rows",
    ]
    stale = parsed(scorer.get(sheet_url + "?poll=1&number=1&typing=1", **HX))
    assert "Another phone has just entered a deal. Check the sheet before saving yours." in words(
        one(stale, "#elsewhere")
    )


def test_a_poll_is_told_unchanged_as_viewer_or_scorer_until_the_scorer_link_changes(
    scorer, match, sheet_url, worked
):
    viewer = Client()
    viewer_etag = viewer.get(sheet_url + "?poll=1", **HX)["ETag"]
    scorer_etag = scorer.get(sheet_url + "?poll=1", **HX)["ETag"]
    assert viewer_etag != scorer_etag
    for phone, etag in ((viewer, viewer_etag), (scorer, scorer_etag)):
        assert phone.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=etag, **HX).status_code == 304
    services.rotate_link(table=match.table, which="scorer")
    # The old scorer link no longer scores: its phone is shown the sheet as a viewer sees it.
    answer = scorer.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=scorer_etag, **HX)
    assert answer.status_code == 200 and not parsed(answer).select("#deal-form")
    assert answer["ETag"] == viewer_etag


def test_a_page_cached_before_joining_is_drawn_again_for_the_scorer(client, match, sheet_url):
    page = client.get(sheet_url, **EN)
    assert not parsed(page).select("#deal-form")
    client.post(reverse("join", args=[match.table.scorer_token]), {"label": "Dino's phone"})
    again = client.get(sheet_url, HTTP_IF_NONE_MATCH=page["ETag"], **EN)
    assert again.status_code == 200 and parsed(again).select("#deal-form")


def test_a_phone_whose_scorer_link_was_replaced_is_told_by_its_next_poll(scorer, match, worked):
    sheet_url = reverse("match", args=[match.table.viewer_token, match.pk])
    poll = sheet_url + "?poll=1&number=2&typing=1"  # even mid-typing
    told = "This table's scorer link has changed: this phone can only watch now."
    assert told not in said(scorer.get(poll, **HX))
    services.rotate_link(table=Table.objects.get(), which="scorer")
    page = parsed(scorer.get(poll, **HX))
    assert told in words(one(page, "#elsewhere"))
    assert one(page, "#entry") and not page.select("#deal-form")  # withdrawn
    assert told in said(scorer.get(sheet_url, **EN))  # and on opening the sheet
    assert "can only watch" not in said(Client().get(poll, **HX))  # a viewer is told nothing


def test_fragments_are_never_kept_by_the_browser_cache(scorer, sheet_url, worked):
    poll = scorer.get(sheet_url + "?poll=1", **HX)
    assert "no-store" in poll["Cache-Control"]
    page = scorer.get(sheet_url, **EN)
    assert "no-store" not in page["Cache-Control"] and "no-cache" in page["Cache-Control"]
    assert page["X-Robots-Tag"] == "noindex, nofollow"


def test_every_load_carries_its_own_idempotency_key_and_csrf_token(scorer, match, sheet_url):
    other = Client()
    other.post(f"/join/{match.table.scorer_token}/", {"label": "Dino"})
    pages = [phone.get(sheet_url, **EN) for phone in (scorer, other, scorer)]
    keys = {value(parsed(page), "key") for page in pages}
    assert len(keys) == 3  # a fresh idempotency key on every load
    tokens = {value(parsed(page), "csrfmiddlewaretoken") for page in pages}
    assert len(tokens) == 3  # masked afresh on every load, though parts of the page are kept


# --- Ending, stopping, reopening, rematch -------------------------------------------------


def test_the_end_match_button_appears_only_once_decided(scorer, sheet_url, deal_url):
    scorer.post(deal_url, deal_data(number=1), **EN)
    assert not parsed(scorer.get(sheet_url, **EN)).select("#end-match")
    scorer.post(deal_url, deal_data(number=2), **EN)
    page = parsed(scorer.get(sheet_url, **EN))
    assert words(one(page, "#end-match")) == "End match" and not page.select("#deal-form")
    assert words(one(page, "#entry")).startswith("The match is decided: no more deals.")
    assert not page.select("#stop-match")  # a decided match is ended, not stopped


def test_end_match_banks_the_winner_then_rematch_comes_first(scorer, match, sheet_url, deal_url):
    scorer.post(deal_url, deal_data(number=1), **EN)
    scorer.post(deal_url, deal_data(number=2), **EN)
    response = scorer.post(sheet_url + "end", **EN)
    assert response["Location"] == sheet_url + "?ended=1"
    page = parsed(scorer.get(response["Location"], **EN))
    result = one(page, ".result")
    assert words(result.select_one(".big")) == "Alice & Carla won the match (reached the line)."
    # Ended, the next step is most often a rematch: it comes first, as the main button.
    buttons = [(words(b), b.get("class")) for b in result.select("button")]
    assert buttons == [("Rematch", ["primary"]), ("Reopen", None)]
    assert not page.select("#settings details")
    assert scorer.post(sheet_url + "rematch", **EN).status_code == 302
    scorer.post(sheet_url + "reopen", **EN)
    match.refresh_from_db()
    assert match.status == "in_progress"


def test_an_undecided_match_can_be_stopped_and_reopen_comes_first(scorer, match, worked):
    sheet_url = reverse("match", args=[match.table.viewer_token, match.pk])
    assert parsed(scorer.get(sheet_url, **EN)).select("#stop-match")
    page = parsed(scorer.post(sheet_url + "stop", **HX))
    result = one(page, ".result")
    assert words(result.select_one(".big")) == "Stopped at 11–3, undecided."
    # Stopped, it is most often played on another day: Reopen comes first.
    assert [words(b) for b in result.select("button")] == ["Reopen", "Rematch"]
    assert not page.select("#deal-form")
    history = said(scorer.get(sheet_url + "history", **EN))
    assert "Match stopped, undecided" in history and "11–3" in history


def test_phones_on_an_ended_sheet_learn_of_a_rematch_and_of_a_reopen(
    scorer, match, sheet_url, deal_url
):
    """Phones left on an ended sheet see the rematch another phone began (and begin no
    second one), and a reopen brings the entry form and the settings back."""
    scorer.post(deal_url, deal_data(number=1), **EN)
    scorer.post(deal_url, deal_data(number=2), **EN)
    scorer.post(sheet_url + "end", **EN)
    viewer = Client()
    page = parsed(viewer.get(sheet_url, **EN))
    assert one(page, "#live")["hx-get"].endswith("?poll=1&closed=1")
    assert not page.select("#open-rematch")
    etag = viewer.get(sheet_url + "?poll=1&closed=1", **HX)["ETag"]
    again = scorer.post(sheet_url + "rematch", **EN)["Location"]
    poll = viewer.get(sheet_url + "?poll=1&closed=1", HTTP_IF_NONE_MATCH=etag, **HX)
    assert one(parsed(poll), "#open-rematch")["href"] == again  # for a viewer too
    page = parsed(scorer.get(sheet_url, **EN))
    assert page.select("#open-rematch") and words(one(page, ".result .actions")) == "Reopen"
    assert scorer.post(sheet_url + "rematch", **EN)["Location"] == again  # the same one
    scorer.post(sheet_url + "reopen", **EN)
    other = Client()
    other.post(reverse("join", args=[match.table.scorer_token]))
    reopened = parsed(other.get(sheet_url + "?poll=1&closed=1&typing=1", **HX))
    assert "The match is decided: no more deals." in words(one(reopened, "#entry"))
    assert reopened.select("#settings details") and not reopened.select(".result")


def test_saved_settings_and_a_reopen_are_said_where_focus_can_go(scorer, match, sheet_url):
    page = parsed(
        scorer.post(sheet_url + "settings", {"line": "31", "tie_rule": "higher_total"}, **HX)
    )
    saved = one(page, "#settings-saved")
    assert words(saved) == "Settings saved." and saved["tabindex"] == "-1"
    assert words(one(page, "#live .meta")).startswith("Line 31 ·")
    services.stop_match(match=match)
    page = parsed(scorer.post(sheet_url + "reopen", **HX))
    assert words(one(page, "#reopened")) == "Match reopened: play on from here."


# --- Deleting, Undo, restoring -------------------------------------------------------------


def test_delete_deal_deletes_and_the_log_keeps_it(scorer, sheet_url, worked):
    response = scorer.post(sheet_url + "deals/1/delete", **EN)
    assert response["Location"] == sheet_url + "?deleted=1"
    assert not Deal.objects.exists()
    assert Change.objects.get(action="deal_deleted").old["points"] == [11, 3]
    page = parsed(scorer.get(response["Location"], **EN))
    deleted = one(page, "#deleted")
    assert words(deleted) == "Deal 1 deleted. The match history keeps it. Restore"
    assert deleted["data-once"] == "deleted"
    assert action(page, deleted.select_one("button")) == sheet_url + "deals/1/restore"
    assert value(page, "card_points_0") == ""  # no points given back, unlike Undo


def test_undo_puts_the_deal_just_saved_back_in_the_form_to_correct(scorer, sheet_url, deal_url):
    saved = parsed(scorer.post(deal_url, deal_data(a="8", da="3", key="phone-a"), **HX))
    revision = Match.objects.get().revision
    assert value(one(saved, "#saved"), "undo") == str(revision)  # the sheet it was shown with
    page = parsed(scorer.post(sheet_url + "deals/1/delete", {"undo": str(revision)}, **HX))
    assert not Deal.objects.exists()
    assert words(one(page, "#deleted")) == (
        "Deal 1 taken back: its points are in the form, to correct and save again."
    )
    typed = [value(page, f) for f in ("card_points_0", "card_points_1", "declared_points_0")]
    assert typed == ["8", "3", "3"] and value(page, "typing") == "1"
    assert value(page, "key") != "phone-a"  # a new deal: its key is not the old one's
    scorer.post(deal_url, deal_data(a="7", b="4", key=value(page, "key")), **HX)
    assert Deal.objects.get().card_points_0 == 7


def test_undo_never_takes_back_a_deal_another_phone_entered_under_the_same_number(
    scorer, sheet_url, deal_url, match
):
    scorer.post(deal_url, deal_data(a="8", da="3", key="phone-a"), **HX)
    shown = Match.objects.get().revision
    # Another phone deletes that deal 1 and enters its own deal 1, before this one's Undo.
    services.delete_last_deal(match=match, number=1)
    services.record_deal(match=match, number=1, entry=rules.DealEntry((5, 6), (0, 0)))
    page = parsed(scorer.post(sheet_url + "deals/1/delete", {"undo": str(shown)}, **HX))
    assert words(one(page, ".notice.error")) == (
        "The sheet has changed since deal 1 was saved: check it before undoing."
    )
    assert Deal.objects.get().card_points_0 == 5
    for garbled in ("", "²", "9" * 30):
        scorer.post(sheet_url + "deals/1/delete", {"undo": garbled}, **HX)
        assert Deal.objects.count() == 1


def test_a_deleted_deal_can_be_restored_and_is_then_said_as_saved(scorer, sheet_url, worked):
    page = parsed(scorer.post(sheet_url + "deals/1/delete", **HX))
    assert one(page, "#deleted button")["hx-post"] == sheet_url + "deals/1/restore"
    page = parsed(scorer.post(sheet_url + "deals/1/restore", **HX))
    assert words(one(page, "#saved")) == "Deal 1 restored. Undo"
    assert one(page, "#saved button")["hx-post"] == sheet_url + "deals/1/delete"
    assert Deal.objects.get().points == (11, 3)
    assert Change.objects.latest("id").action == "deal_restored"
    response = scorer.post(sheet_url + "deals/1/delete", **EN)
    response = scorer.post(sheet_url + "deals/1/restore", **EN)
    assert response["Location"] == sheet_url + "?restored=1"
    restored = one(parsed(scorer.get(response["Location"], **EN)), "#saved")
    assert words(restored) == "Deal 1 restored. Undo" and restored["data-once"] == "restored"


def test_a_deletion_is_said_only_to_a_scorer_and_only_while_it_can_be_restored(
    scorer, sheet_url, worked
):
    scorer.post(sheet_url + "deals/1/delete", **EN)
    assert not parsed(Client().get(sheet_url + "?deleted=1", **EN)).select("#deleted")
    assert not parsed(scorer.get(sheet_url + "?deleted=3", **EN)).select("#deleted")
    assert not parsed(scorer.get(sheet_url + "?deleted=2", **EN)).select("#deleted")  # none was


@pytest.mark.parametrize("saved", ["²", "1" * 5000, "-1", "1.0"])
def test_an_odd_saved_parameter_is_ignored(scorer, sheet_url, worked, saved):
    response = scorer.get(sheet_url, {"saved": saved}, **EN)
    assert response.status_code == 200 and not parsed(response).select("#saved")


def test_the_other_phones_are_told_of_a_deleted_deal_and_may_restore_it(
    scorer, match, sheet_url, deal_url
):
    other = Client()
    other.post(f"/join/{match.table.scorer_token}/", {"label": "Dino"})
    for number in (1, 2):
        scorer.post(deal_url, deal_data(number=number, a="5", b="6", da="0"), **HX)
    scorer.post(sheet_url + "deals/2/delete", **HX)
    restore = reverse("restore_deal", args=[match.table.viewer_token, match.pk, 2])

    def told(phone, query: str) -> bool:
        page = parsed(phone.get(f"{sheet_url}?poll=1&{query}", **HX))
        notice = page.select_one("#deleted-elsewhere")
        if notice is None:
            return False
        assert (
            words(notice)
            == "Deal 2 was deleted on another phone. The match history keeps it. Restore"
        )
        button = notice.select_one("button")  # posting through the page's actions form
        assert button["formaction"] == restore and button["form"] == "actions"
        assert "Another phone has just entered a deal" not in words(page)
        return True

    # The other phone's form still shows deal 3; it may be typing in it, or not.
    assert told(other, "number=3&typing=0") and told(other, "number=3&typing=1")
    assert told(other, "number=2&typing=0")  # told until something else happens
    assert not told(scorer, "number=2&typing=0")  # it has its own notice
    assert not told(Client(), "number=2")  # a viewer has nothing to restore
    other.post(sheet_url + "deals/2/restore", **HX)
    assert match.deals.count() == 2 and not told(other, "number=3&typing=0")
    # Now the other phone deletes deal 2: the first is told, though it deleted a deal 2 once.
    other.post(sheet_url + "deals/2/delete", **HX)
    assert told(scorer, "number=3&typing=0") and not told(other, "number=2&typing=0")


# --- Editing a deal ----------------------------------------------------------------------


def edit_url(match: Match, number: int = 1) -> str:
    return reverse("edit_deal", args=[match.table.viewer_token, match.pk, number])


def test_editing_a_deal_logs_old_and_new_values(scorer, match, worked):
    page = parsed(scorer.get(edit_url(match), **EN))
    assert words(one(page, "h1")) == "Edit deal 1" and value(page, "card_points_0") == "8"
    response = scorer.post(edit_url(match), deal_data(a="6", b="5", da="4", version="1"), **EN)
    assert response["Location"].endswith("/?edited=1")
    assert Deal.objects.get().points == (10, 5)
    change = Change.objects.get(action="deal_edited")
    assert (change.old["points"], change.new["points"]) == ([11, 3], [10, 5])
    page = parsed(scorer.get(response["Location"], **EN))
    assert words(one(page, "#edited")) == "Deal 1 edited."
    assert words(one(page, "#deal-1 td.side-0")) == "10 6 + 4"


def test_an_edit_that_crossed_another_phones_is_said_and_saving_again_replaces_it(
    scorer, match, worked
):
    services.edit_deal(deal=worked, version=1, entry=rules.DealEntry((8, 3), (7, 0)))  # first
    mine = deal_data(a="6", b="5", da="4", version="1")
    page = parsed(scorer.post(edit_url(match), mine, **EN))
    assert words(one(page, "#deal-errors")) == (
        "Deal 1 was changed on another phone meanwhile: it now gives Alice & Carla 15, "
        "Beppe & Dino 3. What you typed is kept below: save again to replace that change."
    )
    assert value(page, "version") == "2" and value(page, "card_points_0") == "6"
    assert Deal.objects.get().points == (15, 3)
    assert scorer.post(edit_url(match), {**mine, "version": "2"}, **EN).status_code == 302
    assert Deal.objects.get().points == (10, 5)


def test_an_edit_of_a_deal_deleted_and_entered_anew_meanwhile_replaces_nothing_unseen(
    scorer, match, worked
):
    assert value(parsed(scorer.get(edit_url(match))), "deal") == str(worked.pk)
    services.delete_last_deal(match=match, number=1)
    anew = services.record_deal(match=match, number=1, entry=rules.DealEntry((5, 6), (0, 0))).deal
    mine = deal_data(a="6", b="5", version="1", deal=str(worked.pk))  # version 1 too
    page = parsed(scorer.post(edit_url(match), mine, **EN))
    assert words(one(page, "#deal-errors")).startswith(
        "Deal 1 was changed on another phone meanwhile: it now gives"
    )
    assert Deal.objects.get().points == (5, 6)
    assert value(page, "deal") == str(anew.pk)  # saving again replaces it, knowingly
    assert scorer.post(edit_url(match), {**mine, "deal": str(anew.pk)}, **EN).status_code == 302
    assert Deal.objects.get().points == (9, 5)  # 6 + 3 declared, as typed


def test_an_edit_of_a_deal_deleted_meanwhile_says_so_with_restore(scorer, match, sheet_url, worked):
    scorer.get(edit_url(match))
    services.delete_last_deal(match=match, number=1)
    response = scorer.post(edit_url(match), deal_data(a="6", b="5", version="1"), **EN)
    assert response["Location"].endswith("/?gone=1")
    page = parsed(scorer.get(response["Location"], **EN))
    gone = one(page, "#gone")
    assert words(gone) == (
        "Deal 1 was deleted on another phone, so your change was not saved. "
        "The match history keeps it. Restore"
    )
    assert action(page, gone.select_one("button")) == sheet_url + "deals/1/restore"
    assert scorer.get(edit_url(match))["Location"].endswith("/?gone=1")  # the page, opened late
    # Once it cannot be put back (say, a crafted address), the notice offers nothing.
    gone = one(parsed(scorer.get(sheet_url + "?gone=7", **EN)), "#gone")
    assert words(gone) == "There is no deal 7 on the sheet now: another phone may have deleted it."


@pytest.mark.parametrize(
    ("close", "message"),
    [
        (services.end_match, "This match is finished. Reopen it to change it."),
        (services.stop_match, "This match was stopped. Reopen it to change it."),
    ],
)
def test_the_edit_page_of_a_closed_match_says_so_before_anything_is_typed(
    scorer, match, worked, close, message
):
    assert "Reopen it" not in said(scorer.get(edit_url(match), **EN))
    if close is services.end_match:
        services.record_deal(match=match, number=2, entry=worked.entry)
    close(match=match)
    page = parsed(scorer.get(edit_url(match), **EN))
    assert words(one(page, ".notice.warn")) == message
    # Nothing can be saved: the deal is shown, not offered for typing; the sheet has Reopen.
    assert one(page, "fieldset.bare").has_attr("disabled")
    assert not page.select("#deal-form button[type=submit]")
    assert words(one(page, "a.button.primary")) == "Back to the sheet"


def test_an_edit_refused_because_of_a_later_deal_names_that_deal(client):
    match = MatchFactory(players_per_side=1)
    store_as_before(match, rules.DealEntry((6, 5), (0, 0)), rules.DealEntry((6, 5), (21, 0)))
    client.post(reverse("join", args=[match.table.scorer_token]))
    data = deal_data(a="7", b="4", da="0", version=1)
    page = parsed(client.post(edit_url(match), data, **EN))
    assert words(one(page, "#deal-errors")) == (
        "Deal 2: Alice: 21 is not a declaration total any real deal can give."
    )
    assert Deal.objects.get(match=match, number=1).card_points == (6, 5)


def test_an_edit_that_would_end_the_match_early_says_what_to_do(scorer, match):
    for number in (1, 2):  # 11 + 11: decided at deal 2; deal 3 played as the line was 41
        services.record_deal(match=match, number=number, entry=rules.DealEntry((6, 5), (0, 0)))
    data = deal_data(version="1", a="11", b="0", da="0", kind="cappotto", side="0")
    page = parsed(scorer.post(edit_url(match), data, **EN))
    assert words(one(page, "#deal-errors")) == (
        "With this change the match is decided at deal 1, and deals after it are on the sheet: "
        "delete them first."
    )


def store_as_before(match, *entries):
    """Deals stored as an earlier version's rules allowed, which today's refuse."""
    for number, entry in enumerate(entries, start=1):
        points = tuple(entry.card_points[i] + entry.declared_points[i] for i in (0, 1))
        deal = Deal(match=match, number=number)
        deal.set_scored(rules.ScoredDeal(number, entry, points, points, 0))
        deal.save()


@pytest.mark.parametrize(
    ("players", "claims", "entries"),
    [
        # In due, one hand declaring 21 (two hands can; one cannot).
        (1, False, [rules.DealEntry((6, 5), (21, 0))]),
        # A claim of a played-out deal: 11 card points.
        (2, True, [rules.DealEntry((8, 3), (3, 0)), rules.DealEntry((6, 5), (0, 0), "claim", 0)]),
        # A claim once both sides stood at the line.
        (2, True, [rules.DealEntry((6, 5), (0, 0)), rules.DealEntry((5, 6), (0, 0)),
                   rules.DealEntry((6, 5), (6, 7)), rules.DealEntry((0, 0), (0, 0), "claim", 1)]),
    ],
)  # fmt: skip
def test_deals_stored_under_earlier_rules_still_open_and_export(client, players, claims, entries):
    line = 21 if claims else 101  # in due, 27 to 5 is no win yet at 101
    match = MatchFactory(players_per_side=players, claims_allowed=claims, line=line)
    store_as_before(match, *entries)
    client.post(reverse("join", args=[match.table.scorer_token]))
    token = match.table.viewer_token
    page = parsed(client.get(reverse("match", args=[token, match.pk]), **EN))
    assert len(page.select("#deal-rows tr")) == len(entries)
    for fmt in ("csv", "json"):
        body = b"".join(client.get(reverse("export_table", args=[token, fmt])).streaming_content)
        assert body.count(b'"number"' if fmt == "json" else b"\r\n") >= len(entries)
    # A new deal is checked against where the old ones, as they stand, left the match.
    deal_url = reverse("record_deal", args=[token, match.pk])
    page = parsed(client.post(deal_url, deal_data(len(entries) + 1, a="6", b="5", da="0"), **HX))
    stored = Deal.objects.filter(match=match).count()
    if claims:  # a claim ended it: decided
        assert "The match is already decided: no more deals." in words(page)
        assert stored == len(entries)
    else:
        assert stored == len(entries) + 1


# --- The history of changes ----------------------------------------------------------------


def test_the_history_loads_when_opened_and_has_its_own_page(scorer, sheet_url, worked):
    page = parsed(scorer.get(sheet_url, **EN))
    assert one(page, "#history")["hx-get"] == sheet_url + "history"
    assert "Deal 1 recorded" not in words(page)  # not drawn until someone opens it
    fragment = parsed(scorer.get(sheet_url + "history", **HX))
    assert fragment.find().name == "ol"
    assert "Deal 1 recorded" in words(fragment)
    assert words(one(parsed(scorer.get(sheet_url + "history", **EN)), "h1")) == "History of changes"


# --- Every action, with and without HTMX -------------------------------------------------


def decided(match) -> None:
    for number in (1, 2):
        services.record_deal(match=match, number=number, entry=rules.DealEntry((8, 3), (3, 0)))


def finished(match) -> None:
    decided(match)
    services.end_match(match=match)


ACTIONS = {
    # name: (url name, extra url args, set-up, POST data, what an HTMX answer is)
    "record": ("record_deal", [], None, deal_data(), "parts"),
    "delete": ("delete_deal", [2], decided, {}, "parts"),
    "end": ("end_match", [], decided, {}, "parts"),
    "reopen": ("reopen_match", [], finished, {}, "parts"),
    "settings": ("change_settings", [], None, {"line": "31", "tie_rule": "another_deal"}, "parts"),
    "rematch": ("rematch", [], finished, {}, "redirect"),
    "edit": ("edit_deal", [1], decided, deal_data(version="1"), "redirect"),
}


@pytest.mark.parametrize("name", ACTIONS)
@pytest.mark.parametrize("htmx", [False, True])
def test_each_action_answers_a_redirect_without_htmx_and_one_answer_with_it(
    scorer, match, name, htmx
):
    url_name, args, setup, data, answer = ACTIONS[name]
    if setup:
        setup(match)
    url = reverse(url_name, args=[match.table.viewer_token, match.pk, *args])
    response = scorer.post(url, data, **(HX if htmx else EN))
    sheets = f"/t/{match.table.viewer_token}/m/"
    if not htmx:
        assert response.status_code == 302 and response["Location"].startswith(sheets)
    elif answer == "parts":
        page = parsed(response)
        parts = [part["id"] for part in page.find_all(attrs={"hx-swap-oob": "true"})]
        assert parts == ["notices", "live", "elsewhere", "rows", "entry", "phone"] + (
            [] if name == "record" else ["settings"]
        )
    else:
        assert response["HX-Redirect"].startswith(sheets)


@pytest.mark.parametrize(
    ("url_name", "shown", "gone"),
    [
        ("end_match", "Alice & Carla won the match (reached the line).", "End match"),
        ("stop_match", "Stopped at 0–0, undecided.", "Save deal"),
    ],
)
def test_without_javascript_the_sheet_after_an_action_shows_it(
    scorer, match, url_name, shown, gone
):
    if url_name == "end_match":
        decided(match)
    location = scorer.post(reverse(url_name, args=[match.table.viewer_token, match.pk]))["Location"]
    page = said(scorer.get(location, **EN))
    assert shown in page and gone not in page


def test_a_refused_action_is_explained_on_the_sheet(scorer, sheet_url):
    page = parsed(scorer.post(sheet_url + "end", **HX))
    assert words(one(page, ".notice.error")) == (
        "The match is not decided yet: no side has reached the line."
    )


def test_a_refusal_by_the_rules_is_explained_in_the_phones_language(scorer, match, sheet_url):
    services.change_settings(match=match, settings=rules.MatchSettings(21, "higher_total", True))
    claim = rules.DealEntry((3, 0), (0, 0), kind=rules.DealKind.CLAIM, side=1)
    services.record_deal(match=match, number=1, entry=claim)
    data = {"line": "21", "tie_rule": "higher_total"}  # claims no longer allowed
    page = parsed(scorer.post(sheet_url + "settings", data, **{**HX, "HTTP_ACCEPT_LANGUAGE": "it"}))
    assert words(one(page, ".notice.error")) == (
        "Smazzata 1: In questa partita non ci si può chiamare fuori."
    )
    match.refresh_from_db()
    assert match.claims_allowed
    # The refusal names the deal that stands in the way: the sheet may not show it.
    page = parsed(scorer.post(sheet_url + "settings", data, **HX))
    assert words(one(page, ".notice.error")) == "Deal 1: Claims are not allowed in this match."
    # The settings come back open, as sent (claims unticked), to be mended or left.
    assert one(page, "#settings details").has_attr("open")
    assert value(page, "claims_allowed") == ""


def test_settings_sent_empty_say_what_is_missing(scorer, sheet_url):
    page = parsed(scorer.post(sheet_url + "settings", {}, **HX))
    assert errors_of(page, "id_line") == ["Type the line: the total that wins, like 21."]
    assert errors_of(page, "id_tie_rule") == [
        "Pick what happens when both sides pass the line together."
    ]


def test_a_wrong_line_is_said_in_the_settings_which_keep_what_was_typed(scorer, match, sheet_url):
    data = {"line": "5", "tie_rule": "another_deal", "claims_allowed": "on"}
    page = parsed(scorer.post(sheet_url + "settings", data, **HX))
    settings = one(page, "#settings details")
    assert settings.has_attr("open")
    assert errors_of(settings, "id_line") == ["The line must be from 11 to 101, not 5."]
    typed = [value(settings, name) for name in ("line", "tie_rule", "claims_allowed")]
    assert typed == ["5", "another_deal", "on"]
    assert not page.select(".notice.error")  # said once, where it is mended
    match.refresh_from_db()
    assert (match.line, match.tie_rule, match.claims_allowed) == (21, "higher_total", False)


@pytest.mark.parametrize("line", ["", "x", "3.5", "1" * 50])
def test_a_line_that_is_no_whole_number_is_said_in_words(scorer, sheet_url, line):
    page = parsed(
        scorer.post(sheet_url + "settings", {"line": line, "tie_rule": "higher_total"}, **HX)
    )
    assert errors_of(page, "id_line")[0].startswith(("The line must be", "Type the line"))
