"""A cappottone or a stramazzone at the table, on a 360 px phone: the player who swept alone
picked by name, the match ended on the spot in the game's words; and one entered with no
signal, checked and settled on the phone as a cappotto is."""

import re

import pytest
from django.utils import translation
from playwright.sync_api import expect

from matches.models import Deal, Match
from tests.browser.test_entry import IN_VIEW, UNCOVERED, after, key, open_sheet, tap
from tests.browser.test_offline import ready_offline, stored
from tests.browser.test_sheet import create_table_and_match, enter_deal

pytestmark = pytest.mark.django_db(transaction=True)

# open_sheet's players, in seat order: Alessandra & Carla against Giuseppe & Dino.
SEATS = ["Alessandra", "Giuseppe", "Carla", "Dino"]
DECIDED = (
    "<strong>%(side)s</strong> wins the match: %(player)s took every trick alone, a cappottone.",
    "<strong>%(side)s</strong> win the match: %(player)s took every trick alone, a cappottone.",
)


def said(language: str, message, *, plural: bool = False, **params) -> str:
    """`message` (a pair: singular and plural) as the page says it in `language`."""
    with translation.override(language):
        if isinstance(message, tuple):
            return translation.ngettext(*message, 2 if plural else 1) % params
        return translation.gettext(message) % params


def kind_chip(page, kind: str):
    return page.locator("#deal-form .kind label.chip", has=page.locator(f"[value={kind}]"))


def player_chip(page, name: str):
    return page.locator("#deal-form .player-choice label.chip", has_text=name)


@pytest.mark.parametrize("language", ["it", "en", "hr"])
def test_a_cappottone_is_entered_by_the_players_name_and_ends_the_match_in_words(
    new_phone, language
):
    page = open_sheet(new_phone, language=language, deals=[((8, 3), (3, 0))], line=21)  # 11–3
    expect(page.locator("#deal-form .player-choice")).to_be_hidden()  # a normal deal asks none
    chip = kind_chip(page, "cappottone")
    chip.scroll_into_view_if_needed()  # below the keys, as a thumb scrolls to the kinds
    tap(page, chip)
    # The player is asked for, not the side (it follows): every player in sight, one tap each.
    expect(page.locator("#deal-form .side-choice")).to_be_hidden()
    players = page.locator("#deal-form .player-choice label.chip")
    expect(players).to_have_text(SEATS)
    for each in players.all():
        assert each.evaluate(IN_VIEW) and each.evaluate(UNCOVERED), each.inner_text()
        assert each.bounding_box()["height"] >= 44  # a whole finger's target
    assert page.locator("#deal-form .pad input:checked").count() == 0  # no card points asked
    tap(page, player_chip(page, "Dino"))
    if language == "en":
        page.screenshot(path="var/screenshots/cappottone-entry-360x740.png")
    # Giuseppe & Dino had 3: Dino's cappottone takes them to the line.
    expect(after(page)).to_have_text(said(language, "After this deal:") + " 11 – 21")
    tap(page, page.locator("#deal-form button.save"))

    decided = page.locator(".decided")
    expect(decided).to_be_visible()
    won = said(language, DECIDED, side="Giuseppe & Dino", player="Dino", plural=True)
    expect(decided.locator("p").first).to_have_text(re.sub("</?strong>", "", won))
    row = page.locator("#deal-2 td.side-1")
    expect(row.locator(".tag")).to_have_text(said(language, "Cappottone"))
    expect(row.locator(".by")).to_have_text("Dino")
    deal = Deal.objects.get(number=2)
    assert (deal.kind, deal.seat, deal.side, deal.points) == ("cappottone", 3, 1, (0, 18))

    page.locator("#end-match").click()
    verdict = page.locator("#live .result .big")
    expect(verdict).to_contain_text(
        f"({said(language, 'cappottone by %(player)s', player='Dino')})"
    )
    assert Match.objects.get().end_reason == "cappottone"
    if language == "en":
        page.screenshot(path="var/screenshots/cappottone-360x740.png", full_page=True)


def test_a_sweep_by_one_refused_keeps_what_was_typed_and_says_what_to_do(new_phone):
    page = open_sheet(new_phone, deals=[((8, 3), (3, 0))], line=21)
    tap(page, key(page, 0, 9))  # Alessandra & Carla 9, the others 2: no stramazzone
    chip = kind_chip(page, "stramazzone")
    chip.scroll_into_view_if_needed()
    tap(page, chip)
    tap(page, player_chip(page, "Carla"))
    page.locator("#deal-form button.save").click()
    error = page.locator("#deal-form .errorlist").first
    expect(error).to_contain_text(
        "In a stramazzone one player of Alessandra & Carla took every card point"
    )
    # What was typed stays: the kind, the player, the card points, to correct and save.
    expect(page.locator("#deal-form input[name=kind][value=stramazzone]")).to_be_checked()
    expect(page.locator("#deal-form input[name=seat][value='2']")).to_be_checked()
    expect(page.locator("#deal-form .player-choice")).to_be_visible()
    assert not Deal.objects.filter(number=2).exists()
    page.locator("#id_card_points_0").fill("10")  # the others took only the last trick
    page.locator("#id_card_points_1").fill("1")
    page.locator("#deal-form button.save").click()
    expect(page.locator(".decided")).to_contain_text("Carla took every card point alone")
    assert Deal.objects.get(number=2).kind == "stramazzone"


def test_offline_a_cappottone_is_checked_and_settles_the_match_as_a_cappotto_does(new_phone):
    phone = new_phone(viewport={"width": 360, "height": 740})
    create_table_and_match(phone)  # Alice & Carla against Beppe & Dino, line 21
    ready_offline(phone)
    phone.context.set_offline(True)
    enter_deal(phone, 6)  # 6 to 5

    # A cappottone with nobody named is refused on the phone, in the rules' own words.
    form = phone.locator("#deal-form")
    form.get_by_label("Cappottone", exact=True).check()
    phone.get_by_role("button", name="Save deal").click()
    expect(phone.locator("#deal-errors")).to_contain_text("Say which player took the deal alone.")
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(1)

    form.locator(".player-choice").get_by_text("Carla", exact=True).click()
    phone.get_by_role("button", name="Save deal").click()
    pending = phone.locator("#deal-rows tr.pending")
    expect(pending).to_have_count(2)
    expect(pending.last.locator("td.side-0 .tag")).to_have_text("Cappottone · Carla")
    expect(phone.locator("#live")).to_contain_text("Deal 2 decides the match.")
    expect(phone.locator(".scoreboard .needs")).to_have_text(["match won", ""])
    expect(phone.locator("#deal-form")).to_be_hidden()  # no deal after it
    assert stored() == []

    phone.context.set_offline(False)
    expect(phone.get_by_role("button", name="End match")).to_be_visible()
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    assert stored() == [(1, 6), (2, 11)]
    deal = Deal.objects.get(number=2)
    assert (deal.kind, deal.seat, deal.side) == ("cappottone", 2, 0)
    expect(phone.locator(".decided")).to_contain_text("Carla took every trick alone")


def stramazzone(page, card_points: int, player: str) -> None:
    """A stramazzone by `player`, their side's card points typed, saved."""
    form = page.locator("#deal-form")
    form.get_by_label("Stramazzone", exact=True).check()
    form.locator(".player-choice").get_by_text(player, exact=True).click()
    page.locator("#id_card_points_0").fill(str(card_points))
    page.get_by_role("button", name="Save deal").click()


def test_offline_a_stramazzone_s_card_points_are_checked_in_the_server_s_words(new_phone):
    phone = new_phone(viewport={"width": 360, "height": 740})
    create_table_and_match(phone)  # Alice & Carla against Beppe & Dino, line 21
    ready_offline(phone)
    stramazzone(phone, 9, "Carla")  # the others took 2: no stramazzone
    refused = phone.locator("#deal-errors, #deal-form .errorlist")
    expect(refused).to_contain_text("In a stramazzone one player of Alice & Carla")
    said_online = refused.inner_text()

    ready_offline(phone)  # the page afresh, offline.js with it
    phone.context.set_offline(True)
    stramazzone(phone, 9, "Carla")
    expect(phone.locator("#deal-errors")).to_have_text(said_online)
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    assert phone.locator("#id_card_points_0").input_value() == "9"  # kept to correct

    phone.locator("#id_card_points_0").fill("10")  # the others took only the last trick
    phone.get_by_role("button", name="Save deal").click()
    pending = phone.locator("#deal-rows tr.pending")
    expect(pending).to_have_count(1)
    expect(pending.locator("td.side-0 .tag")).to_have_text("Stramazzone · Carla")
    expect(phone.locator("#live")).to_contain_text("Deal 1 decides the match.")
    assert stored() == []

    phone.context.set_offline(False)
    expect(phone.get_by_role("button", name="End match")).to_be_visible()
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    assert stored() == [(1, 10)]  # once
    deal = Deal.objects.get()
    assert (deal.kind, deal.seat, deal.side) == ("stramazzone", 2, 0)
    expect(phone.locator(".decided")).to_contain_text("Carla took every card point alone")
