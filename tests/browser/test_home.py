import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_home_page_opens_on_a_phone(phone):
    phone.goto("/")
    assert phone.get_by_role("heading", level=1).inner_text() == "Tressette Scoresheet"
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 412


def test_a_form_sent_back_whole_brings_its_error_into_sight(phone):
    phone.set_viewport_size({"width": 360, "height": 400})
    phone.goto("/")
    phone.get_by_role("button", name="Create table").click()
    phone.wait_for_load_state("load")
    assert phone.evaluate("document.activeElement.id") == "id_name"
    error = phone.get_by_text("Give the table a name")
    expect(error).to_be_in_viewport()
