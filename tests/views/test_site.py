"""The site around the tables (matches/views/site.py): installing the app, the offline page,
the service worker, the floor and the health check."""

import json
import re
from unittest import mock

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_started
from django.db import OperationalError, close_old_connections
from django.test import RequestFactory

from matches import rules
from tests.html import parsed


@pytest.mark.parametrize(
    ("language", "name"), [("en", "Tressette Scoresheet"), ("it", "Segnapunti Tressette")]
)
def test_the_manifest_makes_the_app_installable_under_a_name_in_the_page_language(
    client, db, language, name
):
    page = parsed(client.get("/", HTTP_ACCEPT_LANGUAGE=language))
    href = f"/manifest.{language}.webmanifest"
    assert page.select_one("link[rel=manifest]")["href"] == href
    response = client.get(href, HTTP_ACCEPT_LANGUAGE="fr")  # the address decides, not the phone
    assert response["Content-Type"] == "application/manifest+json"
    assert "public" in response["Cache-Control"]
    assert response["Content-Language"] == language
    manifest = json.loads(response.content)
    assert (manifest["lang"], manifest["name"], manifest["short_name"]) == (
        language,
        name,
        "Tressette",
    )
    assert manifest["description"].startswith(
        {"en": "The score of your", "it": "I punti delle tue"}[language]
    )
    assert manifest["display"] == "standalone"
    assert manifest["theme_color"] and manifest["start_url"] == "/"
    purposes = {icon.get("purpose", "any") for icon in manifest["icons"]}  # "any" unless said
    assert {"any", "maskable"} <= purposes
    for icon in manifest["icons"]:
        assert finders.find(icon["src"].removeprefix(settings.STATIC_URL))
    assert client.get("/manifest.fr.webmanifest").status_code == 404


def test_every_page_links_the_manifest_and_registers_the_service_worker(client, db):
    page = parsed(client.get("/", HTTP_ACCEPT_LANGUAGE="en"))
    assert page.select_one("link[rel=manifest]")["href"] == "/manifest.en.webmanifest"
    scripts = [script["src"].split("/")[-1].split(".")[0] for script in page.select("script")]
    assert scripts == ["htmx-2", "app"]  # app.js registers the service worker


def test_the_service_worker_is_served_from_the_root_and_never_caches_pages(client, db):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    body = response.content.decode()
    assert 'request.mode === "navigate"' in body
    assert "fetch(request).catch(() => caches.match(OFFLINE))" in body
    assert "/static/css/app.css" in body


def test_offline_js_gets_the_rules_data_and_words_in_each_language_named_by_its_content(client, db):
    worker = client.get("/sw.js").content.decode()
    for language, words in (("it", "Gli accusi delle due squadre"), ("en", "Both sides'")):
        url = re.search(rf'"(/offline\.{language}\.js\?v=[0-9a-f]+)"', worker).group(1)
        response = client.get(url)
        assert response["Cache-Control"] == "public, max-age=31536000, immutable"
        body = response.content.decode()
        data = json.loads(body.removeprefix("window.offlineWords = ").removesuffix(";\n"))
        assert data["checks"]["declarations_exceed_deck"].startswith(words)
        assert data["cards"] == rules.CARD_POINTS_PER_DEAL
        assert [7, 6] in data["pairs"]["2"] and [7, 7] not in data["pairs"]["2"]
        assert data["declared"]["1"] == sorted(rules.declaration_totals_for_side(1))
        assert data["sweeps"] == {
            "cappotto": "side",
            "stramazzo": "side",
            "cappottone": "player",
            "stramazzone": "player",
        }
        # A stramazzone's card points, checked on the phone as the rules check them: the
        # sweepers' 10 or 11, the others' 1 (the last trick) or 0, a blank side filled in.
        stramazzone = data["sweep_cards"]["stramazzone"]
        assert (stramazzone["least"], stramazzone["most"], stramazzone["blank"]) == (10, 1, None)
        assert stramazzone["others"][10] == 1 and stramazzone["sweepers"][1] == 10
        assert data["sweep_cards"]["cappottone"]["blank"] == [11, 0]
        assert "stramazzone" in data["checks"]["stramazzone_sweeper_card_points"]
    italian = client.get("/offline.it.js").content.decode()
    assert "in attesa di invio" in italian


def test_the_offline_page_says_why_no_sheet_is_shown(client, db):
    html = client.get("/offline", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "never read an old score as the current one" in html


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
