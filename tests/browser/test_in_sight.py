"""What a new player looks for on the sheet is in sight without searching (a trial at the
table): on deal 1 every key clear of the sticky Save, the totals at the top of the screen when
the sheet opens, End match in sight once a deal decides the match, and a long name inside its
chip. At 360x740 and on a Pixel 7."""

import pytest
from playwright.sync_api import expect

from matches import rules, services
from tests.browser.test_entry import IN_VIEW, UNCOVERED, key, tap
from tests.browser.test_words import FRANJO, GIOVANNI, MARIA
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db(transaction=True)

PHONES = {"360x740": (360, 740), "pixel-7": (412, 915)}
LONG_NAMES = [[MARIA, GIOVANNI], [FRANJO, "Ante"]]
EIGHT_DEALS = [((8, 3), (0, 0)), ((5, 6), (0, 0))] * 4  # 52 to 36 at a line of 101
# The deals' rows drawn on the screen now, wholly or in part (a pixel's slip aside), unless the
# page is scrolled to its end: the totals are then as high as it lets them go.
ROWS_IN_SIGHT = """() => innerHeight + scrollY >= document.documentElement.scrollHeight - 1 ? [] :
  [...document.querySelectorAll("#deal-rows tr")].filter(row => {
    const box = row.getBoundingClientRect();
    return box.bottom > 1 && box.top < innerHeight - 1;
  }).map(row => row.id)"""
# Whole on the screen, give or take the fraction of a pixel a scroll may leave.
WHOLE = """element => {
  const box = element.getBoundingClientRect();
  return box.height > 0 && box.top > -1 && box.bottom < innerHeight + 1;
}"""


def open_match(
    new_phone, *, players, deals=(), line=101, claims=False, size=(360, 740), scorer=True
):
    """A phone opening by its link a match of these deals, as a scorer or watching."""
    table = TableFactory(name="Bar Sport")
    settings = rules.MatchSettings(line=line, claims_allowed=claims)
    match = services.start_match(table=table, players=players, settings=settings)
    for number, entry in enumerate(deals, start=1):
        services.record_deal(match_id=match.pk, number=number, entry=rules.DealEntry(*entry))
    page = new_phone(viewport={"width": size[0], "height": size[1]})
    if scorer:
        page.goto(f"/join/{table.scorer_token}/")
        page.locator("main form button[type=submit]").click()
        page.wait_for_url(f"**/t/{table.viewer_token}/**")
    page.goto(f"/t/{table.viewer_token}/m/{match.pk}/")
    return page


def every_key_clear_of_save(page) -> None:
    assert page.locator("#deal-form button.save").evaluate(IN_VIEW)
    keys = page.locator("#deal-form .pad input").all()
    assert len(keys) == 24
    hidden = [
        k.get_attribute("id") for k in keys if not (k.evaluate(IN_VIEW) and k.evaluate(UNCOVERED))
    ]
    assert hidden == []


@pytest.mark.parametrize("phone", PHONES)
def test_on_deal_1_every_key_is_clear_of_the_sticky_save_whatever_the_names(new_phone, phone):
    page = open_match(new_phone, players=LONG_NAMES, size=PHONES[phone])
    expect(page.locator("#entry-next h2")).to_have_text("Deal 1")
    every_key_clear_of_save(page)
    assert page.locator("#live .scoreboard").evaluate(IN_VIEW)
    tap(page, key(page, 1, 7))  # a key of the pads' last row, and Save: deal 1 is entered
    tap(page, page.locator("#deal-form button.save"))
    expect(page.locator("#deal-1 .run")).to_have_text("4–7")


@pytest.mark.parametrize("phone", PHONES)
@pytest.mark.parametrize("scorer", [True, False], ids=["scorer", "watching"])
def test_a_sheet_opens_with_its_totals_at_the_top_of_the_screen(new_phone, phone, scorer):
    page = open_match(
        new_phone, players=LONG_NAMES, deals=EIGHT_DEALS, size=PHONES[phone], scorer=scorer
    )
    expect(page.locator("#live .total")).to_have_text(["52", "36"])
    assert page.locator("#live .scoreboard").evaluate(WHOLE)
    assert page.evaluate(ROWS_IN_SIGHT) == []  # no deal above them: the totals come first
    if scorer:  # and under them the next deal's keys, each a tap away
        every_key_clear_of_save(page)


# The form's controls the Save bar's top edge cuts in two: a sliver in sight, too thin to tap.
CUT_BY_SAVE = """() => {
  const bar = document.querySelector("#deal-form .save-bar");
  const edge = bar.getBoundingClientRect().top;
  return [...document.querySelectorAll("#deal-form :is(button, summary, label, input)")]
    .filter(control => !bar.contains(control) && control.getClientRects().length)
    .filter(control => {
      const box = control.getBoundingClientRect();
      return box.top < edge - 0.5 && box.bottom > edge + 0.5;
    }).map(control => control.outerHTML.slice(0, 80));
}"""


@pytest.mark.parametrize("deals", [EIGHT_DEALS, EIGHT_DEALS[:1]], ids=["8-deals", "1-deal"])
@pytest.mark.parametrize("phone", PHONES)
def test_a_sheet_opens_with_no_control_cut_by_the_save_bar(new_phone, phone, deals):
    page = open_match(new_phone, players=LONG_NAMES, deals=deals, size=PHONES[phone])
    expect(page.locator("#live .total")).to_have_count(2)
    page.wait_for_function("() => scrollY > 0")  # opened, and scrolled as a sheet opens
    assert page.evaluate(CUT_BY_SAVE) == []
    every_key_clear_of_save(page)


def test_a_right_claim_that_decides_the_match_brings_end_match_into_sight(new_phone):
    # 17 to 8 at a line of 21: Alice & Carla claim with 4 card points won so far.
    players = [["Alice", "Carla"], ["Beppe", "Dino"]]
    page = open_match(
        new_phone, players=players, deals=[((8, 3), (3, 0)), ((6, 5), (0, 0))], line=21, claims=True
    )
    page.locator("#deal-form .kind input[value=claim]").check()
    page.locator("#deal-form .side-choice input[value='0']").check()
    page.locator("#id_card_points_0").fill("4")
    page.locator("#deal-form button.save").click()
    end = page.locator("#end-match")
    expect(end).to_be_visible()
    expect(page.locator("#saved")).to_be_focused()  # the answer has settled
    assert end.evaluate(IN_VIEW) and end.evaluate(UNCOVERED)
    for shown in ("#live .scoreboard", ".decided p", "#saved"):  # the totals, the verdict, Undo
        assert page.locator(shown).evaluate(WHOLE), shown
    tap(page, end)
    expect(page.locator(".result")).to_contain_text("Alice & Carla won the match")


def test_a_decided_match_opened_again_shows_end_match(new_phone):
    players = [["Alice", "Carla"], ["Beppe", "Dino"]]
    page = open_match(new_phone, players=players, deals=EIGHT_DEALS[:7], line=41)  # 47 to 30
    expect(page.locator(".decided")).to_be_visible()
    page.evaluate("scrollTo(0, 0)")  # back up to deal 1
    end = page.locator("#end-match")
    assert end.evaluate(IN_VIEW) and end.evaluate(UNCOVERED)


def test_a_name_of_39_letters_stays_inside_its_chip_when_the_pile_is_counted(new_phone):
    name = "Bartolomeo" * 3 + "Santangel"  # 39 letters, no space to wrap at
    page = open_match(new_phone, players=[[name, "Carla"], ["Beppe", "Dino"]])
    page.locator("#deal-form details.count summary").click()
    chips = page.locator("#deal-form details.count .chip")
    expect(chips.first).to_be_visible()
    for chip in chips.all():
        inside = chip.evaluate(
            """chip => {
              const box = chip.getBoundingClientRect();
              const text = chip.querySelector(".clip").getBoundingClientRect();
              return chip.scrollWidth <= chip.clientWidth + 1 && text.right <= box.right + 1
                && box.right <= innerWidth;
            }"""
        )
        assert inside, chip.inner_text()
