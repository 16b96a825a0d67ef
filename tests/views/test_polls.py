"""The phones' polls of a sheet (matches/views/sheet.py, views/watched.py): an unchanged sheet
is answered 304 by Django's conditional machinery, with every header its 200 carries, for the
phone's role, language and HTMX; and every match a process watches is read in one query."""

from contextlib import contextmanager

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client, RequestFactory
from django.urls import reverse

from matches import rules, services
from matches.models import Match, Table
from matches.views import watched
from scoresheet.wsgi import application
from tests.factories import MatchFactory
from tests.html import one, parsed, words
from tests.views.conftest import deal_data

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HX = {"HTTP_HX_REQUEST": "true", **EN}
POLL = "?poll=1&number=2&typing=0"
# What every answer says of its security, whatever its status (issue 48).
SECURITY = (
    "Strict-Transport-Security",
    "Content-Security-Policy",
    "X-Frame-Options",
    "Referrer-Policy",
    "Permissions-Policy",
    "X-Content-Type-Options",
    "Cross-Origin-Opener-Policy",
)


@contextmanager
def connection_kept():
    """As Django's test client does around its requests: the test's transaction stays open."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    try:
        yield
    finally:
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)


def cookies(phone: Client) -> str:
    return "; ".join(f"{name}={morsel.value}" for name, morsel in phone.cookies.items())


def served(phone: Client, url: str, **extra) -> tuple[str, dict, bytes]:
    """The phone's request as the server hands it over (scoresheet.wsgi), over HTTPS behind
    the proxy: the status, the headers, the body."""
    environ = RequestFactory().get(
        url, HTTP_COOKIE=cookies(phone), HTTP_X_FORWARDED_PROTO="https", **{**HX, **extra}
    )
    answered = {}

    def start_response(status, headers, exc_info=None):
        answered.update(status=status, headers=dict(headers))

    with connection_kept():
        body = application(environ.environ, start_response)
        content = b"".join(body)
        body.close()
    return answered["status"], answered["headers"], content


def test_a_polls_304_carries_every_security_header_its_200_carries(scorer, sheet_url, worked):
    status, first, _ = served(scorer, sheet_url + POLL)
    assert status == "200 OK"
    status, again, body = served(scorer, sheet_url + POLL, HTTP_IF_NONE_MATCH=first["ETag"])
    assert (status, body) == ("304 Not Modified", b"")
    for name in SECURITY:
        assert name in first, name
        assert again.get(name) == first[name], name
    for name in ("ETag", "Cache-Control", "X-Robots-Tag"):
        assert again[name] == first[name], name
    # Less Accept-Encoding, which only a body has (GZip's).
    vary = set(first["Vary"].split(", ")) - {"Accept-Encoding"}
    assert set(again["Vary"].split(", ")) == vary


def test_the_scorers_and_the_viewers_polls_are_both_told_unchanged(scorer, sheet_url, worked):
    for phone in (scorer, Client()):
        etag = phone.get(sheet_url + POLL, **HX)["ETag"]
        assert phone.get(sheet_url + POLL, HTTP_IF_NONE_MATCH=etag, **HX).status_code == 304
        compressed = phone.get(sheet_url + POLL, HTTP_IF_NONE_MATCH="W/" + etag, **HX)
        assert compressed.status_code == 304


def test_the_first_poll_of_an_unchanged_page_is_told_unchanged(scorer, sheet_url, worked):
    """The page names its sheet's ETag for its first poll: unchanged, nothing is drawn again."""
    for phone in (scorer, Client()):
        page = parsed(phone.get(sheet_url, **EN))
        etag = one(page, "#live")["data-etag"]
        assert phone.get(sheet_url + POLL, HTTP_IF_NONE_MATCH=etag, **HX).status_code == 304


def test_the_deal_number_a_phone_shows_changes_its_etag_only_while_it_types(
    scorer, sheet_url, deal_url, worked
):
    """Not typing, its copy is the sheet at a revision; typing, the number its form shows
    counts: a phone whose deal another phone took is told so, whatever it held before."""
    etag = scorer.get(sheet_url + POLL, **HX)["ETag"]
    other_number = sheet_url + "?poll=1&number=7&typing=0"
    assert scorer.get(other_number, HTTP_IF_NONE_MATCH=etag, **HX).status_code == 304
    typing = sheet_url + "?poll=1&number=2&typing=1"
    typed = scorer.get(typing, HTTP_IF_NONE_MATCH=etag, **HX)
    assert typed.status_code == 200
    assert scorer.get(typing, HTTP_IF_NONE_MATCH=typed["ETag"], **HX).status_code == 304
    other = Client()
    other.post(reverse("join", args=[Table.objects.get().scorer_token]))
    other.post(deal_url, deal_data(number=2), **HX)  # another phone takes deal 2
    # The phone polled once more before it began typing: its entry form was not swapped in.
    etag = scorer.get(sheet_url + "?poll=1&number=2&typing=0", **HX)["ETag"]
    answer = scorer.get(typing, HTTP_IF_NONE_MATCH=etag, **HX)
    assert answer.status_code == 200
    assert "Another phone has just entered a deal" in words(one(parsed(answer), "#elsewhere"))


def test_a_phone_that_joined_or_changed_language_is_drawn_again(client, match, sheet_url, worked):
    etag = client.get(sheet_url + POLL, **HX)["ETag"]  # watching
    assert client.get(sheet_url + POLL, HTTP_IF_NONE_MATCH=etag, **HX).status_code == 304
    italian = {**HX, "HTTP_ACCEPT_LANGUAGE": "it"}
    assert client.get(sheet_url + POLL, HTTP_IF_NONE_MATCH=etag, **italian).status_code == 200
    client.post(reverse("join", args=[match.table.scorer_token]))
    now_scorer = client.get(sheet_url + POLL, HTTP_IF_NONE_MATCH=etag, **HX)
    assert now_scorer.status_code == 200 and parsed(now_scorer).select("#deal-form")


def test_a_poll_without_htmx_is_another_answer(scorer, sheet_url, worked):
    etag = scorer.get(sheet_url + POLL, **HX)["ETag"]
    assert scorer.get(sheet_url + POLL, HTTP_IF_NONE_MATCH=etag, **EN).status_code == 200


def test_a_phones_own_save_is_polled_unchanged_where_the_match_was_seen_before_it(
    settings, scorer, sheet_url, deal_url, worked
):
    """The sheet the save leads to is drawn at its revision, and #live names that ETag: a
    process whose watch still holds the revision before reads the match afresh and answers
    304, rather than drawing the older sheet over the newer."""
    settings.POLL_STALE_SECONDS = 3600  # the watch keeps what it read for the whole test
    scorer.get(sheet_url + POLL, **HX)  # watched, at the revision before the save
    saved = parsed(scorer.post(deal_url, deal_data(number=2), follow=True, **HX))
    etag = one(saved, "#live")["data-etag"]
    assert scorer.get(sheet_url + POLL, HTTP_IF_NONE_MATCH=etag, **HX).status_code == 304


def test_a_new_scorer_link_draws_the_old_scorers_poll_again(scorer, match, sheet_url, worked):
    etag = scorer.get(sheet_url + POLL, **HX)["ETag"]
    services.rotate_link(table=match.table, which="scorer")
    answer = scorer.get(sheet_url + POLL, HTTP_IF_NONE_MATCH=etag, **HX)
    assert answer.status_code == 200 and not parsed(answer).select("#deal-form")


def test_another_etag_match_or_link_is_not_told_unchanged(scorer, match, sheet_url, worked):
    etag = scorer.get(sheet_url + POLL, **HX)["ETag"]
    other_match = sheet_url.replace(f"/m/{match.pk}/", f"/m/{match.pk + 1}/")
    wrong_token = sheet_url.replace(match.table.viewer_token, match.table.scorer_token)
    not_the_sheets = '"0123456789abcdef01234567"'
    assert scorer.get(sheet_url + POLL, HTTP_IF_NONE_MATCH=not_the_sheets, **HX).status_code == 200
    for url in (other_match + POLL, wrong_token + POLL):
        assert scorer.get(url, HTTP_IF_NONE_MATCH=etag, **HX).status_code == 404, url
    refused = scorer.get(sheet_url + POLL, HTTP_IF_NONE_MATCH=etag, HTTP_HOST="evil.example", **HX)
    assert refused.status_code == 400


def test_the_server_answers_through_django(scorer, sheet_url, worked):
    etag = scorer.get(sheet_url + POLL, **HX)["ETag"]
    status, _, body = served(scorer, sheet_url + POLL, HTTP_IF_NONE_MATCH=etag)
    assert (status, body) == ("304 Not Modified", b"")
    status, _, body = served(Client(), sheet_url + POLL)  # no ETag: drawn
    assert status == "200 OK" and b'id="deal-1"' in body


def test_a_poll_it_cannot_read_is_answered_in_words(scorer, sheet_url, worked):
    etag = scorer.get(sheet_url + POLL, **HX)["ETag"]
    fields = "&".join(f"f{n}=1" for n in range(1200))  # past DATA_UPLOAD_MAX_NUMBER_FIELDS
    status, _, body = served(scorer, f"{sheet_url}?poll=1&{fields}", HTTP_IF_NONE_MATCH=etag)
    assert status == "400 Bad Request" and b"<html" in body.lower()


def test_the_polls_of_every_match_a_process_watches_cost_one_query_a_second(
    settings, monkeypatch, django_assert_num_queries
):
    settings.POLL_STALE_SECONDS = 1
    clock = [1000.0]
    monkeypatch.setattr(watched.time, "monotonic", lambda: clock[0])
    matches = [MatchFactory() for _ in range(3)]
    links = [(match.table.viewer_token, match.pk) for match in matches]
    with django_assert_num_queries(3):  # each read alone as its first poll comes
        first = [watched.polled_state(*link) for link in links]
    clock[0] += 1.0
    with django_assert_num_queries(1):  # then all together, once a second
        again = [watched.polled_state(*link) for link in links * 3]
    assert again == first * 3
    entry = rules.DealEntry(card_points=(8, 3), declared_points=(3, 0))
    services.record_deal(match_id=matches[0].pk, number=1, entry=entry)
    services.rotate_link(table=matches[1].table, which="viewer")
    with django_assert_num_queries(0):  # within the second, as read
        assert watched.polled_state(*links[0]).revision == first[0].revision
    clock[0] += 1.0
    with django_assert_num_queries(1):
        assert watched.polled_state(*links[0]).revision == first[0].revision + 1
        assert watched.polled_state(*links[2]) == first[2]
    with django_assert_num_queries(2):  # another link than the one watched: read alone
        assert watched.polled_state(*links[1]) is None  # its old view link
        assert watched.polled_state("not-its-link", matches[2].pk) is None
    matches[1].table.refresh_from_db()
    assert watched.polled_state(matches[1].table.viewer_token, matches[1].pk) is not None
    clock[0] += watched.WATCH_IDLE + 1  # nobody polls for a while: they are read no more
    with django_assert_num_queries(1):  # polled again: read alone, then watched again
        assert watched.polled_state(*links[2]) == first[2]
    assert list(watched._watched.states) == [matches[2].pk]
    services.rotate_link(table=matches[2].table, which="viewer")  # within the second
    matches[2].table.refresh_from_db()
    with django_assert_num_queries(1):  # the new link works at once: read alone
        assert watched.polled_state(matches[2].table.viewer_token, matches[2].pk) is not None


def test_a_deal_from_another_phone_is_marked_and_said_who_entered_it(
    scorer, match, sheet_url, deal_url, worked
):
    """The poll names the revision the phone shows (`shown`): a deal saved since on another
    phone is marked in the sheet's rows and in the strip above the form, with who entered it."""
    shown = Match.objects.get().revision
    other = Client()
    other.post(reverse("join", args=[match.table.scorer_token]), {"label": "Dino's phone"})
    deal_2 = deal_data(number=2, a="5", b="6", da="0")  # 16 to 9: played on
    saved = parsed(other.post(deal_url, deal_2, follow=True, **HX))
    assert not saved.select("[data-arrived], #arrived-by")  # its own deal: said as saved

    for phone in (scorer, Client()):  # a scorer one deal behind, and a viewer
        page = parsed(phone.get(f"{sheet_url}?poll=1&shown={shown}&number=2&typing=0", **HX))
        assert words(one(page, "#arrived-by")) == "Deal 2 · entered by Dino's phone"
        # (find_all: a row added is sent in a <template>, which select() does not look into)
        marked = page.find_all("tr", attrs={"data-arrived": True, "id": True})
        assert [row["id"] for row in marked] == ["deal-2"]

    # Seen, it is no longer new; a reload says nothing of it either.
    now = Match.objects.get().revision
    page = parsed(scorer.get(f"{sheet_url}?poll=1&shown={now}&number=3&typing=0", **HX))
    assert not page.select("[data-arrived], #arrived-by")
    assert not parsed(scorer.get(sheet_url, **EN)).select("[data-arrived], #arrived-by")


def test_a_deal_changed_on_a_phone_with_no_name_is_said_of_another_phone(
    scorer, match, sheet_url, worked
):
    shown = Match.objects.get().revision
    other = Client()
    other.post(reverse("join", args=[match.table.scorer_token]))
    edit = reverse("edit_deal", args=[match.table.viewer_token, match.pk, 1])
    other.post(edit, deal_data(number=1, a="5", b="6", da="0", version=worked.version), **HX)
    page = parsed(Client().get(f"{sheet_url}?poll=1&shown={shown}", **HX))
    assert words(one(page, "#arrived-by")) == "Deal 1 · changed on another phone"
    assert one(page, "tr[data-arrived]")["id"] == "deal-1"
    assert words(one(page, "#deal-1 .run")) == "5–6"
