import pytest
from playwright.sync_api import expect

from tests.browser.conftest import scripts_ran

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_home_page_opens_on_a_phone(phone):
    phone.goto("/")
    assert phone.get_by_role("heading", level=1).inner_text() == "Tressette Scoresheet"
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 412


def test_a_form_sent_back_whole_brings_its_error_into_sight(phone):
    phone.set_viewport_size({"width": 360, "height": 400})
    phone.goto("/")
    with phone.expect_navigation():  # the page sent back, not the one the form was on
        phone.get_by_role("button", name="Create table").click()
    scripts_ran(phone)
    assert phone.evaluate("document.activeElement.id") == "id_name"
    error = phone.get_by_text("Give the table a name")
    expect(error).to_be_in_viewport()


def test_at_home_on_a_large_screen_the_table_has_two_columns_and_a_phone_one(new_phone):
    page = new_phone(viewport={"width": 1280, "height": 800}, is_mobile=False, has_touch=False)
    page.goto("/")
    page.get_by_label("Table name").fill("Bar Sport")
    page.get_by_role("button", name="Create table").click()
    matches, players = (
        page.locator("#matches").bounding_box(),
        page.locator("#players").bounding_box(),
    )
    assert players["x"] >= matches["x"] + matches["width"]  # beside the matches, not below
    assert abs(page.locator("#export").bounding_box()["y"] - matches["y"]) < 1  # side by side
    page.set_viewport_size({"width": 412, "height": 915})
    matches, players = (
        page.locator("#matches").bounding_box(),
        page.locator("#players").bounding_box(),
    )
    assert players["y"] >= matches["y"] + matches["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 412
