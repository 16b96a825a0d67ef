"""A Trešeta table in Croatian, at 360 px: a whole match to 41 with akuže, and one at 31
without them."""

import pytest
from django.utils import translation
from playwright.sync_api import expect

from matches import services
from matches.models import Match
from tests.browser.conftest import scripts_ran

pytestmark = pytest.mark.django_db(transaction=True)

SMALL = {"viewport": {"width": 360, "height": 740}, "locale": "hr-HR"}


def hr(message: str, **params) -> str:
    with translation.override("hr"):
        return translation.gettext(message) % params


def new_match(page, house_line: str) -> None:
    """A table, joined through its scorer link, and a match of four from a house line."""
    table = services.create_table(name="Konoba Tramontana")
    page.goto(f"/join/{table.scorer_token}/")
    page.locator("main form button[type=submit]").click()
    page.goto(f"/t/{table.viewer_token}/matches/new")
    for field, name in zip(
        page.locator("input[list=known-players]").all(),
        ["Ante", "Mate", "Jure", "Ive"],
        strict=True,
    ):
        field.fill(name)
    page.get_by_role("button", name=house_line).click()
    page.locator("#new-match button[type=submit]").click()
    expect(page.locator("#deal-form")).to_be_visible()
    scripts_ran(page)


def save(page, card_points: int, declared: str = "") -> None:
    page.locator("#id_card_points_0").fill(str(card_points))
    if declared:
        page.locator("#id_declared_points_0").fill(declared)
    page.locator("#deal-form button.save").click()


def test_a_trešeta_match_to_41_with_akuže_in_croatian_at_360_px(new_phone, screenshot):
    page = new_phone(**SMALL)
    new_match(page, hr("%(line)s, with declarations", line=41))
    assert page.locator("html").get_attribute("lang") == "hr"
    match = Match.objects.get()
    assert (match.line, match.declarations_allowed) == (41, True)
    for number, total in enumerate((11, 22, 33, 44), start=1):
        save(page, 8, declared="3")
        expect(page.locator(".scoreboard .total").first).to_have_text(str(total))
        expect(page.locator(f"#deal-{number}")).to_be_visible()
    screenshot(page, "treseta-41-decided")
    page.locator("#end-match").click()
    expect(page.locator(".result")).to_be_visible()
    match.refresh_from_db()
    assert (match.status, match.winner, match.totals) == ("finished", 0, (44, 12))
    with translation.override("hr"):
        won = translation.ngettext(
            "<strong>%(side)s</strong> won the match (%(reason)s).",
            "<strong>%(side)s</strong> won the match (%(reason)s).",
            2,
        )
        reason = translation.gettext("reached the line")
    said = won.replace("<strong>", "").replace("</strong>", "")
    expect(page.locator(".result .big")).to_have_text(
        said % {"side": "Ante & Mate", "reason": reason}
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "treseta-41-won")


def test_a_match_at_31_without_akuže_asks_no_declarations(new_phone):
    page = new_phone(**SMALL)
    new_match(page, hr("%(line)s, without declarations", line=31))
    match = Match.objects.get()
    assert (match.line, match.declarations_allowed) == (31, False)
    assert page.locator("#id_declared_points_0").count() == 0
    expect(page.locator("#live .meta")).to_contain_text(hr("no declarations"))
    save(page, 7)
    expect(page.locator("#deal-1")).to_be_visible()
    assert match.deals.get().points == (7, 4)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
