"""Every phone at the table following along (issue 50): a match started on another phone
reaches the table's page, a deal another phone entered is marked with who entered it, and a
deal taken back on another phone is said, with nothing to undo the correction by. At 360x740
and a Pixel 7's size, light and dark, in Italian, English and Croatian."""

import pytest
from playwright.sync_api import expect

from matches.models import Table
from tests.browser.conftest import SIDEWAYS, scripts_ran
from tests.browser.test_sheet import create_table_and_match, enter_deal

pytestmark = pytest.mark.django_db(transaction=True)

SMALL = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2}
PIXEL_7 = {}  # conftest's PHONE
# What each phone at the table is: a size, a colour scheme, a language.
PHONES = [
    pytest.param({**SMALL, "color_scheme": "light", "locale": "it-IT"}, "it", id="360-light-it"),
    pytest.param({**PIXEL_7, "color_scheme": "dark", "locale": "en-US"}, "en", id="7-dark-en"),
    pytest.param({**SMALL, "color_scheme": "dark", "locale": "hr-HR"}, "hr", id="360-dark-hr"),
    pytest.param({**PIXEL_7, "color_scheme": "light", "locale": "hr-HR"}, "hr", id="7-light-hr"),
]
NAME = "Maria Grazia Santangelo"  # the phone's name, as long as names come
SAID = {
    "it": {
        "no matches": "Ancora nessuna partita.",
        "in progress": "in corso",
        "entered": f"Smazzata 1 · inserita da {NAME}",
        "taken back": f"La smazzata 1 è stata annullata da {NAME}. "
        "Resta nello storico della partita.",
        "restore": "Ripristina",
    },
    "en": {
        "no matches": "No matches yet.",
        "in progress": "in progress",
        "entered": f"Deal 1 · entered by {NAME}",
        "taken back": f"Deal 1 was taken back by {NAME}. The match history keeps it.",
        "restore": "Restore",
    },
    "hr": {
        "no matches": "Još nema partija.",
        "in progress": "u tijeku",
        "entered": f"Dijeljenje 1 · upis: {NAME}",
        "taken back": f"{NAME}: dijeljenje 1 povučeno. Ostaje zapisano u povijesti partije.",
        "restore": "Vrati",
    },
}
# Nothing on the page wider than the screen.


def join(page, label: str = "") -> None:
    """This phone joins the table as a scorer, under `label`, in whatever language it speaks."""
    page.goto(f"/join/{Table.objects.get().scorer_token}/")
    if label:
        page.locator("#id_label").fill(label)
    page.locator("main form button[type=submit]").click()


@pytest.mark.parametrize(("device", "language"), PHONES)
def test_a_second_phone_on_the_table_page_sees_a_new_match_and_a_rematch_unreloaded(
    new_phone, device, language
):
    said = SAID[language]
    first = new_phone()
    first.goto("/")
    first.get_by_label("Table name").fill("Bar Sport")
    first.get_by_role("button", name="Create table").click()
    table_page = first.url.split("?")[0]
    second = new_phone(**device)
    second.goto(table_page)
    listed = second.locator("#matches .list li")
    expect(listed).to_have_text([said["no matches"]])
    second.evaluate("() => { window.unreloaded = true; }")

    # A match on this table, started on the first phone.
    first.get_by_role("link", name="New match").click()
    scripts_ran(first)
    fields = first.locator("input[list=known-players]")
    expect(fields).to_have_count(4)
    for field, name in zip(fields.all(), ["Alice", "Carla", "Beppe", "Dino"], strict=True):
        field.fill(name)
    first.get_by_role("button", name="Start match").click()
    expect(first.get_by_role("heading", name="Deal 1")).to_be_visible()

    rows = second.locator("#matches .list a.row")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Alice & Carla – Beppe & Dino")
    expect(rows.first).to_contain_text(said["in progress"])
    assert second.evaluate("() => window.unreloaded") is True  # it came by itself
    assert second.evaluate(SIDEWAYS) <= 0

    enter_deal(first, 11, kind="Cappotto", side="Alice & Carla")
    first.get_by_role("button", name="End match").click()
    first.get_by_role("button", name="Rematch").click()
    expect(first.get_by_role("heading", name="Deal 1")).to_be_visible()
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text(said["in progress"])  # the rematch, above the match won
    assert second.evaluate("() => window.unreloaded") is True


@pytest.mark.parametrize(("device", "language"), PHONES)
def test_a_deal_entered_then_taken_back_on_another_phone_is_said_and_offers_no_restore(
    new_phone, device, language, screenshot
):
    said = SAID[language]
    first = new_phone()
    create_table_and_match(first)
    sheet = first.url
    join(first, NAME)  # the name the history shows beside this phone's changes
    first.goto(sheet)
    second = new_phone(**device)
    join(second)
    second.goto(sheet)

    enter_deal(first, 8, da="3")
    expect(first.locator("#saved")).to_be_visible()
    # The deal reaches the other phone marked, with who entered it right above it.
    arrived = second.locator("#arrived-by")
    expect(arrived).to_have_text(said["entered"])
    marked = second.locator("#deal-1")
    expect(marked).to_have_attribute("data-arrived", "")
    # The deal at the foot of the column, the totals under it, then who entered it: all in
    # sight at once.
    expect(marked).to_be_in_viewport()
    expect(arrived).to_be_in_viewport()
    assert marked.bounding_box()["y"] < arrived.bounding_box()["y"]
    assert second.evaluate(SIDEWAYS) <= 0
    screenshot(second, f"arrived-{language}-{device.get('color_scheme')}")

    first.locator("#saved").get_by_role("button", name="Undo").click()
    expect(first.locator("#deleted")).to_contain_text("Deal 1 taken back")
    told = second.locator("#deleted-elsewhere")
    expect(told).to_have_text(said["taken back"])
    expect(second.locator("#deal-1")).to_have_count(0)
    expect(second.get_by_role("button", name=said["restore"])).to_have_count(0)
    expect(second.locator("#arrived-by")).to_have_count(0)
    # Neutral: not in a warning's colours.
    warning = second.evaluate("""() => {
      const p = document.createElement("p");
      p.className = "notice warn";
      document.getElementById("sheet").append(p);
      const colour = getComputedStyle(p).backgroundColor;
      p.remove();
      return colour;
    }""")
    assert told.evaluate("e => getComputedStyle(e).backgroundColor") != warning
    screenshot(second, f"taken-back-{language}-{device.get('color_scheme')}")


def test_a_table_page_whose_poll_fails_says_so_in_its_list_and_catches_up(phone):
    phone.goto("/")
    phone.get_by_label("Table name").fill("Bar Sport")
    phone.get_by_role("button", name="Create table").click()
    expect(phone.get_by_role("heading", name="Bar Sport")).to_be_visible()

    def polling(request):  # the list polls every few seconds: the test waits for one
        return "poll=1" in request.url

    with phone.expect_event("requestfailed", polling):
        phone.route("**/*poll=1*", lambda route: route.abort())
    said = phone.locator("#matches #request-failed-notice")
    expect(said).to_have_text(
        "The list of matches cannot update right now: it may be out of date. "
        "It catches up by itself as soon as it can."
    )
    assert not phone.evaluate("() => document.activeElement.closest('#matches')")  # no focus
    with phone.expect_event("requestfinished", polling):
        phone.unroute("**/*poll=1*")
    expect(said).to_have_count(0)
