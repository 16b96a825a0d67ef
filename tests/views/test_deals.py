"""A match's deals (matches/views/deals.py): saving one, counting the pile, deleting, Undo,
restoring and editing."""

import pytest
from django.test import Client
from django.urls import reverse

from matches import rules, services
from matches.models import Change, Deal, Match, Player, outcome_fields
from tests.factories import MatchFactory
from tests.html import action, errors_of, one, parsed, said, value, words
from tests.views.conftest import deal_data, scores

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HX = {"HTTP_HX_REQUEST": "true", **EN}


# --- Saving a deal -----------------------------------------------------------------------


def test_saving_a_deal_without_htmx_redirects_to_the_sheet_which_says_so(scorer, deal_url):
    response = scorer.post(deal_url, deal_data(), **EN)
    # The address says the deal was saved, and the revision it left (Undo while it stands).
    assert response.status_code == 302 and response["Location"].endswith("?saved=1&at=2")
    assert Deal.objects.get().points == (11, 3)
    page = parsed(scorer.get(response["Location"], **EN))
    assert words(one(page, "#saved")) == "Deal 1 saved. Undo"


def test_saving_a_deal_with_htmx_answers_the_parts_that_changed(scorer, deal_url, sheet_url):
    # A redirect to the sheet, which says so; HTMX follows it and swaps the parts drawn.
    response = scorer.post(deal_url, deal_data(), follow=True, **HX)
    assert response.redirect_chain == [(sheet_url + "?saved=1&at=2", 302)]
    page = parsed(response)
    assert "HX-Request" in response["Vary"] and not page.select("html, #sheet")
    parts = [part["id"] for part in page.find_all(attrs={"hx-swap-oob": "true"}, recursive=False)]
    # A save changes no setting; the entry comes with this phone's key for the next deal.
    assert parts == ["notices", "live", "elsewhere", "rows", "chart", "entry"]
    assert words(one(page, "#saved")) == "Deal 1 saved. Undo"
    assert scores(page) == ["11", "3"] and page.select("#deal-1")
    assert value(page, "number") == "2" and value(page, "card_points_0") == ""


def test_a_deal_saved_from_a_blank_form_is_answered_with_what_the_next_deal_changes(
    scorer, match, deal_url, worked
):
    shown = Match.objects.get().revision
    data = deal_data(2, a="6", b="5", da="0", shown=shown, drawn_blank="1")
    response = scorer.post(deal_url, data, follow=True, **HX)
    # The sheet, drawn as a poll draws it for a phone one deal behind.
    said = f"?saved=2&at={shown + 1}&shown={shown}&number=2&typing=0"
    assert response.redirect_chain == [(deal_url.removesuffix("deals") + said, 302)]
    page = parsed(response)
    parts = [part["id"] for part in page.find_all(attrs={"hx-swap-oob": "true"}, recursive=False)]
    # The fields stay on the phone, emptied by sheet.js; the form's number, its totals,
    # Delete and the key are the next deal's.
    assert parts == ["notices", "live", "elsewhere", "chart", "entry-next", "delete-last",
                     "deal-key"]  # fmt: skip
    assert response["HX-Trigger-After-Swap"] == "deal:next"
    assert not page.select("#deal-form, [name=card_points_0]")
    assert words(one(page, "#saved")) == "Deal 2 saved. Undo"
    added = page.find("tbody", attrs={"hx-swap-oob": "beforeend:#deal-rows"})
    # (Inside a <template>, read cell by cell: BeautifulSoup's get_text leaves template text out.)
    assert [str(cell.strong.string) for cell in added.select("td.side-0, td.side-1")] == ["6", "5"]
    assert str(one(added, "td.run").string) == "17–8" and added.select("a[href$='/2/edit']")
    tally = one(page, "#tally")
    assert [words(total) for total in tally.select("b")] == ["17", "8"]
    assert words(tally) == "Alice & Carla 17 – Beppe & Dino 8"
    assert value(page, "number") == "3" and value(page, "shown") == str(shown + 1)
    assert words(one(page, "#delete-last")) == "Delete deal 2"
    assert value(page, "key") and value(page, "key") != "key-2"


def test_the_first_deal_saved_from_a_blank_form_draws_the_deals_and_moves_the_form_on(
    scorer, match, deal_url
):
    shown = Match.objects.get().revision
    data = deal_data(1, shown=shown, drawn_blank="1")
    response = scorer.post(deal_url, data, follow=True, **HX)
    page = parsed(response)
    parts = [part["id"] for part in page.find_all(attrs={"hx-swap-oob": "true"}, recursive=False)]
    # No table to add a row to yet: the deals are drawn whole, the form stays and moves on.
    assert parts == ["notices", "live", "elsewhere", "rows", "chart", "entry-next", "delete-last",
                     "deal-key"]  # fmt: skip
    assert response["HX-Trigger-After-Swap"] == "deal:next"
    assert page.select("#deal-1") and value(page, "number") == "2"


def test_a_save_sent_again_draws_the_whole_sheet_whatever_its_form_showed(
    scorer, match, deal_url, worked
):
    """Its form may be older than the sheet the phone shows (a poll drew the deals while it
    was typed): the deal's row is not added a second time, the form is drawn afresh."""
    shown = Match.objects.get().revision
    data = deal_data(2, a="6", b="5", da="0", shown=shown, drawn_blank="1", key="tap")
    scorer.post(deal_url, data, **HX)
    again = scorer.post(deal_url, data, **HX)
    assert again["Location"].endswith("?saved=2")  # no revision: not the save that made it
    page = parsed(scorer.get(again["Location"], **HX))
    parts = [part["id"] for part in page.find_all(attrs={"hx-swap-oob": "true"}, recursive=False)]
    assert parts == ["notices", "live", "elsewhere", "rows", "chart", "entry"]
    assert words(one(page, "#saved")) == "Deal 2 saved. Undo"


def test_undo_is_offered_only_while_the_sheet_is_as_the_save_left_it(
    scorer, match, deal_url, sheet_url
):
    """Between the save and the sheet its phone is sent to, another phone deleted that deal
    and entered its own deal 1: this phone is told its deal was saved, with no Undo that
    would take back the other phone's."""
    saved = scorer.post(deal_url, deal_data(key="mine"), **HX)
    services.delete_last_deal(match=match, number=1)
    services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((5, 6), (0, 0)))
    page = parsed(scorer.get(saved["Location"], **HX))
    assert words(one(page, "#saved")) == "Deal 1 saved."
    assert not page.select("#saved button")


def test_a_save_that_decides_the_match_draws_the_whole_entry_even_from_a_blank_form(
    scorer, match, deal_url
):
    scorer.post(deal_url, deal_data(1), **HX)
    response = scorer.post(deal_url, deal_data(2, drawn_blank="1"), follow=True, **HX)  # 22-6
    page = parsed(response)
    assert "HX-Trigger-After-Swap" not in response
    said = "The match is decided: no more deals. Tap End match to bank it. Delete deal 2"
    assert words(one(page, "#entry")) == said
    assert not page.select("#entry-next")


def test_one_sides_card_points_fill_in_the_other(scorer, deal_url):
    scorer.post(deal_url, deal_data(b="", da="", db=""), **EN)
    assert Deal.objects.get().card_points == (8, 3)


def test_a_cappotto_is_saved_with_no_card_points_typed(scorer, deal_url):
    scorer.post(deal_url, deal_data(a="", b="", da="", db="", kind="cappotto", side="1"), **HX)
    deal = Deal.objects.get()
    assert (deal.card_points, deal.kind, deal.side) == ((0, 11), "cappotto", 1)


def test_a_deal_tapped_on_one_sides_pad_is_saved_with_the_other_side_filled_in(scorer, deal_url):
    """Without scripts too: a key of the pad is a radio of a real form, no keyboard opens."""
    scorer.post(deal_url, deal_data(a="", b="", da="", card_pad_1="4"), **EN)
    assert Deal.objects.get().card_points == (7, 4)


def test_what_is_typed_counts_before_a_key_left_tapped(scorer, deal_url):
    scorer.post(deal_url, deal_data(a="6", b="", da="", card_pad_0="8"), **EN)
    assert Deal.objects.get().card_points == (6, 5)


def test_a_key_no_pad_has_is_refused_in_words_and_nothing_is_saved(scorer, deal_url):
    page = parsed(scorer.post(deal_url, deal_data(a="", b="", card_pad_0="12"), **HX))
    assert errors_of(page, "id_card_pad_0") == ["Tap one of the numbers shown."]
    assert not Deal.objects.exists()


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


def test_a_bad_number_is_said_in_the_phones_language_naming_the_field_in_it(scorer, deal_url):
    italian = {"HTTP_HX_REQUEST": "true", "HTTP_ACCEPT_LANGUAGE": "it"}
    page = parsed(scorer.post(deal_url, deal_data(a="abc"), **italian))
    assert errors_of(page, "id_card_points_0") == ["Punti carte: serve un numero, ad es. 7."]
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
    again = parsed(scorer.post(deal_url, deal_data(key="same"), follow=True, **HX))
    assert Deal.objects.count() == 1
    assert words(one(again, "#saved")) == "Deal 1 saved. Undo"


def test_a_save_sent_again_is_told_it_was_saved_whatever_came_after(scorer, match, deal_url):
    scorer.post(deal_url, deal_data(key="first"), **HX)  # its answer lost on the way back
    services.record_deal(match_id=match.pk, number=2, entry=rules.DealEntry((5, 6), (0, 0)))
    again = parsed(scorer.post(deal_url, deal_data(key="first"), follow=True, **HX))
    assert words(one(again, "#saved")) == "Deal 1 saved."  # no Undo: deal 2 came after it
    assert Deal.objects.count() == 2


@pytest.mark.parametrize("htmx", [True, False])
def test_a_save_sent_again_after_its_deal_was_deleted_says_so_with_restore(
    scorer, match, sheet_url, deal_url, htmx
):
    scorer.post(deal_url, deal_data(key="first"), **HX)
    services.delete_last_deal(match=match, number=1)  # on another phone
    answer = scorer.post(deal_url, deal_data(key="first"), **(HX if htmx else EN))
    assert answer["Location"] == sheet_url + "?deleted_since=1"
    page = parsed(scorer.get(answer["Location"], **(HX if htmx else EN)))
    told = one(page, "#deleted-since")
    assert words(told) == (
        "Deal 1 was saved, then deleted on another phone: it is not saved again. "
        "The match history keeps it. Restore"
    )
    assert told.select_one("button")["formaction"] == sheet_url + "deals/1/restore"
    assert not Deal.objects.exists() and not page.select("#saved")


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
    assert value(page, "number") == "2" and value(page, "card_points_0") == ""
    assert value(page, "typing") == "0"
    # Its way to put them there: deal 1's edit form, holding what this phone typed.
    edit = parsed(scorer.get(one(page, "#conflict a.button")["href"], **EN))
    assert words(one(edit, "h1")) == "Edit deal 1"
    assert [value(edit, f"{field}_{side}") for field in ("card_pad", "declared_points")
            for side in (0, 1)] == ["5", "6", "3", "0"]  # fmt: skip
    assert words(one(edit, "[role=status]")) == (
        "What you typed is filled in: save to replace what the deal holds now."
    )
    assert Deal.objects.get().points == (11, 3)  # nothing saved by opening it


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


def test_the_sheet_a_save_leads_to_shows_what_another_phone_changed_meanwhile(
    scorer, match, deal_url, worked, monkeypatch
):
    record = services.record_deal

    def renamed_first(**kwargs):  # another phone renames Beppe just before this save
        services.rename_player(player=Player.objects.get(name="Beppe"), name="Bepi")
        return record(**kwargs)

    monkeypatch.setattr(services, "record_deal", renamed_first)
    data = deal_data(number=2, a="6", b="5", da="0")
    page = parsed(scorer.post(deal_url, data, follow=True, **HX))
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


def test_a_pile_counted_and_saved_without_filling_in_is_saved_as_counted(scorer, deal_url):
    """Save tapped with the count typed and no card points: the count's, not a refusal."""
    data = deal_data(a="", b="", da="", db="", count_side="1", aces="1", figures="7")
    assert scorer.post(deal_url, data, **HX).status_code == 302  # saved: to the sheet
    assert Deal.objects.get().card_points == (8, 3)
    typed = deal_data(number=2, key="k2", a="6", b="", da="", db="", count_side="0", aces="4")
    scorer.post(deal_url, typed, **HX)  # card points typed: they count, not the count
    assert Deal.objects.get(number=2).card_points == (6, 5)


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
    data = deal_data(a="8", da="3", key="phone-a")
    saved = parsed(scorer.post(deal_url, data, follow=True, **HX))
    revision = Match.objects.get().revision
    assert value(one(saved, "#saved"), "undo") == str(revision)  # the sheet it was shown with
    page = parsed(scorer.post(sheet_url + "deals/1/delete", {"undo": str(revision)}, **HX))
    assert not Deal.objects.exists()
    assert words(one(page, "#deleted")) == (
        "Deal 1 taken back: its points are in the form, to correct and save again."
    )
    # The card points on the pads, whose keys a tap changes (with scripts or without); the
    # fields for typed points blank: what is typed would count first.
    put_back = [value(page, f) for f in ("card_pad_0", "card_pad_1", "declared_points_0")]
    assert put_back == ["8", "3", "3"] and value(page, "typing") == "1"
    assert (value(page, "card_points_0"), value(page, "card_points_1")) == ("", "")
    assert value(page, "key") != "phone-a"  # a new deal: its key is not the old one's
    scorer.post(deal_url, deal_data(a="7", b="4", key=value(page, "key")), **HX)
    assert Deal.objects.get().card_points[0] == 7


def test_undo_never_takes_back_a_deal_another_phone_entered_under_the_same_number(
    scorer, sheet_url, deal_url, match
):
    scorer.post(deal_url, deal_data(a="8", da="3", key="phone-a"), **HX)
    shown = Match.objects.get().revision
    # Another phone deletes that deal 1 and enters its own deal 1, before this one's Undo.
    services.delete_last_deal(match=match, number=1)
    services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((5, 6), (0, 0)))
    page = parsed(scorer.post(sheet_url + "deals/1/delete", {"undo": str(shown)}, **HX))
    assert words(one(page, ".notice.error")) == (
        "The sheet has changed since deal 1 was saved: check it before undoing."
    )
    assert Deal.objects.get().card_points[0] == 5
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


def test_the_other_phones_are_told_of_a_deal_taken_back_with_no_restore_to_tap(
    scorer, match, sheet_url, deal_url
):
    """Told in a neutral line who took it back: a Restore beside it would invite undoing a
    correction. The match's history offers it, to every scorer."""
    other = Client()
    other.post(f"/join/{match.table.scorer_token}/", {"label": "Dino"})
    for number in (1, 2):
        scorer.post(deal_url, deal_data(number=number, a="5", b="6", da="0"), **HX)
    scorer.post(sheet_url + "deals/2/delete", **HX)
    history = reverse("match_history", args=[match.table.viewer_token, match.pk])
    restore = reverse("restore_deal", args=[match.table.viewer_token, match.pk, 2])

    def told(phone, query: str, by: str = "Carla's phone") -> bool:
        page = parsed(phone.get(f"{sheet_url}?poll=1&{query}", **HX))
        notice = page.select_one("#deleted-elsewhere")
        if notice is None:
            return False
        assert words(notice) == f"Deal 2 was taken back by {by}. The match history keeps it."
        assert notice["role"] == "status" and not notice.select("button, a")
        assert "Another phone has just entered a deal" not in words(page)
        assert not page.select(f"[formaction='{restore}']")
        return True

    # The other phone's form still shows deal 3; it may be typing in it, or not.
    assert told(other, "number=3&typing=0") and told(other, "number=3&typing=1")
    assert told(other, "number=2&typing=0")  # told until something else happens
    assert not told(scorer, "number=2&typing=0")  # it has its own notice
    assert not told(Client(), "number=2")  # a viewer is not told
    offered = parsed(other.get(history, **EN)).select(f"form[action='{restore}'] button")
    assert [words(button) for button in offered] == ["Restore"]
    other.post(sheet_url + "deals/2/restore", **HX)
    assert match.deals.count() == 2 and not told(other, "number=3&typing=0")
    # Now the other phone deletes deal 2: the first is told, though it deleted a deal 2 once.
    other.post(sheet_url + "deals/2/delete", **HX)
    assert told(scorer, "number=3&typing=0", by="Dino") and not told(other, "number=2&typing=0")


def test_a_deal_taken_back_on_a_phone_with_no_name_is_said_of_another_phone(
    match, sheet_url, deal_url
):
    first, second = Client(), Client()
    for phone in (first, second):
        phone.post(f"/join/{match.table.scorer_token}/")
    first.post(deal_url, deal_data(number=1), **HX)
    revision = Match.objects.get().revision
    first.post(sheet_url + "deals/1/delete", {"undo": str(revision)}, **HX)  # Undo
    page = parsed(second.get(f"{sheet_url}?poll=1&number=2&typing=0", **HX))
    assert words(one(page, "#deleted-elsewhere")) == (
        "Deal 1 was taken back on another phone. The match history keeps it."
    )


# --- Editing a deal ----------------------------------------------------------------------


def edit_url(match: Match, number: int = 1) -> str:
    return reverse("edit_deal", args=[match.table.viewer_token, match.pk, number])


def test_editing_a_deal_logs_old_and_new_values(scorer, match, worked):
    page = parsed(scorer.get(edit_url(match), **EN))
    assert words(one(page, "h1")) == "Edit deal 1" and value(page, "card_pad_0") == "8"
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
    anew = services.record_deal(
        match_id=match.pk, number=1, entry=rules.DealEntry((5, 6), (0, 0))
    ).deal
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
        services.record_deal(match_id=match.pk, number=2, entry=worked.entry)
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
        services.record_deal(
            match_id=match.pk, number=number, entry=rules.DealEntry((6, 5), (0, 0))
        )
    data = deal_data(version="1", a="11", b="0", da="0", kind="cappotto", side="0")
    page = parsed(scorer.post(edit_url(match), data, **EN))
    assert words(one(page, "#deal-errors")) == (
        "With this change the match is decided at deal 1, and deals after it are on the sheet: "
        "delete them first."
    )


def store_as_before(match, *entries):
    """Deals stored as an earlier version's rules allowed, which today's refuse, and where
    they left the match, kept as that version kept it."""
    for number, entry in enumerate(entries, start=1):
        points = tuple(entry.card_points[i] + entry.declared_points[i] for i in (0, 1))
        deal = Deal(match=match, number=number)
        deal.set_scored(rules.ScoredDeal(number, entry, points, points, 0))
        deal.save()
    kept = outcome_fields(match.score(list(entries), ("A", "B")))  # scored, not checked
    Match.objects.filter(pk=match.pk).update(**kept)


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


# --- A sweep by one player: cappottone and stramazzone --------------------------------------


def alone(kind="cappottone", seat="3", **fields) -> dict:
    """A cappottone (or a stramazzone) posted as the form sends it: the player tapped."""
    return deal_data(a="", b="", da="", db="", kind=kind, seat=seat, **fields)


def test_a_cappottone_is_saved_by_naming_the_player_the_side_follows(scorer, deal_url):
    # A side chip left tapped from before is not read: the player says which side swept.
    scorer.post(deal_url, alone(side="0"), **HX)
    deal = Deal.objects.get()
    assert (deal.kind, deal.seat, deal.side, deal.card_points) == ("cappottone", 3, 1, (0, 11))


def test_a_sweep_by_one_without_its_player_asks_for_them_beside_the_players(scorer, deal_url):
    page = parsed(scorer.post(deal_url, alone(seat=""), **HX))
    assert errors_of(page, "id_seat") == ["Say which player took the deal alone."]
    assert one(page, ".player-choice")["aria-describedby"] == "id_seat_error"
    assert not page.select("#deal-errors") and not Deal.objects.exists()
    page = parsed(scorer.post(deal_url, alone(seat="7"), **HX))
    assert errors_of(page, "id_seat") == ["Pick one of the four players."]


def test_a_refused_stramazzone_keeps_what_was_typed_and_says_what_to_do(scorer, deal_url):
    data = alone(kind="stramazzone", seat="2", card_points_0="9", card_points_1="2")
    page = parsed(scorer.post(deal_url, data, **HX))
    assert errors_of(page, "id_card_points_0") == [
        "In a stramazzone one player of Alice & Carla took every card point, so their card "
        "points are 11, or 10 if the other side took the last trick."
    ]
    checked = [(field["name"], field["value"]) for field in page.select("#deal-form input:checked")]
    assert ("kind", "stramazzone") in checked and ("seat", "2") in checked
    assert (value(page, "card_points_0"), value(page, "card_points_1")) == ("9", "2")
    assert value(page, "typing") == "1" and not Deal.objects.exists()


def test_a_cappottone_in_due_is_refused_in_words_and_not_offered(client):
    match = MatchFactory(players_per_side=1)
    client.post(reverse("join", args=[match.table.scorer_token]))
    sheet = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN))
    kinds = [field["value"] for field in sheet.select("#deal-form input[name=kind]")]
    assert kinds == ["normal", "cappotto", "stramazzo"] and not sheet.select(".player-choice")
    deal_url = reverse("record_deal", args=[match.table.viewer_token, match.pk])
    page = parsed(client.post(deal_url, alone(seat="1"), **HX))
    assert errors_of(page, "id_kind") == [
        "A cappottone or a stramazzone is a sweep by one player of a pair; in Tressette in due "
        "every sweep is one player's: pick Cappotto or Stramazzo."
    ]
    assert not Deal.objects.exists()


def test_each_kind_chip_says_whom_its_sweep_names_and_whether_its_points_go_without_saying(
    client,
):
    match = MatchFactory()
    client.post(reverse("join", args=[match.table.scorer_token]))
    sheet = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN))
    chips = {field["value"]: field for field in sheet.select("#deal-form input[name=kind]")}
    assert {kind: chip.get("data-sweeper") for kind, chip in chips.items()} == {
        "normal": None,
        "cappotto": "side",
        "stramazzo": "side",
        "cappottone": "player",
        "stramazzone": "player",
    }
    implied = [kind for kind, chip in chips.items() if chip.has_attr("data-card-points-implied")]
    assert implied == ["cappotto", "cappottone"]


def test_undo_of_a_cappottone_puts_its_player_back_in_the_form(scorer, sheet_url, deal_url):
    scorer.post(deal_url, alone(seat="1"), **HX)
    revision = Match.objects.get().revision
    page = parsed(scorer.post(sheet_url + "deals/1/delete", {"undo": str(revision)}, **HX))
    assert not Deal.objects.exists()
    checked = [(field["name"], field["value"]) for field in page.select("#deal-form input:checked")]
    assert ("kind", "cappottone") in checked and ("seat", "1") in checked


def test_a_cappottone_is_edited_to_another_player_and_the_log_says_so(scorer, match, deal_url):
    scorer.post(deal_url, alone(seat="1"), **HX)
    page = parsed(scorer.get(edit_url(match), **EN))
    assert one(page, "#deal-form input[name=seat][value='1']").has_attr("checked")
    players = [words(chip) for chip in page.select(".player-choice label.chip")]
    assert players == ["Alice", "Beppe", "Carla", "Dino"]
    scorer.post(edit_url(match), alone(seat="3", version="1"), **EN)
    assert (Deal.objects.get().seat, Deal.objects.get().side) == (3, 1)
    change = Change.objects.get(action="deal_edited")
    assert (change.old["seat"], change.new["seat"]) == (1, 3)


def test_a_second_phones_cappottone_is_said_with_its_player(scorer, deal_url):
    scorer.post(deal_url, deal_data(key="phone-a"), **HX)
    page = parsed(scorer.post(deal_url, alone(seat="2", key="phone-b"), **HX))
    assert (
        "Yours were not saved: Alice & Carla 11 + 0, Beppe & Dino 0 + 0 (Cappottone · Carla)."
        in (words(one(page, "#conflict")))
    )
    edit = parsed(scorer.get(one(page, "#conflict a.button")["href"], **EN))
    assert one(edit, "#deal-form input[name=seat][value='2']").has_attr("checked")
