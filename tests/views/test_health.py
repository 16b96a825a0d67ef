from unittest import mock

from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_started
from django.db import OperationalError, close_old_connections
from django.test import RequestFactory


def test_healthz_answers_ok_when_the_database_answers(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok\n"


def test_healthz_answers_503_when_the_database_does_not(client, db):
    with mock.patch("django.db.backends.utils.CursorWrapper.execute", side_effect=OperationalError):
        response = client.get("/healthz")
    assert response.status_code == 503


def test_healthz_refuses_post(client, db):
    assert client.post("/healthz").status_code == 405


def _wsgi(environ) -> tuple[str, bytes]:
    """The status and body the WSGI handler itself gives (the test client strips HEAD bodies
    on its own); the test's transaction outlives the request, as with the test client."""
    request_started.disconnect(close_old_connections)
    try:
        started = []
        body = b"".join(WSGIHandler()(environ, lambda status, headers: started.append(status)))
    finally:
        request_started.connect(close_old_connections)
    return started[0], body


def test_pages_answer_head_as_uptime_monitors_and_link_previews_ask(match):
    sheet = f"/t/{match.table.viewer_token}/m/{match.pk}/"
    for url in ["/healthz", "/", "/offline", f"/t/{match.table.viewer_token}/", sheet]:
        status, body = _wsgi(RequestFactory().head(url).environ)
        assert status.startswith("200") and body == b"", url
    # An export is not read to send none of it.
    status, _ = _wsgi(RequestFactory().head(f"/t/{match.table.viewer_token}/export.json").environ)
    assert status.startswith("405")


def test_the_floor_view_answers_a_constant_without_the_database(
    client, db, django_assert_num_queries
):
    with django_assert_num_queries(0):
        response = client.get("/floor")
    assert response.content == b"floor\n"


def test_healthz_answers_503_when_the_apps_tables_are_missing(client, db):
    # A database that answers but was never migrated is not health.
    from django.db import connection, transaction

    from matches.models import Table

    with transaction.atomic():  # the rename is rolled back with it
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER TABLE {Table._meta.db_table} RENAME TO not_migrated")
        response = client.get("/healthz")
        transaction.set_rollback(True)
    assert response.status_code == 503
    assert response.content == b"database unavailable or not migrated\n"
