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
    location = (response["HX-Redirect"] if htmx else response["Location"]).split("?")[0]
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


def _new_match(scorer, table, **fields):
    data = {"players_per_side": "2", "line": "21", "tie_rule": "higher_total", "first_dealer": "0"}
    data.update(player_0="Alice", player_1="Beppe", player_2="Carla", player_3="Dino")
    url = reverse("new_match", args=[table.viewer_token])
    return scorer.post(url, {**data, **fields}, HTTP_ACCEPT_LANGUAGE="en")


def test_in_due_the_hidden_partner_fields_are_not_read(scorer, table):
    """A partner typed (too long) before switching to two players: its field is hidden then,
    so its error could not be seen, and nothing it holds is used."""
    before = list(table.matches.values_list("pk", flat=True))
    response = _new_match(scorer, table, players_per_side="1", player_2="p" * 41, player_3="\x07")
    assert response.status_code == 302
    match = table.matches.exclude(pk__in=before).get()
    assert match.players_per_side == 1
    assert [side.second_player for side in match.sides.all()] == [None, None]
    assert not table.players.filter(name__startswith="pp").exists()


@pytest.mark.parametrize(
    "names", [{"side_name_0": "Noi", "side_name_1": "noi "}, {"side_name_0": "Beppe & Dino"}]
)
def test_two_sides_of_one_name_are_refused_in_words(scorer, table, names):
    response = _new_match(scorer, table, **names)
    assert response.status_code == 200
    assert "give one of them another name" in response.content.decode()
    assert table.matches.count() == 1  # the fixture's match alone


def test_a_refused_action_is_explained_on_the_sheet(scorer, match, sheet_url):
    response = scorer.post(sheet_url + "end", HTTP_ACCEPT_LANGUAGE="en", **HX)
    assert response.status_code == 200
    assert "The match is not decided yet" in response.content.decode()


def test_a_refusal_by_the_rules_is_explained_in_the_phones_language(scorer, match, sheet_url):
    services.change_settings(match=match, settings=rules.MatchSettings(21, "higher_total", True))
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
    # The settings come back open, as sent (claims unticked), to be mended or left.
    assert '<details class="card" id="settings" open>' in html.text
    assert '<input type="checkbox" name="claims_allowed" id="id_claims_allowed">' in html.text


def test_settings_sent_empty_say_what_is_missing(scorer, sheet_url):
    html = scorer.post(sheet_url + "settings", {}, HTTP_ACCEPT_LANGUAGE="en", **HX)
    text = html.content.decode()
    assert "Type the line: the total that wins, like 21." in text
    assert "Pick what happens when both sides pass the line together." in text


def test_a_wrong_line_is_said_in_the_settings_which_keep_what_was_typed(scorer, match, sheet_url):
    data = {"line": "5", "tie_rule": "another_deal", "claims_allowed": "on"}
    html = scorer.post(sheet_url + "settings", data, HTTP_ACCEPT_LANGUAGE="en", **HX).text
    settings = html[html.index('<details class="card" id="settings" open>') :]
    assert "The line must be from 11 to 101, not 5." in settings  # beside the field
    assert 'name="line" id="id_line" value="5"' in settings
    assert 'value="another_deal" id="id_tie_rule_1" checked' in settings
    assert 'id="id_claims_allowed" checked' in settings
    assert 'class="notice error"' not in html  # said once, where it is mended
    match.refresh_from_db()
    assert (match.line, match.tie_rule, match.claims_allowed) == (21, "higher_total", False)


def test_an_edit_that_would_end_the_match_early_says_what_to_do(scorer, match, sheet_url):
    decided(match)
    data = deal_data(version="1", a="11", b="0", da="0", kind="cappotto", side="0")
    html = scorer.post(sheet_url + "deals/1/edit", data, HTTP_ACCEPT_LANGUAGE="en").content
    assert "the match is decided at deal 1, and deals after it are on the sheet" in html.decode()


# Without JavaScript: what each action leaves on the sheet, in English.
SHOWN_AFTER = {
    "end_match": (decided, {}, "won the match (reached the line)", "End match"),
    "stop_match": (None, {}, "Stopped at 0\u20130, undecided.", "Save deal"),
    "reopen_match": (finished, {}, "End match", "Rematch"),
    "change_settings": (
        None,
        {"line": "31", "tie_rule": "another_deal"},
        "Line 31",
        "Line 21",
    ),
}


@pytest.mark.parametrize("url_name", SHOWN_AFTER)
def test_without_htmx_the_sheet_after_an_action_shows_it_whatever_process_answers(
    scorer, match, url_name
):
    setup, data, shown, gone = SHOWN_AFTER[url_name]
    if setup:
        setup(match)
    sheet_url = reverse("match", args=[match.table.viewer_token, match.pk])
    scorer.get(sheet_url)
    url = reverse(url_name, args=[match.table.viewer_token, match.pk])
    location = scorer.post(url, data)["Location"]
    page = scorer.get(location, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert shown in page
    assert gone not in page
