import json

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders


@pytest.mark.parametrize(
    ("language", "name"), [("en", "Tressette Scoresheet"), ("it", "Segnapunti Tressette")]
)
def test_the_manifest_makes_the_app_installable_under_a_name_in_the_page_language(
    client, db, language, name
):
    html = client.get("/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    href = f"/manifest.{language}.webmanifest"
    assert f'<link rel="manifest" href="{href}">' in html
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
    purposes = {icon["purpose"] for icon in manifest["icons"]}
    assert {"any", "maskable"} <= purposes
    for icon in manifest["icons"]:
        assert finders.find(icon["src"].removeprefix(settings.STATIC_URL))
    assert client.get("/manifest.fr.webmanifest").status_code == 404


def test_every_page_links_the_manifest_and_registers_the_service_worker(client, db):
    html = client.get("/").content.decode()
    assert 'rel="manifest"' in html
    assert "js/app.js" in html


def test_the_service_worker_is_served_from_the_root_and_never_caches_pages(client, db):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    body = response.content.decode()
    assert 'request.mode === "navigate"' in body
    assert "fetch(request).catch(() => caches.match(OFFLINE))" in body
    assert "/static/css/app.css" in body


def test_the_offline_page_says_why_no_sheet_is_shown(client, db):
    html = client.get("/offline", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "never read an old score as the current one" in html
