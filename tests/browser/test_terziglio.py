"""Terziglio at a table of three (issue 52): a match started on one phone, its deals entered
on each of the three phones in turn at 360 px, each phone following along, the balances
summing to zero after every deal, then the match won and ended."""

import pytest
from playwright.sync_api import expect

from matches.models import Change, Deal, Match
from tests.browser.conftest import SIDEWAYS, scripts_ran
from tests.browser.test_offline import back_online, ready_offline
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


def start(page) -> None:
    """A table, and a match of Terziglio at it to the line (21), paid by the difference."""
    page.goto("/")
    page.get_by_label("Table name").fill("Bar Sport")
    page.get_by_role("button", name="Create table").click()
    page.get_by_role("link", name="Terziglio, for three").click()
    scripts_ran(page)
    for seat, name in enumerate(PLAYERS):
        page.locator(f"#id_player_{seat}").fill(name)
    page.get_by_role("button", name="Start match").click()
    expect(page.get_by_role("heading", name="Deal 1")).to_be_visible()


def test_a_match_of_terziglio_on_three_phones_keeps_the_balances_summing_to_zero(
    new_phone, screenshot
):
    phones = [new_phone(**device) for device in PHONES]
    first = phones[0]
    start(first)
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
    start(phone)
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


def test_a_phone_offline_keeps_deals_of_terziglio_and_sends_them_once_in_order(
    new_phone, screenshot
):
    phone = new_phone(**PHONES[0])
    start(phone)
    enter(phone, (ANNA, "chiamo", 7))
    expect(phone.locator("#deal-1")).to_be_visible()
    ready_offline(phone)
    other = new_phone(**PHONES[1])
    join(other, "phone")
    other.goto(phone.url.split("?")[0])
    expect(other.locator("#deal-rows tr")).to_have_count(1)

    phone.context.set_offline(True)
    phone.reload()
    expect(phone.locator("#offline-copy")).to_be_visible()
    expect(phone.locator("#live .scoreboard .total")).to_have_text(["6", "-3", "-3"])
    # Checked on the phone, in the rules' words: nothing is kept.
    form = phone.locator("#deal-form")
    form.locator("input[name=soloist][value='1']").check()
    form.locator("input[name=card_pad][value='5']").check()
    form.locator("button.save").click()
    expect(phone.locator("#deal-errors")).to_contain_text("Say what Bruno bid")
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)

    form.locator("input[name=bid][value='solo']").check()
    form.locator("button.save").click()  # Bruno loses a solo 5-6
    expect(phone.locator("#offline-notice")).to_be_visible()
    expect(phone.locator("#live .scoreboard .total")).to_have_text(["8", "-7", "-1"])
    enter(phone, None)  # a monte: nothing moves
    pending = phone.locator("#deal-rows tr.pending")
    expect(pending).to_have_count(2)
    expect(pending.nth(0).locator("td.side-1 .tag")).to_have_text("solo 5–6")
    expect(pending.nth(1).locator("th")).to_contain_text("a monte")
    expect(phone.locator("#live .scoreboard .total")).to_have_text(["8", "-7", "-1"])
    expect(phone.get_by_role("heading", name="Deal 4")).to_be_visible()
    # Carla wins a solissimo 10-1: 9 tripled from each takes her past 21, and the phone stops.
    enter(phone, (CARLA, "solissimo", 10))
    expect(phone.locator("#live .scoreboard .total")).to_have_text(["-19", "-34", "53"])
    expect(phone.locator("#live .notice.offline-pending")).to_contain_text("4")
    expect(phone.locator("#deal-form")).to_be_hidden()
    assert phone.evaluate(SIDEWAYS) <= 0
    screenshot(phone, "terziglio-offline-360-en")
    assert Deal.objects.count() == 1
    assert other.locator("#deal-rows tr").count() == 1

    with phone.expect_navigation():  # sent, and the copy reloads as the live sheet
        back_online(phone)
    expect(phone.locator("#deal-4")).to_be_visible()
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    expect(phone.locator("#end-match")).to_be_visible()
    match = Match.objects.get()
    assert match.totals == (-19, -34, 53)
    stored = match.deals.order_by("number").values_list("number", "side", "bid", "card_points")
    assert list(stored) == [(1, 0, "chiamo", (7,)), (2, 1, "solo", (5,)), (3, None, "a_monte", ()),
                            (4, 2, "solissimo", (10,))]  # fmt: skip
    recorded = Change.objects.filter(action="deal_recorded").order_by("id")
    assert [change.deal_number for change in recorded] == [1, 2, 3, 4]
    expect(other.locator("#deal-rows tr")).to_have_count(4)  # at its next poll
    expect(other.locator("#end-match")).to_be_visible()
