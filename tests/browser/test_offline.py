"""A table with no signal keeps scoring (issue 23), in a real Chromium with its network cut."""

import re

import pytest
from playwright.sync_api import expect

from matches.models import Change, Deal, Match
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, PHONE, SIDEWAYS, scripted, scripts_ran
from tests.browser.test_entry import said
from tests.browser.test_other_phones import PHONES, join
from tests.browser.test_sheet import create_table_and_match, enter_deal, totals

pytestmark = pytest.mark.django_db(transaction=True)


def ready_offline(page):
    """The service worker controls the page and keeps a copy of this sheet."""
    # Once it is active, a reload is its: one that activated while this page was being opened
    # may have claimed no page.
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    scripts_ran(page)
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    page.wait_for_function("() => window.caches && caches.has('tressette-sheets')")
    page.wait_for_function("() => document.querySelector('script[src*=offline]') !== null")


def second_scorer(new_phone, sheet):
    other = new_phone()
    other.goto(f"/join/{Match.objects.get().table.scorer_token}/")
    other.get_by_role("button", name="Join as a scorer").click()
    other.goto(sheet)
    return other


def back_online(page):
    """The connection returns (the browser says so: `online`)."""
    page.context.set_offline(False)


def stored():
    return list(Deal.objects.order_by("number").values_list("number", "card_points__0"))


def test_a_phone_offline_reloads_to_its_sheet_and_scores_three_deals_sent_once_in_order(
    new_phone,
):
    phone = new_phone()
    create_table_and_match(phone, line="41")
    enter_deal(phone, 8, da="3")
    expect(phone.locator("#deal-1")).to_be_visible()
    ready_offline(phone)
    other = second_scorer(new_phone, phone.url)

    phone.context.set_offline(True)
    phone.reload()
    expect(phone.locator("#offline-copy")).to_contain_text("Offline")
    expect(phone.locator("#deal-1")).to_be_visible()
    assert totals(phone) == ["11", "3"]

    for points in (6, 5, 7):
        enter_deal(phone, points)
        expect(phone.locator("#offline-notice")).to_contain_text("kept on this phone")
    pending = phone.locator("#deal-rows tr.pending")
    expect(pending).to_have_count(3)
    expect(pending.first).to_contain_text("waiting to be sent")
    assert totals(phone) == ["29", "18"]
    expect(phone.get_by_role("heading", name="Deal 5")).to_be_visible()
    assert stored() == [(1, 8)]

    # Once the queue is sent, the kept copy reloads as the live sheet: waited for, so that no
    # look at the page meets it half-way.
    with phone.expect_navigation():
        back_online(phone)
    expect(phone.locator("#offline-copy")).to_have_count(0)  # the live sheet again
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    expect(phone.locator("#deal-4")).to_be_visible()
    assert stored() == [(1, 8), (2, 6), (3, 5), (4, 7)]
    assert totals(phone) == ["29", "18"]
    expect(other.locator("#deal-4")).to_contain_text("29–18")
    recorded = Change.objects.filter(action="deal_recorded").order_by("id")
    assert [change.deal_number for change in recorded] == [1, 2, 3, 4]


def test_a_phone_offline_the_moment_after_its_saves_keeps_them_and_numbers_on_from_them(
    new_phone,
):
    phone = new_phone()
    create_table_and_match(phone, line="41")
    ready_offline(phone)
    for number, points in enumerate((7, 3, 6), start=1):  # quickly, one after the other
        enter_deal(phone, points)
        expect(phone.locator("#saved")).to_contain_text(f"Deal {number} saved")
    assert totals(phone) == ["16", "17"]

    phone.context.set_offline(True)  # at once: the signal goes as the third deal is shown saved
    phone.reload()
    expect(phone.locator("#offline-copy")).to_contain_text("Offline")
    expect(phone.locator("#deal-rows tr")).to_have_count(3)
    expect(phone.locator("#deal-3")).to_contain_text("16–17")
    assert totals(phone) == ["16", "17"]
    enter_deal(phone, 8)
    expect(phone.locator("#deal-rows tr.pending th.num")).to_contain_text("4")
    expect(phone.get_by_role("heading", name="Deal 5")).to_be_visible()

    with phone.expect_navigation():  # sent, and the copy reloads as the live sheet
        back_online(phone)
    expect(phone.locator("#deal-4")).to_contain_text("24–20")
    expect(phone.locator("#offline-notice, #conflict")).to_have_count(0)
    assert stored() == [(1, 7), (2, 3), (3, 6), (4, 8)]
    recorded = Change.objects.filter(action="deal_recorded").order_by("id")
    assert [change.deal_number for change in recorded] == [1, 2, 3, 4]


def offline_beside_an_online_phone(new_phone):
    """A phone ready to go offline, and a second scorer at the same sheet that stays online."""
    phone = new_phone()
    create_table_and_match(phone, line="41")
    ready_offline(phone)
    return phone, second_scorer(new_phone, phone.url)


@pytest.mark.parametrize(("device", "language"), PHONES)
def test_a_deal_another_phone_entered_first_is_neither_lost_nor_doubled(
    new_phone, device, language
):
    other = new_phone()  # online all along, in English
    create_table_and_match(other, line="41")
    phone = new_phone(**device)
    join(phone)
    phone.goto(other.url)
    ready_offline(phone)
    phone.context.set_offline(True)
    phone.locator("#id_card_points_0").fill("8")  # deal 1, kept on the phone
    phone.locator("#deal-form button.save").click()
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(1)
    enter_deal(other, 6)  # deal 1 too, saved first
    expect(other.locator("#saved")).to_contain_text("Deal 1 saved")

    back_online(phone)
    question = phone.locator("#offline-notice")
    expect(question).to_contain_text(
        said(language, "Deal %(number)s was just entered on another phone.", number=1)
    )
    yours = "Alice & Carla 8 + 0, Beppe & Dino 3 + 0"
    expect(question).to_contain_text(
        said(language, "Yours, entered on this phone, was not saved: %(yours)s.", yours=yours)
    )
    assert stored() == [(1, 6)]  # the person decides
    # Until then the totals are the server's, as the other phone shows them: nothing waits.
    expect(phone.locator(".scoreboard .total")).to_have_text(["6", "5"])
    expect(phone.locator(".scoreboard")).not_to_contain_text(said(language, "provisional"))
    assert totals(other) == ["6", "5"]
    assert phone.evaluate(SIDEWAYS) <= 0
    add = said(language, "Add mine as deal %(number)s", number=2)
    question.get_by_role("button", name=add).click()
    expect(phone.locator("#deal-2")).to_be_visible()
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    expect(phone.locator(".scoreboard .total")).to_have_text(["14", "8"])
    assert stored() == [(1, 6), (2, 8)]


def test_a_deal_discarded_after_another_phone_entered_it_first_is_not_stored(new_phone):
    phone, other = offline_beside_an_online_phone(new_phone)
    phone.context.set_offline(True)
    enter_deal(phone, 6)
    enter_deal(phone, 7)
    enter_deal(other, 6)
    expect(other.locator("#saved")).to_contain_text("Deal 1 saved")

    back_online(phone)
    phone.locator("#offline-notice").get_by_role("button", name="Discard mine").click()
    expect(phone.locator("#deal-2")).to_be_visible()  # the one after it goes on as deal 2
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    assert stored() == [(1, 6), (2, 7)]


def test_while_a_deal_waits_for_the_choice_the_deals_queued_after_it_count_for_nothing(
    new_phone,
):
    phone = new_phone()
    create_table_and_match(phone)  # line 21
    ready_offline(phone)
    other = second_scorer(new_phone, phone.url)
    phone.context.set_offline(True)
    enter_deal(phone, 6)  # deal 1, beaten by the other phone's
    enter_deal(phone, 10, da="3")  # deal 2: 13 to 1, which after the other's deal 1 would win
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(2)
    enter_deal(other, 10)
    expect(other.locator("#saved")).to_contain_text("Deal 1 saved")

    back_online(phone)
    pending = phone.locator("#deal-rows tr.pending")
    expect(pending.first).to_contain_text("not sent")  # drawn once the question is asked
    # Deal 2 waits behind the deal the person decides on: the totals stay the server's.
    assert totals(phone) == ["10", "1"]
    expect(phone.locator(".scoreboard .needs")).to_have_text(["needs 11 more", "needs 20 more"])
    expect(phone.locator(".scoreboard")).not_to_contain_text("provisional")
    expect(phone.locator("#live")).not_to_contain_text("decides the match")
    assert stored() == [(1, 10)]

    phone.locator("#offline-notice").get_by_role("button", name="Add mine as deal 2").click()
    expect(phone.get_by_role("button", name="End match")).to_be_visible()  # 29 to 7
    expect(pending).to_have_count(0)
    assert stored() == [(1, 10), (2, 6), (3, 10)]


@pytest.mark.parametrize(
    ("choice", "then"),
    [("Add mine as deal 2", [(1, 10), (2, 6), (3, 7)]), ("Discard mine", [(1, 10), (2, 7)])],
)
def test_a_deal_typed_while_another_waits_for_the_choice_is_queued_behind_it(
    new_phone, choice, then
):
    phone, other = offline_beside_an_online_phone(new_phone)
    phone.context.set_offline(True)
    enter_deal(phone, 6)  # deal 1, beaten by the other phone's
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(1)
    enter_deal(other, 10)
    expect(other.locator("#saved")).to_contain_text("Deal 1 saved")
    back_online(phone)
    question = phone.locator("#offline-notice")
    mine = "Yours, entered on this phone, was not saved: Alice & Carla 6 + 0, Beppe & Dino 5 + 0."
    expect(question).to_contain_text(mine)

    enter_deal(phone, 7)  # the next deal, typed before choosing
    pending = phone.locator("#deal-rows tr.pending")
    expect(pending).to_have_count(2)
    expect(pending.nth(1).locator("th.num")).to_contain_text("2")
    expect(pending.nth(1).locator("td.side-0")).to_have_text("7")
    expect(phone.get_by_role("heading", name="Deal 3")).to_be_visible()  # after the rows
    # The deal that waits is still offered as it was typed, and nothing is sent meanwhile.
    expect(question).to_contain_text(mine)
    expect(question).to_be_in_viewport()
    expect(question.get_by_role("button", name=choice)).to_be_visible()
    assert stored() == [(1, 10)]

    question.get_by_role("button", name=choice).click()
    expect(pending).to_have_count(0)
    expect(phone.locator(f"#deal-{len(then)}")).to_be_visible()
    assert stored() == then
    assert Change.objects.filter(action="deal_recorded").count() == len(then)


def test_a_deal_waiting_for_the_choice_is_still_offered_after_a_reload(new_phone):
    phone, other = offline_beside_an_online_phone(new_phone)
    phone.context.set_offline(True)
    enter_deal(phone, 6)
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(1)
    enter_deal(other, 10)
    expect(other.locator("#saved")).to_contain_text("Deal 1 saved")
    back_online(phone)
    question = phone.locator("#offline-notice")
    expect(question.get_by_role("button", name="Add mine as deal 2")).to_be_visible()

    phone.reload()
    expect(question).to_contain_text("Deal 1 was just entered on another phone.")
    expect(question).to_contain_text("Alice & Carla 10, Beppe & Dino 1.")
    expect(question).to_contain_text(
        "Yours, entered on this phone, was not saved: Alice & Carla 6 + 0, Beppe & Dino 5 + 0."
    )
    enter_deal(phone, 7)  # queued behind it, as before the reload
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(2)
    question.get_by_role("button", name="Add mine as deal 2").click()
    expect(phone.locator("#deal-3")).to_be_visible()
    expect(phone.locator("#offline-notice")).to_have_count(0)
    assert stored() == [(1, 10), (2, 6), (3, 7)]


@pytest.mark.parametrize(
    ("kind", "choice", "sweeper"),
    [("Cappotto", ".side-choice", "Beppe & Dino"), ("Cappottone", ".player-choice", "Dino")],
)
def test_a_sweep_another_phone_beat_is_said_as_the_sweep_and_who_swept(
    new_phone, kind, choice, sweeper
):
    phone, other = offline_beside_an_online_phone(new_phone)
    phone.context.set_offline(True)
    form = phone.locator("#deal-form")
    form.get_by_label(kind, exact=True).check()
    form.locator(choice).get_by_text(sweeper, exact=True).click()
    phone.get_by_role("button", name="Save deal").click()  # no card points: a sweep's are implied
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(1)
    enter_deal(other, 6)
    expect(other.locator("#saved")).to_contain_text("Deal 1 saved")

    back_online(phone)
    question = phone.locator("#offline-notice")
    expect(question).to_contain_text(
        f"Yours, entered on this phone, was not saved: {kind} · {sweeper}."
    )
    expect(question).not_to_contain_text("0 + 0")  # nobody typed it
    assert stored() == [(1, 6)]


def test_a_refused_deal_gets_offline_the_words_it_gets_online(new_phone):
    online = new_phone()
    create_table_and_match(online)
    ready_offline(online)
    enter_deal(online, 6, da="7", db="7")
    said_online = online.locator("#deal-errors").inner_text()
    assert "cannot come from one 40-card deck" in said_online

    online.reload()
    online.context.set_offline(True)
    enter_deal(online, 6, da="7", db="7")
    expect(online.locator("#deal-errors")).to_have_text(said_online)
    expect(online.locator("#deal-rows tr.pending")).to_have_count(0)
    assert online.locator("#id_declared_points_1").input_value() == "7"  # kept to correct
    back_online(online)
    assert stored() == []


def test_offline_the_sheet_says_what_each_side_needs_and_stops_at_the_deal_that_decides(
    new_phone,
):
    phone = new_phone()
    create_table_and_match(phone)  # line 21
    ready_offline(phone)
    phone.context.set_offline(True)
    needs = phone.locator(".scoreboard .needs")
    enter_deal(phone, 6)
    expect(needs).to_have_text(["needs 15 more", "needs 16 more"])
    enter_deal(phone, 8, da="4")
    expect(phone.locator(".scoreboard .total")).to_have_text(["18", "8"])
    expect(needs).to_have_text(["needs 3 more", "needs 13 more"])
    expect(phone.locator("#deal-form")).to_be_visible()
    enter_deal(phone, 7)  # 25 to 12: decided, by the rules' own reckoning, on this phone
    expect(needs).to_have_text(["match won", ""])
    expect(phone.locator("#live")).to_contain_text("Deal 3 decides the match.")
    expect(phone.locator("#deal-form")).to_be_hidden()  # no deal after it: it would be refused
    assert stored() == []

    back_online(phone)
    expect(phone.get_by_role("button", name="End match")).to_be_visible()
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    assert stored() == [(1, 6), (2, 8), (3, 7)]


def test_offline_a_sweep_s_card_points_are_refused_on_the_phone_and_corrected_in_the_form(
    new_phone,
):
    phone = new_phone()
    create_table_and_match(phone)
    ready_offline(phone)
    phone.context.set_offline(True)
    enter_deal(phone, 5, kind="Stramazzo", side="Alice & Carla")  # card points the rules refuse
    expect(phone.locator("#deal-errors")).to_have_text(
        "In a stramazzo Alice & Carla took every card point, so their card points are 11, or 10"
        " if the other side took the last trick."
    )
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    phone.locator("#deal-form").get_by_label("Cappotto", exact=True).check()  # 11 to 0, then
    phone.get_by_role("button", name="Save deal").click()
    expect(phone.locator("#live")).to_contain_text("Deal 1 decides the match.")
    expect(phone.locator("#deal-form")).to_be_hidden()
    assert stored() == []

    back_online(phone)
    expect(phone.get_by_role("button", name="End match")).to_be_visible()
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    assert stored() == [(1, 11)]


def test_offline_a_claim_decides_the_match_and_one_refused_is_corrected_in_the_form(new_phone):
    phone = new_phone()
    create_table_and_match(phone, claims=True)
    ready_offline(phone)
    phone.context.set_offline(True)
    enter_deal(phone, "", kind="Claim", side="Alice & Carla")  # no card points: the server's say
    expect(phone.locator("#live")).to_contain_text("Deal 1 decides the match.")
    expect(phone.locator("#deal-form")).to_be_hidden()

    back_online(phone)
    refused = phone.locator("#offline-notice")
    expect(refused).to_contain_text("Deal 1, entered on this phone, was not saved")
    expect(refused).to_contain_text("Correct it in the form and save it, or discard it.")
    expect(phone.locator("#deal-form")).to_be_visible()  # refused, it decides nothing
    refused.get_by_role("button", name="Discard mine").click()
    expect(phone.locator("#deal-errors, #deal-form .errorlist")).to_have_count(0)
    enter_deal(phone, 11, kind="Cappotto", side="Alice & Carla")
    expect(phone.get_by_role("button", name="End match")).to_be_visible()
    assert stored() == [(1, 11)]


@pytest.mark.parametrize(
    ("rule", "last"),
    [
        ("Higher total wins; equal totals play another deal", (6, 5, 6, 5)),  # 22 to 22
        ("Always play another deal", (6, 5, 6, 6)),  # 23 to 21: both past, unequal
    ],
)
def test_offline_both_sides_past_the_line_play_another_deal_as_the_tie_rule_says(
    new_phone, rule, last
):
    phone = new_phone()
    create_table_and_match(phone, tie_rule=rule)
    ready_offline(phone)
    phone.context.set_offline(True)
    for points in last:
        enter_deal(phone, points)
    expect(phone.locator("#live")).to_contain_text("by the agreed tie rule, play another deal")
    expect(phone.locator(".scoreboard .needs")).to_have_text(["at the line", "at the line"])
    expect(phone.locator("#deal-form")).to_be_visible()
    enter_deal(phone, 6)  # one side ahead after it: the higher total wins
    expect(phone.locator("#live")).to_contain_text("Deal 5 decides the match.")
    expect(phone.locator("#deal-form")).to_be_hidden()


def test_a_deal_the_server_refuses_stops_the_queue_to_be_discarded(new_phone):
    phone, other = offline_beside_an_online_phone(new_phone)
    phone.context.set_offline(True)
    enter_deal(phone, 6)  # kept on the phone, while another phone stops the match
    other.get_by_role("link", name="Match settings").click()
    other.get_by_role("button", name="Stop the match, undecided").click()
    expect(other.locator(".result")).to_contain_text("undecided")

    back_online(phone)
    refused = phone.locator("#offline-notice")
    expect(refused).to_contain_text("Deal 1, entered on this phone, was not saved")
    expect(refused).to_contain_text("This match was stopped. Reopen it to change it.")
    expect(refused).to_contain_text("Discard it to go on.")  # no form to correct it in
    expect(phone.locator("#offline-copy")).to_have_count(0)  # the server's sheet on screen
    expect(phone.locator("#notices .error")).to_have_count(0)  # said once, in the notice
    refused.get_by_role("button", name="Discard mine").click()
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    expect(phone.locator("#offline-notice")).to_have_count(0)
    assert stored() == []


def test_the_queue_survives_a_reload_and_a_change_of_language(new_phone):
    phone = new_phone()
    create_table_and_match(phone, line="41")
    ready_offline(phone)
    record = phone.url + "deals"
    phone.route(record, lambda route: route.abort())  # online, but the save never arrives
    enter_deal(phone, 8)
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(1)
    phone.reload()
    expect(phone.locator("#deal-rows tr.pending")).to_contain_text("waiting to be sent")
    phone.locator("#language").select_option("it")
    phone.get_by_role("button", name="Change").click()
    expect(phone.locator("#deal-rows tr.pending")).to_contain_text("in attesa di invio")
    assert stored() == []

    phone.unroute(record)
    phone.context.set_offline(True)
    back_online(phone)
    expect(phone.locator("#deal-1")).to_be_visible()
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    assert stored() == [(1, 8)]


def test_the_queue_survives_closing_the_browser(browser, live_server, tmp_path):
    options = {**PHONE, "base_url": live_server.url}
    launch = browser.browser_type.launch_persistent_context

    def open_browser():
        context = launch(tmp_path, executable_path=CHROMIUM, args=CHROMIUM_ARGS, **options)
        context.set_default_timeout(10_000)
        return context

    context = open_browser()
    phone = scripted(context.pages[0])
    create_table_and_match(phone, line="41")
    sheet = phone.url
    ready_offline(phone)
    context.set_offline(True)
    enter_deal(phone, 8)
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(1)
    context.close()

    context = open_browser()
    phone = scripted(context.pages[0])
    context.set_offline(True)
    phone.goto(sheet)
    expect(phone.locator("#offline-copy")).to_be_visible()
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(1)
    back_online(phone)
    expect(phone.locator("#deal-1")).to_be_visible()
    assert stored() == [(1, 8)]
    context.close()


def test_two_tabs_coming_online_at_once_store_each_deal_once(new_phone):
    phone = new_phone()
    create_table_and_match(phone, line="41")
    ready_offline(phone)
    tab = scripted(phone.context.new_page())
    tab.goto(phone.url)
    phone.context.set_offline(True)
    for points in (6, 5, 7):
        enter_deal(phone, points)
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(3)
    expect(tab.locator("#deal-rows tr.pending")).to_have_count(3)  # drawn in the other tab too

    back_online(phone)
    expect(phone.locator("#deal-3")).to_be_visible()
    expect(tab.locator("#deal-3")).to_be_visible()
    assert stored() == [(1, 6), (2, 5), (3, 7)]
    assert Change.objects.filter(action="deal_recorded").count() == 3


@pytest.mark.parametrize(
    "device",
    [
        {"viewport": {"width": 360, "height": 740}, "color_scheme": "light"},
        {"color_scheme": "dark"},  # a Pixel 7's size
    ],
)
def test_while_deals_wait_the_last_deals_the_delete_button_and_the_chart_agree(new_phone, device):
    phone = new_phone(**device)
    create_table_and_match(phone, line="41")
    enter_deal(phone, 8, da="3")
    ready_offline(phone)
    expect(phone.locator("#deal-rows tr")).to_have_count(1)
    expect(phone.get_by_role("button", name="Delete deal 1")).to_be_visible()
    expect(phone.locator("#chart")).to_be_visible()

    phone.context.set_offline(True)
    enter_deal(phone, 6)
    enter_deal(phone, 5)
    # At the foot of the deals, the two waiting, in the sheet's columns.
    shown = phone.locator("#deal-rows tr.pending")
    expect(shown).to_have_count(2)
    expect(shown.nth(0)).to_contain_text("waiting to be sent")
    expect(shown.locator("th.num")).to_contain_text(["2", "3"])
    expect(shown.nth(1).locator(".run")).to_contain_text("22–14")
    expect(phone.locator(".scoreboard .total")).to_have_text(["22", "14"])
    # Nothing acts on deal 1, or draws the deals without the waiting ones.
    expect(phone.get_by_role("button", name=re.compile("Delete deal"))).to_have_count(0)
    expect(phone.locator("#chart")).to_be_hidden()
    assert phone.evaluate("() => document.documentElement.scrollWidth - innerWidth") <= 0

    back_online(phone)
    expect(phone.locator("#deal-3")).to_be_visible()  # both sent, in order
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    expect(phone.locator("#deal-rows tr:visible")).to_have_count(3)
    expect(phone.get_by_role("button", name="Delete deal 3")).to_be_visible()
    expect(phone.locator("#chart")).to_be_visible()
    assert stored() == [(1, 8), (2, 6), (3, 5)]
