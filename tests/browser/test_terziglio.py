"""Terziglio at a table of three (issue 52): a match started on one phone, its deals entered
on each of the three phones in turn at 360 px, each phone following along, the balances
summing to zero after every deal, then the match won and ended."""

import pytest
from playwright.sync_api import expect

from matches.models import Match
from tests.browser.conftest import SIDEWAYS, scripts_ran
from tests.browser.test_other_phones import join

pytestmark = pytest.mark.django_db(transaction=True)

SMALL = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2}
PHONES = [
    {**SMALL, "color_scheme": "light", "locale": "en-US"},
    {**SMALL, "color_scheme": "dark", "locale": "it-IT"},
    {**SMALL, "color_scheme": "light", "locale": "hr-HR"},
]
PLAYERS = ["Anna", "Bruno", "Carla Maria Santangelo di Roccaforte"]  # a long name too
ANNA, BRUNO, CARLA = 0, 1, 2
# (the soloist, the bid, their card points) or None a monte; and the balances after it.
DEALS = [
    ((ANNA, "chiamo", 7), (6, -3, -3)),  # 7-4: each of the two pays 3
    (None, (6, -3, -3)),  # all passed: nothing moves
    ((BRUNO, "solo", 5), (8, -7, -1)),  # 5-6 lost: 1, doubled, to each
    ((CARLA, "chiamo", 8), (3, -12, 9)),
    ((ANNA, "chiamo", 6), (5, -13, 8)),
    ((BRUNO, "chiamo", 9), (-2, 1, 1)),
]


def balances(page) -> list[int]:
    return [int(total) for total in page.locator("#live .scoreboard .total").all_inner_texts()]


def enter(page, deal) -> None:
    form = page.locator("#deal-form")
    if deal is None:
        page.locator("#a-monte").click()
        return
    soloist, bid, cards = deal
    form.locator(f"input[name=soloist][value='{soloist}']").check()
    form.locator(f"input[name=bid][value='{bid}']").check()
    form.locator(f"input[name=card_pad][value='{cards}']").check()
    form.locator("button.save").click()


def test_a_match_of_terziglio_on_three_phones_keeps_the_balances_summing_to_zero(
    new_phone, screenshot
):
    phones = [new_phone(**device) for device in PHONES]
    first = phones[0]
    first.goto("/")
    first.get_by_label("Table name").fill("Bar Sport")
    first.get_by_role("button", name="Create table").click()
    first.get_by_role("link", name="Terziglio, for three").click()
    scripts_ran(first)
    for seat, name in enumerate(PLAYERS):
        first.locator(f"#id_player_{seat}").fill(name)
    first.get_by_role("button", name="Start match").click()
    expect(first.get_by_role("heading", name="Deal 1")).to_be_visible()
    sheet = first.url.split("?")[0]
    for phone in phones[1:]:
        join(phone, "phone")
        phone.goto(sheet)
    for phone in phones:
        expect(phone.locator("#live .scoreboard .score")).to_have_count(3)
        assert phone.evaluate(SIDEWAYS) <= 0

    for number, (deal, after) in enumerate(DEALS, start=1):
        enter(phones[(number - 1) % 3], deal)
        for phone in phones:  # the one that saved it at once, the others at their next poll
            expect(phone.locator("#deal-rows tr")).to_have_count(number)
            expect(phone.locator("#live .scoreboard .total")).to_have_text([str(b) for b in after])
            assert sum(balances(phone)) == 0
        assert Match.objects.get().totals == after

    # Carla wins a solissimo 10-1: 9 tripled from each of the other two takes her to 55.
    enter(phones[0], (CARLA, "solissimo", 10))
    for phone in phones:
        expect(phone.locator("#live .scoreboard .total")).to_have_text(["-29", "-26", "55"])
        expect(phone.locator("#end-match")).to_be_visible()
    screenshot(phones[2], "terziglio-decided-360-hr")
    phones[1].locator("#end-match").click()
    for phone in phones:
        expect(phone.locator("#live .result")).to_contain_text(PLAYERS[CARLA])
        assert phone.evaluate(SIDEWAYS) <= 0
    match = Match.objects.get()
    assert (match.status, match.winner, match.totals) == ("finished", CARLA, (-29, -26, 55))


def test_a_deal_refused_says_why_beside_what_to_mend_and_keeps_what_was_typed(
    new_phone, screenshot
):
    phone = new_phone(**PHONES[0])
    phone.goto("/")
    phone.get_by_label("Table name").fill("Bar Sport")
    phone.get_by_role("button", name="Create table").click()
    phone.get_by_role("link", name="Terziglio, for three").click()
    for seat, name in enumerate(PLAYERS):
        phone.locator(f"#id_player_{seat}").fill(name)
    phone.get_by_role("button", name="Start match").click()
    form = phone.locator("#deal-form")
    form.locator("input[name=soloist][value='1']").check()
    form.locator("input[name=card_pad][value='7']").check()
    form.locator("button.save").click()
    expect(form).to_contain_text("Say what Bruno bid: chiamo, solo or solissimo.")
    expect(form.locator("input[name=soloist][value='1']")).to_be_checked()
    expect(form.locator("input[name=card_pad][value='7']")).to_be_checked()
    assert not Match.objects.get().deals.exists()
    assert phone.evaluate(SIDEWAYS) <= 0
    screenshot(phone, "terziglio-refused-360-en")
