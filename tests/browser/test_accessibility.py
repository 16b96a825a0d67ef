"""axe-core finds no violations on any page, in both languages and both colour schemes."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from matches import rules, services
from matches.models import Match
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db(transaction=True)

AXE = Axe()


def pages_to_check(phone):
    """Every kind of page, with data on it, opened as a joined scorer."""
    table = TableFactory(name="Bar Sport")
    match = services.start_match(table=table, players=[["Alice", "Carla"], ["Beppe", "Dino"]])
    for number, points in enumerate((8, 7), start=1):
        entry = rules.DealEntry(card_points=(points, 11 - points), declared_points=(3, 0))
        services.record_deal(match_id=match.pk, number=number, entry=entry, by="Carla's phone")
    finished = services.start_match(table=table, players=[["Alice"], ["Beppe"]])
    sweep = rules.DealEntry(card_points=(11, 0), declared_points=(0, 0), kind="cappotto", side=0)
    services.record_deal(match_id=finished.pk, number=1, entry=sweep)
    services.end_match(match=finished)
    phone.goto(f"/join/{table.scorer_token}/")
    phone.locator("form:has(#id_label) button[type=submit]").click()  # as a scorer
    phone.wait_for_url(f"**/t/{table.viewer_token}/**")
    base = f"/t/{table.viewer_token}/"
    return [
        "/",
        f"/join/{table.scorer_token}/",
        base,
        base + "matches/new",
        base + "stats",
        f"{base}m/{match.pk}/",
        f"{base}m/{finished.pk}/",
        f"{base}m/{match.pk}/deals/1/edit",
        f"{base}m/{match.pk}/history",
        f"{base}m/{match.pk}/settings",
        "/offline",
        "/no-such-page",
    ]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("locale", ["en-US", "it-IT"])
def test_no_page_has_an_accessibility_violation(new_phone, locale, scheme):
    phone = new_phone(locale=locale, color_scheme=scheme)
    found = {}
    for url in pages_to_check(phone):
        phone.goto(url)
        results = AXE.run(phone)
        if results.violations_count:
            found[url] = results.generate_report()
    assert not found, "\n".join(f"{url}:\n{report}" for url, report in found.items())


def test_every_page_is_usable_at_200_percent_zoom_on_a_small_phone(new_phone):
    # 200% zoom on a 412 px wide phone leaves 206 CSS pixels.
    phone = new_phone(viewport={"width": 206, "height": 457})
    wide = {}
    for url in pages_to_check(phone):
        phone.goto(url)
        width = phone.evaluate("document.documentElement.scrollWidth")
        if width > 206:
            wide[url] = width
    assert not wide


def test_a_phone_set_to_large_text_still_shows_every_deals_points(new_phone):
    """The phone's own text size doubled (the browser's default font at 32 px): the deals'
    fixed columns once took the whole width, leaving the sides' points 0 px wide. The page
    itself never scrolls sideways."""
    phone = new_phone(viewport={"width": 320, "height": 700})
    pages = pages_to_check(phone)
    phone.add_init_script(
        "document.addEventListener('DOMContentLoaded', () => {"
        "document.documentElement.style.fontSize = '32px'; })"
    )
    for url in (pages[5], pages[6], "/"):
        phone.goto(url)
        assert phone.evaluate("document.documentElement.scrollWidth") <= 320, url
    phone.goto(pages[5])
    widths = phone.locator(".deals thead th").evaluate_all(
        "cells => cells.map(cell => cell.getBoundingClientRect().width)"
    )
    # Room for "11" at that size (the deals scroll sideways in their wrap if they must).
    assert widths[1] >= 80 and widths[2] >= 80, widths
    assert phone.evaluate("getComputedStyle(document.body).fontSize") == "32px"


def test_the_pencil_keeps_its_whole_target_on_a_small_phone(new_phone):
    phone = new_phone(viewport={"width": 320, "height": 700})
    pages = pages_to_check(phone)
    phone.goto(pages[5])  # the match in progress, as a scorer: a pencil on each deal
    pencil = phone.locator(".deals .change .button").first
    cell = phone.locator(".deals td.change").first
    box, room = pencil.bounding_box(), cell.bounding_box()
    assert box["width"] >= 44 and box["x"] >= room["x"]
    assert box["x"] + box["width"] <= room["x"] + room["width"] + 0.5


def test_at_320_px_the_stats_are_cards_with_every_figure_in_sight(new_phone):
    phone = new_phone(viewport={"width": 320, "height": 700})
    phone.goto(pages_to_check(phone)[4])
    region = phone.get_by_role("region", name="Players")
    alice = region.locator("tr", has_text="Alice")
    expect(alice.locator("td:has(.cell-label)")).to_have_count(6)
    for figure in alice.locator("td").all():  # Played … Streak, each labelled
        box = figure.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 320
    assert region.evaluate("region => region.scrollWidth <= region.clientWidth")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 320


def test_each_copy_button_says_which_link_it_copies(new_phone):
    phone = new_phone()
    base = pages_to_check(phone)[2]
    phone.goto(base)
    for name in ("Copy Scorer link", "Copy View-only link"):
        assert phone.get_by_role("button", name=name, exact=True).count() == 1


def test_a_screen_reader_can_go_from_section_to_section_of_the_sheet(new_phone):
    phone = new_phone()
    sheet = pages_to_check(phone)[5]  # a match whose two deals decided it
    match = Match.objects.get(pk=sheet.rstrip("/").rsplit("/", 1)[1])
    services.delete_last_deal(match=match, number=2)  # in progress again
    phone.goto(sheet)
    headings = phone.get_by_role("heading", level=2).all_inner_texts()
    names = [name.strip() for name in headings]  # visually hidden ones too
    assert names == ["Deals", "Score", "Deal 2", "History of changes"]
    phone.get_by_role("link", name="Match settings").click()  # on a page of their own
    expect(phone.get_by_role("heading", level=1, name="Match settings")).to_be_visible()
    expect(phone.get_by_role("heading", level=2, name="The evening is over?")).to_be_visible()
