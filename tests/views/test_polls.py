"""A poll of an unchanged sheet answered before Django (matches/views/polls.py): what the view
would answer, and only then; anything else goes on to Django."""

from contextlib import contextmanager

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client, RequestFactory
from django.urls import reverse

from matches import rules, services
from matches.models import Table
from matches.views import kept
from matches.views.polls import UnchangedPolls
from scoresheet.wsgi import application
from tests.factories import MatchFactory
from tests.html import one, parsed, words
from tests.views.conftest import deal_data

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HX = {"HTTP_HX_REQUEST": "true", **EN}
POLL = "?poll=1&number=2&typing=0"


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


class Django:
    """Stands for the application behind: says whether it was asked."""

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self, environ, start_response):
        self.asked += 1
        start_response("200 OK", [])
        return [b"drawn by Django"]


def cookies(phone: Client) -> str:
    return "; ".join(f"{name}={morsel.value}" for name, morsel in phone.cookies.items())


def poll(phone: Client, url: str, etag: str, method: str = "get", **extra):
    """The phone's poll through UnchangedPolls: Django behind it, the status, headers, body."""
    django, answered = Django(), {}
    request = getattr(RequestFactory(), method)
    environ = request(url, HTTP_IF_NONE_MATCH=etag, HTTP_COOKIE=cookies(phone), **{**HX, **extra})

    def start_response(status, headers):
        answered.update(status=status, headers=dict(headers))

    with connection_kept():
        body = b"".join(UnchangedPolls(django)(environ.environ, start_response))
    return django, answered["status"], answered["headers"], body


def test_an_unchanged_sheet_is_answered_304_as_the_view_answers_it(scorer, sheet_url, worked):
    etag = scorer.get(sheet_url + POLL, **HX)["ETag"]
    by_the_view = scorer.get(sheet_url + POLL, HTTP_IF_NONE_MATCH=etag, **HX)
    assert by_the_view.status_code == 304
    django, status, headers, body = poll(scorer, sheet_url + POLL, etag)
    assert (django.asked, status, body) == (0, "304 Not Modified", b"")
    assert headers["ETag"] == etag
    for name in ("Cache-Control", "Vary", "X-Robots-Tag", "X-Content-Type-Options"):
        assert sorted(headers[name].split(", ")) == sorted(by_the_view[name].split(", "))


def test_the_scorers_and_the_viewers_polls_are_both_told_unchanged(scorer, sheet_url, worked):
    for phone in (scorer, Client()):
        etag = phone.get(sheet_url + POLL, **HX)["ETag"]
        assert poll(phone, sheet_url + POLL, etag)[1] == "304 Not Modified"
        assert poll(phone, sheet_url + POLL, "W/" + etag)[1] == "304 Not Modified"  # compressed


def test_the_first_poll_of_an_unchanged_page_is_told_unchanged(scorer, sheet_url, worked):
    """The page names its sheet's ETag for its first poll: unchanged, nothing is drawn again."""
    for phone in (scorer, Client()):
        page = parsed(phone.get(sheet_url, **EN))
        etag = one(page, "#live")["data-etag"]
        assert phone.get(sheet_url + POLL, HTTP_IF_NONE_MATCH=etag, **HX).status_code == 304
        assert poll(phone, sheet_url + POLL, etag)[1] == "304 Not Modified"


def test_the_deal_number_a_phone_shows_changes_its_etag_only_while_it_types(
    scorer, sheet_url, deal_url, worked
):
    """Not typing, its copy is the sheet at a revision; typing, the number its form shows
    counts: a phone whose deal another phone took is told so, whatever it held before."""
    etag = scorer.get(sheet_url + POLL, **HX)["ETag"]
    other_number = sheet_url + "?poll=1&number=7&typing=0"
    assert scorer.get(other_number, HTTP_IF_NONE_MATCH=etag, **HX).status_code == 304
    assert poll(scorer, other_number, etag)[1] == "304 Not Modified"
    typing = sheet_url + "?poll=1&number=2&typing=1"
    typed = scorer.get(typing, HTTP_IF_NONE_MATCH=etag, **HX)
    assert typed.status_code == 200
    assert poll(scorer, typing, typed["ETag"])[1] == "304 Not Modified"
    other = Client()
    other.post(reverse("join", args=[Table.objects.get().scorer_token]))
    other.post(deal_url, deal_data(number=2), **HX)  # another phone takes deal 2
    kept.forget()
    # The phone polled once more before it began typing: its entry form was not swapped in.
    etag = scorer.get(sheet_url + "?poll=1&number=2&typing=0", **HX)["ETag"]
    assert poll(scorer, typing, etag)[0].asked == 1
    answer = scorer.get(typing, HTTP_IF_NONE_MATCH=etag, **HX)
    assert "Another phone has just entered a deal" in words(one(parsed(answer), "#elsewhere"))


def test_a_phone_that_joined_or_changed_language_is_drawn_again(client, match, sheet_url, worked):
    etag = client.get(sheet_url + POLL, **HX)["ETag"]  # watching
    assert poll(client, sheet_url + POLL, etag)[1] == "304 Not Modified"
    assert poll(client, sheet_url + POLL, etag, HTTP_ACCEPT_LANGUAGE="it")[0].asked == 1
    client.post(reverse("join", args=[match.table.scorer_token]))
    assert poll(client, sheet_url + POLL, etag)[0].asked == 1  # now a scorer: the form


def test_a_changed_sheet_is_drawn_by_django(scorer, sheet_url, deal_url, worked):
    etag = scorer.get(sheet_url + POLL, **HX)["ETag"]
    scorer.post(deal_url, deal_data(number=2), **HX)
    kept.forget()  # as a process that last read the match before the save
    django, status, _headers, body = poll(scorer, sheet_url + POLL, etag)
    assert (django.asked, status, body) == (1, "200 OK", b"drawn by Django")


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
    django, status, _headers, _body = poll(scorer, sheet_url + POLL, etag)
    assert (django.asked, status) == (1, "200 OK")  # not told unchanged before Django


def test_a_new_scorer_link_sends_the_old_scorers_poll_to_django(scorer, match, sheet_url, worked):
    etag = scorer.get(sheet_url + POLL, **HX)["ETag"]
    services.rotate_link(table=match.table, which="scorer")
    kept.forget()
    assert poll(scorer, sheet_url + POLL, etag)[0].asked == 1


def test_anything_but_a_poll_with_the_sheets_etag_goes_to_django(scorer, match, sheet_url, worked):
    etag = scorer.get(sheet_url + POLL, **HX)["ETag"]
    other_match = sheet_url.replace(f"/m/{match.pk}/", f"/m/{match.pk + 1}/")
    wrong_token = sheet_url.replace(match.table.viewer_token, match.table.scorer_token)
    for url, tag, extra in (
        (sheet_url + POLL, '"0123456789abcdef01234567"', {}),  # not the sheet's
        (sheet_url, etag, {}),  # the page, not a poll
        (other_match + POLL, etag, {}),
        (wrong_token + POLL, etag, {}),
        (sheet_url + POLL, etag, {"HTTP_HOST": "evil.example"}),  # a host not allowed
    ):
        assert poll(scorer, url, tag, **extra)[0].asked == 1, url
    assert poll(scorer, sheet_url + POLL, etag, method="head")[0].asked == 1


def test_the_server_answers_through_it(scorer, sheet_url, worked):
    etag = scorer.get(sheet_url + POLL, **HX)["ETag"]
    environ = (
        RequestFactory()
        .get(sheet_url + POLL, HTTP_IF_NONE_MATCH=etag, HTTP_COOKIE=cookies(scorer), **HX)
        .environ
    )
    statuses = []
    with connection_kept():
        body = application(environ, lambda status, headers: statuses.append(status))
    assert statuses == ["304 Not Modified"] and b"".join(body) == b""
    environ = RequestFactory().get(sheet_url + POLL, **HX).environ  # no ETag: drawn by Django
    with connection_kept():
        answer = application(environ, lambda status, headers: statuses.append(status))
    assert statuses[-1] == "200 OK" and b'id="deal-1"' in b"".join(answer)


def test_the_polls_of_every_match_a_process_watches_cost_one_query_a_second(
    settings, monkeypatch, django_assert_num_queries
):
    settings.POLL_STALE_SECONDS = 1
    clock = [1000.0]
    monkeypatch.setattr(kept.time, "monotonic", lambda: clock[0])
    matches = [MatchFactory() for _ in range(3)]
    links = [(match.table.viewer_token, match.pk) for match in matches]
    with django_assert_num_queries(3):  # each read alone as its first poll comes
        first = [kept.polled_state(*link) for link in links]
    clock[0] += 1.0
    with django_assert_num_queries(1):  # then all together, once a second
        again = [kept.polled_state(*link) for link in links * 3]
    assert again == first * 3
    entry = rules.DealEntry(card_points=(8, 3), declared_points=(3, 0))
    services.record_deal(match_id=matches[0].pk, number=1, entry=entry)
    services.rotate_link(table=matches[1].table, which="viewer")
    with django_assert_num_queries(0):  # within the second, as read
        assert kept.polled_state(*links[0]).revision == first[0].revision
    clock[0] += 1.0
    with django_assert_num_queries(1):
        assert kept.polled_state(*links[0]).revision == first[0].revision + 1
        assert kept.polled_state(*links[2]) == first[2]
    with django_assert_num_queries(2):  # another link than the one watched: read alone
        assert kept.polled_state(*links[1]) is None  # its old view link
        assert kept.polled_state("not-its-link", matches[2].pk) is None
    matches[1].table.refresh_from_db()
    assert kept.polled_state(matches[1].table.viewer_token, matches[1].pk) is not None
    clock[0] += kept.WATCH_IDLE + 1  # nobody polls for a while: they are read no more
    with django_assert_num_queries(1):  # polled again: read alone, then watched again
        assert kept.polled_state(*links[2]) == first[2]
    assert list(kept._watched.states) == [matches[2].pk]
    services.rotate_link(table=matches[2].table, which="viewer")  # within the second
    matches[2].table.refresh_from_db()
    with django_assert_num_queries(1):  # the new link works at once: read alone
        assert kept.polled_state(matches[2].table.viewer_token, matches[2].pk) is not None


def test_a_poll_it_cannot_read_is_answered_by_django_in_words(scorer, sheet_url, worked):
    etag = scorer.get(sheet_url + POLL, **HX)["ETag"]
    fields = "&".join(f"f{n}=1" for n in range(1200))  # past DATA_UPLOAD_MAX_NUMBER_FIELDS
    environ = RequestFactory().get(
        f"{sheet_url}?poll=1&{fields}", HTTP_IF_NONE_MATCH=etag, HTTP_COOKIE=cookies(scorer), **HX
    )
    answered = []
    with connection_kept():
        body = b"".join(application(environ.environ, lambda status, h: answered.append(status)))
    assert answered == ["400 Bad Request"] and b"<html" in body.lower()
