"""The table page at phone size in Chromium: players renamed and merged, links made anew."""

import re

import pytest
from playwright.sync_api import expect

from matches import services
from tests.browser.conftest import scripts_ran

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_merge_is_offered_then_said_and_each_answer_takes_focus(phone):
    table = services.create_table(name="Bar Sport")
    services.start_match(table=table, players=[["Giani", "Alice"], ["Beppe", "Carla"]])
    services.start_match(table=table, players=[["Gianni", "Beppe"], ["Alice", "Carla"]])
    phone.goto(f"/join/{table.scorer_token}/")
    phone.get_by_role("button", name="Join").click()
    phone.goto(f"/t/{table.viewer_token}/")
    phone.get_by_role("link", name="Rename Giani").click()
    scripts_ran(phone)  # its answers come with HTMX
    phone.get_by_label("Player name").fill("gianni")
    phone.get_by_role("button", name="Save").click()
    offer = phone.get_by_role("heading", name="Gianni already plays at this table.")
    expect(offer).to_be_focused()  # the answer to what was typed, read out at once
    phone.get_by_role("button", name="Merge Giani into Gianni").click()
    expect(phone.locator("#merged")).to_be_focused()
    expect(phone.locator("#merged")).to_have_text(
        "Merged: Gianni now has the matches and stats of both."
    )
    expect(phone.locator("#players li", has_text="Giani ")).to_have_count(0)
    # Said once: the address forgets it (app.js, once the page's scripts ran), so a reload
    # does not say it again.
    expect(phone).not_to_have_url(re.compile("merged="))
    phone.reload()
    expect(phone.get_by_role("heading", name="Players")).to_be_visible()
    expect(phone.locator("#merged")).to_have_count(0)


def test_a_new_scorer_link_is_said_and_the_notice_takes_focus(phone):
    table = services.create_table(name="Bar Sport")
    phone.goto(f"/join/{table.scorer_token}/")
    phone.get_by_role("button", name="Join").click()
    phone.goto(f"/t/{table.viewer_token}/")
    phone.get_by_text("New scorer link…").click()
    phone.get_by_role("button", name="Make a new scorer link").click()
    expect(phone.locator("#rotated")).to_be_focused()
    expect(phone.locator("#rotated")).to_have_text(
        "New scorer link made: send it to the phones that score here."
    )
