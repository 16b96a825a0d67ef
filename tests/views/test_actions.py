"""Every action answers a full redirect without HTMX, and a fragment or HX-Redirect with it."""

import pytest
from django.urls import reverse

from matches import rules, services
from tests.views.conftest import deal_data

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def decided(match) -> None:
    for number in (1, 2):
        entry = rules.DealEntry(card_points=(8, 3), declared_points=(3, 0))
        services.record_deal(match=match, number=number, entry=entry)


def finished(match) -> None:
    decided(match)
    services.end_match(match=match)


ACTIONS = {
    # name: (url name, extra url args, set-up, POST data, what an HTMX answer is)
    "record": ("record_deal", [], None, deal_data(), "fragment"),
    "delete": ("delete_deal", [2], decided, {}, "fragment"),
    "end": ("end_match", [], decided, {}, "fragment"),
    "reopen": ("reopen_match", [], finished, {}, "fragment"),
    "settings": (
        "change_settings",
        [],
        None,
        {"line": "31", "tie_rule": "another_deal", "claims_allowed": "on"},
        "fragment",
    ),
    "rematch": ("rematch", [], finished, {}, "redirect"),
    "edit": ("edit_deal", [1], decided, deal_data(version="1"), "redirect"),
}


@pytest.mark.parametrize("name", ACTIONS)
@pytest.mark.parametrize("htmx", [False, True])
def test_each_action_with_and_without_htmx(scorer, match, name, htmx):
    url_name, args, setup, data, answer = ACTIONS[name]
    if setup:
        setup(match)
    url = reverse(url_name, args=[match.table.viewer_token, match.pk, *args])
    response = scorer.post(url, data, **(HX if htmx else {}))
    if not htmx:
        assert response.status_code == 302
    elif answer == "fragment":
        assert response.status_code == 200
        html = response.content.decode()
        assert html.lstrip().startswith('<div id="sheet">') and "<html" not in html
        assert "HX-Request" in response["Vary"]
    else:
        assert response.status_code == 200
        assert response["HX-Redirect"].startswith(f"/t/{match.table.viewer_token}/m/")


@pytest.mark.parametrize("htmx", [False, True])
def test_creating_a_table_and_a_match_with_and_without_htmx(client, htmx):
    headers = HX if htmx else {}
    response = client.post(reverse("create_table"), {"name": "Bar Sport"}, **headers)
    location = response["HX-Redirect"] if htmx else response["Location"]
    assert location.startswith("/t/")
    data = {
        "players_per_side": "1",
        "player_0": "Alice",
        "player_1": "Beppe",
        "line": "21",
        "tie_rule": "higher_total",
        "first_dealer": "1",
    }
    response = client.post(location + "matches/new", data, **headers)
    assert (response["HX-Redirect"] if htmx else response["Location"]).startswith(location + "m/")


def test_a_refused_action_is_explained_on_the_sheet(scorer, match, sheet_url):
    response = scorer.post(sheet_url + "end", HTTP_ACCEPT_LANGUAGE="en", **HX)
    assert response.status_code == 200
    assert "The match is not decided yet" in response.content.decode()


def test_a_refusal_by_the_rules_is_explained_in_the_phones_language(scorer, match, sheet_url):
    services.change_settings(match=match, line=21, tie_rule="higher_total", claims_allowed=True)
    claim = rules.DealEntry((3, 0), (0, 0), kind=rules.DealKind.CLAIM, side=1)
    services.record_deal(match=match, number=1, entry=claim)
    data = {"line": "21", "tie_rule": "higher_total"}  # claims no longer allowed
    html = scorer.post(sheet_url + "settings", data, HTTP_ACCEPT_LANGUAGE="it", **HX)
    assert "In questa partita non ci si può chiamare fuori." in html.content.decode()
    match.refresh_from_db()
    assert match.claims_allowed
    # The refusal names the deal that stands in the way: the sheet may not show it.
    html = scorer.post(sheet_url + "settings", data, HTTP_ACCEPT_LANGUAGE="en", **HX)
    assert "Deal 1: Claims are not allowed in this match." in html.content.decode()


def test_settings_sent_empty_say_what_is_missing(scorer, sheet_url):
    html = scorer.post(sheet_url + "settings", {}, HTTP_ACCEPT_LANGUAGE="en", **HX)
    text = html.content.decode()
    assert "Type the line: the total that wins, like 21." in text
    assert "Pick what happens when both sides pass the line together." in text


def test_an_edit_that_would_end_the_match_early_says_what_to_do(scorer, match, sheet_url):
    decided(match)
    data = deal_data(version="1", a="11", b="0", da="0", kind="cappotto", side="0")
    html = scorer.post(sheet_url + "deals/1/edit", data, HTTP_ACCEPT_LANGUAGE="en").content
    assert "the match is decided at deal 1, and deals after it are on the sheet" in html.decode()
