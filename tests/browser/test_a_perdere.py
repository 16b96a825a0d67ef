"""Tressette a perdere at a table of four (issue 52): a match started on one phone, its deals
entered on each phone in turn at 360 px, each phone following along; a player reaching the
line is out and asked nothing more; the last two deals entered offline, checked there as the
players go out; the last one in wins."""

import pytest
from playwright.sync_api import expect

from matches import rules, services
from matches.models import Change, Match
from tests.browser.conftest import SIDEWAYS, scripts_ran
from tests.browser.test_offline import back_online, ready_offline
from tests.browser.test_other_phones import join

pytestmark = pytest.mark.django_db(transaction=True)

SMALL = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2}
PHONES = [
    {**SMALL, "color_scheme": "light", "locale": "en-US"},
    {**SMALL, "color_scheme": "dark", "locale": "hr-HR"},
]
PLAYERS = ["Anna", "Bruno", "Carla Maria Santangelo di Roccaforte", "Dino"]  # a long name too
ANNA, BRUNO, CARLA, DINO = range(4)
SWEPT = "swept"


def totals(page) -> list[str]:
    return page.locator("#live .scoreboard .total").all_inner_texts()


def enter(page, *points) -> None:
    """Each player's card points, a blank for a player out; or who took every point."""
    form = page.locator("#deal-form")
    if points[0] == SWEPT:
        form.locator(f"input[name=sweeper][value='{points[1]}']").check()
    else:
        for seat, typed in enumerate(points):
            if typed is not None:
                form.locator(f"#id_card_points_{seat}").fill(str(typed))
    form.locator("button.save").click()


def start(page) -> None:
    """A table, and a match a perdere at it: line 21, the last one in wins."""
    page.goto("/")
    page.get_by_label("Table name").fill("Bar Sport")
    page.get_by_role("button", name="Create table").click()
    page.get_by_role("link", name="A perdere, three to five").click()
    scripts_ran(page)
    for seat, name in enumerate(PLAYERS):
        page.locator(f"#id_player_{seat}").fill(name)
    page.get_by_role("button", name="Start match").click()
    expect(page.get_by_role("heading", name="Deal 1")).to_be_visible()


def test_a_match_a_perdere_of_four_to_21_puts_players_out_and_the_last_one_in_wins(
    new_phone, screenshot
):
    phones = [new_phone(**device) for device in PHONES]
    first, second = phones
    start(first)
    sheet = first.url.split("?")[0]
    join(second, "phone")
    second.goto(sheet)
    for phone in phones:
        expect(phone.locator("#live .scoreboard .score")).to_have_count(4)
        assert phone.evaluate(SIDEWAYS) <= 0

    enter(first, 5, 3, 2, 0)
    expect(second.locator("#deal-rows tr")).to_have_count(1)  # at its next poll
    enter(second, SWEPT, DINO)  # Dino takes every point: 11 to each of the others
    for phone in phones:
        expect(phone.locator("#deal-rows tr")).to_have_count(2)
        expect(phone.locator("#live .scoreboard .total")).to_have_text(["16", "14", "13", "0"])
    # A count the deck cannot give, refused in words, with what was typed kept.
    enter(first, 6, 1, 2, 3)
    expect(first.locator("#deal-errors")).to_contain_text("add up to 9 to 11, not 12")
    expect(first.locator("#id_card_points_3")).to_have_value("3")
    enter(first, None, None, None, 1)  # Anna reaches 22: out
    for phone in phones:
        expect(phone.locator("#live .scoreboard .total")).to_have_text(["22", "15", "15", "1"])
        expect(phone.locator("#live .score.side-0.out")).to_be_visible()
    expect(first.locator("#id_card_points_0")).to_have_count(0)  # not asked any more
    expect(second.locator("#id_card_points_0")).to_have_count(0)
    expect(first.get_by_role("heading", name="Deal 4")).to_be_visible()
    screenshot(first, "a-perdere-out-360-en")

    # Deal 4 on the second phone, offline: checked there, counted provisionally, sent once.
    ready_offline(second)
    second.context.set_offline(True)
    second.reload()
    expect(second.locator("#offline-copy")).to_be_visible()
    enter(second, None, 7, 1, 4)  # 10 or 11 with three in, not 12
    expect(second.locator("#deal-errors")).to_contain_text("12")
    expect(second.locator("#deal-rows tr.pending")).to_have_count(0)
    enter(second, None, 7, 1, 2)  # Bruno reaches 22: out
    expect(second.locator("#live .scoreboard .total")).to_have_text(["22", "22", "16", "3"])
    pending = second.locator("#deal-rows tr.pending")
    expect(pending).to_have_count(1)
    expect(pending.locator("td.side-1 .tag")).to_have_text("van igre")  # out, in Croatian
    expect(second.locator("#live .next-dealer")).to_contain_text(PLAYERS[CARLA])  # past both out
    # Deal 5 offline too, with two players in: Bruno's field, still on the form, left blank.
    enter(second, None, None, 5, 5)  # 10: with two in, 11
    expect(second.locator("#deal-errors")).to_contain_text("11")
    enter(second, None, None, 5, 6)  # Carla reaches 21: out; Dino, the last one in, wins
    expect(second.locator("#live .scoreboard .total")).to_have_text(["22", "22", "21", "9"])
    expect(second.locator("#live .notice.offline-pending")).to_contain_text("5")
    expect(second.locator("#deal-form")).to_be_hidden()
    assert second.evaluate(SIDEWAYS) <= 0
    screenshot(second, "a-perdere-offline-360-hr")
    assert Match.objects.get().deal_count == 3
    with second.expect_navigation():  # sent, and the copy reloads as the live sheet
        back_online(second)
    expect(second.locator("#deal-5")).to_be_visible()
    expect(second.locator("#deal-rows tr.pending")).to_have_count(0)

    for phone in phones:
        expect(phone.locator("#live .scoreboard .total")).to_have_text(["22", "22", "21", "9"])
        expect(phone.locator("#end-match")).to_be_visible()
    first.locator("#end-match").click()
    for phone in phones:
        expect(phone.locator("#live .result")).to_contain_text("Dino")
        assert phone.evaluate(SIDEWAYS) <= 0
    screenshot(first, "a-perdere-won-360-en")
    match = Match.objects.get()
    assert (match.status, match.winner, match.totals) == ("finished", DINO, (22, 22, 21, 9))
    assert match.out_after == (3, 4, 5, None)
    recorded = Change.objects.filter(action="deal_recorded").order_by("id")
    assert [change.deal_number for change in recorded] == [1, 2, 3, 4, 5]


def test_who_deals_first_is_asked_by_the_names_typed_and_only_of_seats_taken(new_phone):
    page = new_phone(**PHONES[0])
    page.goto("/")
    page.get_by_label("Table name").fill("Bar Sport")
    page.get_by_role("button", name="Create table").click()
    page.get_by_role("link", name="A perdere, three to five").click()
    scripts_ran(page)
    dealers = page.locator("#id_first_dealer label")
    expect(dealers.filter(visible=True)).to_have_count(3)
    for seat, name in enumerate(PLAYERS[:3]):
        page.locator(f"#id_player_{seat}").fill(name)
    expect(dealers.filter(visible=True)).to_have_text(PLAYERS[:3])
    page.locator("#id_player_3").fill("Dino")
    expect(dealers.filter(visible=True)).to_have_text(PLAYERS)
    dealers.filter(has_text="Dino").click()
    page.get_by_role("button", name="Start match").click()
    expect(page.locator(".next-dealer")).to_have_text("Deal 1: Dino deals.")
    assert Match.objects.get().first_dealer == DINO


def test_five_players_with_long_names_fit_a_phone_of_360_px(new_phone, screenshot):
    five = ["Anna", "Bruno", "Carla Maria Santangelo di Roccaforte", "Dino", "Elena Ferrari"]
    table = services.create_table(name="Osteria")
    match = services.start_match(
        table=table, players=[[name] for name in five], settings=rules.APerdereTerms()
    )
    for number, points in enumerate(((3, 2, 2, 1, 2), (0, 11, 0, 0, 0), (2, 2, 2, 2, 2)), 1):
        entry = rules.APerdereEntry(points, sweeper=1 if points[1] == 11 else None)
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    phone = new_phone(**PHONES[0])
    join(phone, "phone")
    phone.goto(f"/t/{table.viewer_token}/m/{match.pk}/")
    expect(phone.locator("#live .scoreboard .score")).to_have_count(5)
    expect(phone.locator("#deal-form .player-points")).to_have_count(5)
    assert phone.evaluate(SIDEWAYS) <= 0
    screenshot(phone, "a-perdere-five-360-en")
