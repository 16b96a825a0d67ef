"""Who may do what: a joined scorer may; a view-only visitor may not; a stranger sees nothing."""

import json
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from matches import services
from tests.factories import MatchFactory
from tests.html import parsed
from tests.views.conftest import deal_data

pytestmark = pytest.mark.django_db


def changing_urls(match):
    token, pk = match.table.viewer_token, match.pk
    return [
        reverse("add_player", args=[token]),
        reverse("new_match", args=[token]),
        reverse("record_deal", args=[token, pk]),
        reverse("edit_deal", args=[token, pk, 1]),
        reverse("delete_deal", args=[token, pk, 1]),
        reverse("restore_deal", args=[token, pk, 1]),
        reverse("end_match", args=[token, pk]),
        reverse("stop_match", args=[token, pk]),
        reverse("reopen_match", args=[token, pk]),
        reverse("rematch", args=[token, pk]),
        reverse("change_settings", args=[token, pk]),
        reverse("merge_player", args=[token, match.sides.get(position=0).first_player_id]),
        reverse("rotate_link", args=[token, "viewer"]),  # last: the view link changes
    ]


def test_a_joined_scorer_may_change_things(scorer, match, worked):
    for url in changing_urls(match):
        assert scorer.post(url, deal_data(number=2)).status_code in (200, 302), url


def test_a_view_only_visitor_may_look_but_not_change(client, match, worked):
    assert (
        client.get(reverse("match", args=[match.table.viewer_token, match.pk])).status_code == 200
    )
    deals = list(match.deals.values_list("number", "points"))
    for url in changing_urls(match):
        assert client.post(url, deal_data(number=2)).status_code == 403, url
    assert list(match.deals.values_list("number", "points")) == deals  # nothing kept


def test_a_stranger_sees_404_everywhere(client, match, worked):
    for url in changing_urls(match):
        stranger_url = url.replace(match.table.viewer_token, "not-a-token")
        assert client.post(stranger_url, deal_data(number=2)).status_code == 404, url
    assert client.get(f"/t/not-a-token/m/{match.pk}/").status_code == 404
    assert client.get("/join/not-a-token/").status_code == 404


def test_post_only_urls_refuse_get_in_words(scorer, match, worked):
    post_only = [
        u for u in changing_urls(match) if not u.endswith(("/edit", "/matches/new", "/settings"))
    ]
    for url in post_only:
        response = scorer.get(url, HTTP_ACCEPT_LANGUAGE="en")
        assert response.status_code == 405, url
        assert response["Allow"] == "POST"
        assert response["X-Robots-Tag"] == "noindex, nofollow"  # still a secret table page
        assert "Nothing was changed: go back to the page and use its buttons." in response.text


def test_a_deal_sent_to_a_match_of_another_table_is_a_404_and_nothing_is_kept(scorer, match):
    """A scorer at both tables sends a deal of one table's match under the other's address."""
    other = MatchFactory()
    scorer.post(reverse("join", args=[other.table.scorer_token]))
    url = reverse("record_deal", args=[match.table.viewer_token, other.pk])
    assert scorer.post(url, deal_data(number=1)).status_code == 404
    assert not other.deals.exists()
    assert scorer.post(reverse("record_deal", args=[other.table.viewer_token, other.pk]),
                       deal_data(number=1)).status_code == 302  # fmt: skip
    assert other.deals.count() == 1


@pytest.mark.parametrize("huge", ["9223372036854775808", "1" + "0" * 30])
def test_an_id_too_large_for_the_database_is_a_404(scorer, match, huge):
    token = match.table.viewer_token
    for url in [f"/t/{token}/m/{huge}/", f"/t/{token}/m/{huge}/history", f"/t/nope/m/{huge}/"]:
        assert scorer.get(url).status_code == 404, url
    for url in [f"/t/{token}/m/{huge}/end", f"/t/{token}/m/{match.pk}/deals/{huge}/delete"]:
        assert scorer.post(url).status_code == 404, url
    assert scorer.post(f"/t/{token}/players/{huge}/", {"name": "X"}).status_code == 404


@pytest.mark.parametrize("odd", ["%00", "a%00b", "x%20y", "%C3%A9", "a" * 65])
def test_a_token_no_link_could_hold_is_a_404_on_every_database(scorer, match, odd):
    """PostgreSQL refuses a NUL byte in a query (a 500 before): such a token matches no URL."""
    pk = match.pk
    for url in [
        f"/t/{odd}/",
        f"/t/{odd}/m/{pk}/",
        f"/t/{odd}/m/{pk}/?poll=1",
        f"/t/{odd}/stats",
        f"/t/{odd}/export.json",
        f"/t/{odd}/m/{pk}/history",
        f"/join/{odd}/",
    ]:
        assert scorer.get(url).status_code == 404, url
    for url in [f"/t/{odd}/links/scorer/rotate", f"/t/{odd}/players/add", f"/t/{odd}/m/{pk}/end"]:
        assert scorer.post(url).status_code == 404, url


def test_rotating_the_scorer_link_takes_scoring_away_from_phones_that_joined_with_it(
    client, scorer, match, worked
):
    old_link = reverse("join", args=[match.table.scorer_token])
    services.rotate_link(table=match.table, which="scorer")
    url = reverse("end_match", args=[match.table.viewer_token, match.pk])
    assert scorer.post(url).status_code == 403
    assert client.get(old_link).status_code == 404


def test_a_deal_sent_from_a_replaced_scorer_link_is_refused_and_nothing_is_kept(scorer, match):
    """The phone joined some table, so the save's own locked read refuses it (a phone that
    joined none is refused before)."""
    services.rotate_link(table=match.table, which="scorer")
    url = reverse("record_deal", args=[match.table.viewer_token, match.pk])
    assert scorer.post(url, deal_data(number=1)).status_code == 403
    assert not match.deals.exists()
    assert not match.changes.exists()


def test_a_deal_sent_from_a_phone_that_joined_no_table_is_refused_before_any_transaction(
    client, match
):
    url = reverse("record_deal", args=[match.table.viewer_token, match.pk])
    with CaptureQueriesContext(connection) as done:
        assert client.post(url, deal_data(number=1)).status_code == 403
    assert not any(query["sql"].startswith("SAVEPOINT") for query in done.captured_queries)
    assert not match.deals.exists()


def test_a_rotated_view_link_is_a_404_that_reveals_nothing(client, match):
    old = match.table.viewer_token
    services.rotate_link(table=match.table, which="viewer")
    response = client.get(reverse("table", args=[old]), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 404
    assert match.table.name not in response.content.decode()


def test_table_pages_are_private_noindex_and_keep_tokens_on_this_site(scorer, match):
    for url in (
        reverse("table", args=[match.table.viewer_token]),
        reverse("match", args=[match.table.viewer_token, match.pk]),
    ):
        response = scorer.get(url)
        assert response["X-Robots-Tag"].startswith("noindex")
        assert "private" in response["Cache-Control"]
        assert response["Referrer-Policy"] == "same-origin"


def test_every_page_and_fragment_carries_a_strict_csp_and_runs_only_this_sites_script_files(
    scorer, match
):
    """No inline script: each is a file of this site, its tag with the answer's nonce."""
    pages = [
        ("/", {}),
        (reverse("table", args=[match.table.viewer_token]), {}),
        (reverse("new_match", args=[match.table.viewer_token]), {}),
        (reverse("match", args=[match.table.viewer_token, match.pk]), {}),
        (reverse("match", args=[match.table.viewer_token, match.pk]), {"HTTP_HX_REQUEST": "true"}),
    ]
    for url, headers in pages:
        response = scorer.get(url, **headers)
        policy = response["Content-Security-Policy"]
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        scripts = parsed(response).select("script")
        if headers:  # a fragment: nothing to run
            assert scripts == [] and "script-src 'self';" in policy
        else:
            (nonce,) = set(script["nonce"] for script in scripts)
            assert f"script-src 'self' 'nonce-{nonce}';" in policy
            for script in scripts:
                assert script["src"].startswith("/static/") and not script.string, url
                assert script.has_attr("defer"), url
        assert not re.search(r"\son[a-z]+=", response.content.decode()), url  # no inline handlers


def test_csrf_is_enforced_on_htmx_posts(match, worked):
    phone = Client(enforce_csrf_checks=True)
    page = phone.get(reverse("join", args=[match.table.scorer_token]))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())[1]
    phone.post(reverse("join", args=[match.table.scorer_token]), {"csrfmiddlewaretoken": token})
    url = reverse("record_deal", args=[match.table.viewer_token, match.pk])
    assert phone.post(url, deal_data(number=2), HTTP_HX_REQUEST="true").status_code == 403
    sheet = phone.get(reverse("match", args=[match.table.viewer_token, match.pk]))
    # As htmx sends it: the token the page's <body> names in hx-headers.
    header = json.loads(parsed(sheet).select_one("body")["hx-headers"])["X-CSRFToken"]
    response = phone.post(url, deal_data(number=2), HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=header)
    assert response.status_code == 302 and response["Location"].endswith("?saved=2&at=3")


def test_rotating_an_unknown_kind_of_link_is_a_404(scorer, match):
    url = f"/t/{match.table.viewer_token}/links/admin/rotate"
    assert scorer.post(url).status_code == 404
