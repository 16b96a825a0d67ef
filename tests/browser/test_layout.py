"""The sheet at a table, on a phone (issue: the sheet at 360 px): long names whole, the deal
just saved in sight with the totals and the next deal's form, nothing under the sticky Save,
nothing scrolling sideways. At 360x740 and 412x915, in Italian and English."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import scripts_ran
from tests.browser.test_sheet import create_table_and_match

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = [(360, 740), (412, 915)]
NAMES = ["Alessandra", "Carlotta", "Beppe", "Domenico"]

IN_VIEW = """selectors => selectors.map(selector => {
  const box = document.querySelector(selector).getBoundingClientRect();
  return box.top >= 0 && box.bottom <= window.innerHeight;
})"""
# Each control of the entry form, scrolled into view: is it what a tap at its centre finds?
COVERED = """() => [...document.querySelectorAll(
    "#deal-form input:not([type=hidden]), #deal-form button, #deal-form summary")]
  .filter(control => control.checkVisibility())
  .filter(control => {
    control.scrollIntoView({block: "nearest"});
    const box = control.getBoundingClientRect();
    const found = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return !(found && (control === found || control.contains(found) || found.contains(control)
      || (control.labels && [...control.labels].some(label => label.contains(found)))));
  }).map(control => control.name || control.textContent.trim())"""
# Names drawn wider than their box: cut off, or spilling out.
CUT = """() => [...document.querySelectorAll(".side-name, .side-entry > legend, .clip")]
  .filter(name => name.checkVisibility() && name.scrollWidth > name.clientWidth + 1)
  .map(name => name.textContent.trim())"""


def save(page, card_points: int) -> None:
    page.locator("#id_card_points_0").fill(str(card_points))
    page.locator("#deal-form button.save").click()


@pytest.mark.parametrize("language", ["it", "en"])
@pytest.mark.parametrize("size", SIZES)
def test_after_each_save_the_deal_the_totals_and_the_form_are_in_sight(new_phone, size, language):
    page = new_phone(viewport={"width": size[0], "height": size[1]}, locale=language)
    if language == "it":
        create_italian(page)
    else:
        create_table_and_match(page, line="41", names=NAMES)
    for number, points in enumerate((8, 6, 7), start=1):
        save(page, points)
        expect(page.locator("#saved")).to_be_focused()  # the answer has settled
        expect(page.locator("#deal-rows tr").last).to_contain_text(f"{number}")
        shown = page.evaluate(
            IN_VIEW, ["#deal-rows tr:last-child", ".scoreboard", "#saved", "#deal-form h2"]
        )
        assert shown == [True, True, True, True], (number, shown)
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    assert page.evaluate(CUT) == []
    assert page.evaluate(COVERED) == []


def create_italian(page) -> None:
    """The same match as create_table_and_match, through the Italian pages."""
    page.goto("/")
    page.locator("input[name=name]").first.fill("Bar Sport")
    page.locator("input[name=name]").first.press("Enter")
    page.locator("a[href$='/matches/new']").first.click()
    fields = page.locator("input[list=known-players]")
    expect(fields).to_have_count(len(NAMES))  # the new-match page is loaded (all() waits not)
    for field, name in zip(fields.all(), NAMES, strict=True):
        field.fill(name)
    page.locator("input[name=line]").fill("41")
    page.locator("#new-match button[type=submit]").click()
    expect(page.locator("#deal-form")).to_be_visible()
    scripts_ran(page)


def test_a_link_goes_to_the_table_s_chat_through_the_phone_s_share_sheet(new_phone):
    page = new_phone(viewport={"width": 360, "height": 740})
    page.add_init_script("navigator.share = async data => { window.shared = data; };")
    create_table_and_match(page)
    page.locator("a.crumb").click()
    share = page.locator("#share-scorer")
    expect(share).to_be_visible()
    share.click()
    page.wait_for_function("() => window.shared !== undefined")
    assert page.evaluate("window.shared.url") == page.locator("#scorer-url").input_value()


def test_without_a_share_sheet_there_is_no_share_button(new_phone):
    page = new_phone(viewport={"width": 360, "height": 740})
    page.add_init_script("delete Navigator.prototype.share; delete navigator.share;")
    create_table_and_match(page)
    page.locator("a.crumb").click()
    expect(page.locator("#copy-scorer")).to_be_visible()
    assert page.locator("#share-scorer").is_hidden()


@pytest.mark.parametrize("size", SIZES)
def test_the_stats_fit_a_phone_each_player_a_card(new_phone, size):
    page = new_phone(viewport={"width": size[0], "height": size[1]})
    create_table_and_match(page, names=NAMES)
    for points in (8, 8, 8):
        save(page, points)
        expect(page.locator("#saved")).to_be_focused()
    page.locator("#end-match").click()
    expect(page.locator(".result")).to_be_visible()
    page.locator("a.crumb").click()
    page.goto(page.url + "stats")
    sideways = page.evaluate(
        "[...document.querySelectorAll('.card, .table-scroll, .records')]"
        ".filter(e => e.scrollWidth > e.clientWidth).map(e => e.className)"
    )
    assert sideways == []
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    expect(page.locator(".records td .cell-label").first).to_be_visible()
