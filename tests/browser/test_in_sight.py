"""What a new player looks for on the sheet is in sight without searching (a trial at the
table): End match in sight once a deal decides the match, and a long name inside its chip.
At 360x740."""

import pytest
from playwright.sync_api import expect

from matches import rules, services
from tests.browser.test_entry import IN_VIEW, UNCOVERED, tap
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db(transaction=True)

EIGHT_DEALS = [((8, 3), (0, 0)), ((5, 6), (0, 0))] * 4  # 52 to 36 at a line of 101
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
