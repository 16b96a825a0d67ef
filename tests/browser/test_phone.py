"""What only a phone's browser shows: offline behaviour, language, colour schemes."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)


def test_offline_the_phone_shows_the_offline_page_not_a_stale_sheet(phone):
    phone.goto("/")
    phone.evaluate("navigator.serviceWorker.ready.then(() => true)")
    phone.reload()  # now controlled by the service worker
    phone.wait_for_function("() => navigator.serviceWorker.controller !== null")
    phone.context.set_offline(True)
    phone.goto("/")
    expect(phone.get_by_role("heading", level=1)).to_have_text("No connection")
    phone.context.set_offline(False)
    phone.goto("/")
    expect(phone.get_by_role("heading", level=1)).to_have_text("Tressette Scoresheet")


def test_the_sheets_scripts_are_this_sites_files_run_in_order_once_the_page_is_parsed(phone):
    """Deferred, htmx, app.js and the sheet's own run in order once the document is whole;
    the root then says so (`data-scripted`, which the browser tests wait for) and htmx polls."""
    from tests.browser.test_sheet import create_table_and_match

    create_table_and_match(phone)
    phone.reload()  # waits for html[data-scripted] (conftest)
    scripts = phone.evaluate(
        """() => performance.getEntriesByType("resource")
          .filter((entry) => entry.initiatorType === "script")
          .map((entry) => new URL(entry.name).pathname)"""
    )
    names = [path.rsplit("/", 1)[-1].split(".")[0] for path in scripts]
    assert names[:3] == ["htmx-2", "app", "sheet"], names
    deferred = phone.evaluate("[...document.scripts].slice(0, 3).map((script) => script.defer)")
    assert deferred == [True, True, True]
    manifest = phone.locator("link[rel=manifest]")
    expect(manifest).to_have_attribute("href", "/manifest.en.webmanifest")
    with phone.expect_request(lambda request: "poll=1" in request.url):
        pass  # htmx runs: the sheet is polled


def test_the_sheet_in_italian_and_dark_mode_at_phone_size(new_phone, screenshot):
    from matches import rules, services
    from tests.factories import TableFactory

    table = TableFactory(name="Circolo del Tressette di Borgo San Lorenzo")
    match = services.start_match(
        table=table, players=[["Alessandra Benedetti", "Carla"], ["Giuseppe", "Dino"]]
    )
    for number, points in enumerate((6, 4, 5), start=1):
        entry = rules.DealEntry(card_points=(points, 11 - points), declared_points=(0, 0))
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    phone = new_phone(locale="it-IT", color_scheme="dark")
    phone.goto(f"/join/{table.scorer_token}/")
    phone.get_by_role("button", name="Entra come segnapunti").click()
    phone.goto(f"/t/{table.viewer_token}/m/{match.pk}/")
    expect(phone.get_by_role("button", name="Salva smazzata")).to_be_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 412
    screenshot(phone, "sheet-it-dark")


def test_in_italian_at_320_px_every_deals_tag_is_read_whole(new_phone, screenshot):
    from matches import rules, services
    from tests.factories import TableFactory

    table = TableFactory()
    match = services.start_match(
        table=table,
        players=[["Alessandra", "Carla"], ["Giuseppe", "Dino"]],
        settings=rules.MatchSettings(claims_allowed=True),
    )
    normal = rules.DealEntry(card_points=(6, 5), declared_points=(0, 0))
    services.record_deal(match_id=match.pk, number=1, entry=normal)
    # "Chiamata fuori", the longest tag: a right claim, 6 + 15 = 21.
    claim = rules.DealEntry((6, 0), (15, 0), kind=rules.DealKind.CLAIM, side=0)
    services.record_deal(match_id=match.pk, number=2, entry=claim)
    phone = new_phone(locale="it-IT", viewport={"width": 320, "height": 640})
    phone.goto(f"/t/{table.viewer_token}/m/{match.pk}/")
    tag = phone.locator("#deal-2 .tag")
    expect(tag).to_have_text("Chiamata fuori")
    assert tag.evaluate("e => e.scrollWidth <= e.clientWidth")
    cell, box = phone.locator("#deal-2 td.side-0").bounding_box(), tag.bounding_box()
    assert box["x"] + box["width"] <= cell["x"] + cell["width"]
    assert phone.evaluate("document.documentElement.scrollWidth") <= 320
    screenshot(phone, "tag-it-320")


def test_save_stays_in_sight_and_a_zoomed_page_stacks_the_sides(new_phone):
    from matches import rules, services
    from tests.factories import TableFactory

    table = TableFactory()
    match = services.start_match(
        table=table,
        players=[["Alessandra", "Carla"], ["Giuseppe", "Dino"]],
        settings=rules.MatchSettings(claims_allowed=True),
    )
    entry = rules.DealEntry(card_points=(6, 5), declared_points=(0, 0))
    services.record_deal(match_id=match.pk, number=1, entry=entry)
    sheet = f"/t/{table.viewer_token}/m/{match.pk}/"
    # A phone of 390 x 844: the form runs below the screen, Save deal does not.
    phone = new_phone(locale="it-IT", viewport={"width": 390, "height": 844})
    phone.goto(f"/join/{table.scorer_token}/")
    phone.locator("form:has(#id_label) button[type=submit]").click()
    phone.goto(sheet)
    save = phone.get_by_role("button", name="Salva smazzata")
    form = phone.locator("#deal-form").bounding_box()
    assert form["y"] + form["height"] > 844  # the form runs on below the screen
    phone.locator("#id_card_points_0").focus()  # typing a deal: Save stays in sight
    box = save.bounding_box()
    assert box["y"] + box["height"] <= 844
    # The same phone at 200% zoom (195 CSS pixels): each side takes the whole width.
    phone.set_viewport_size({"width": 195, "height": 422})
    phone.goto(sheet)
    for group in (".scoreboard > *", ".sides > *"):
        first, second = (item.bounding_box() for item in phone.locator(group).all()[:2])
        assert second["y"] >= first["y"] + first["height"], group
    assert phone.evaluate("document.documentElement.scrollWidth") <= 195
