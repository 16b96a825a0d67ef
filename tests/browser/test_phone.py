"""What only a phone's browser shows: offline behaviour, language, colour schemes."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)


def test_offline_the_phone_shows_the_offline_page_not_a_stale_sheet(phone):
    phone.goto("/")
    phone.evaluate("navigator.serviceWorker.ready.then(() => true)")
    phone.reload()  # now controlled by the service worker
    phone.wait_for_function("navigator.serviceWorker.controller !== null")
    phone.context.set_offline(True)
    phone.goto("/")
    expect(phone.get_by_role("heading", level=1)).to_have_text("No connection")
    phone.context.set_offline(False)
    phone.goto("/")
    expect(phone.get_by_role("heading", level=1)).to_have_text("Tressette Scoresheet")
