"""What a new player looks for on the sheet is in sight without searching (a trial at the
table): a long name inside its chip. At 360x740."""

import pytest
from playwright.sync_api import expect

from matches import rules, services
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db(transaction=True)


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
