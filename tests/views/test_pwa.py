import json
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "static"


def test_the_manifest_makes_the_app_installable():
    manifest = json.loads((STATIC / "manifest.webmanifest").read_text())
    assert manifest["display"] == "standalone"
    assert manifest["theme_color"] and manifest["start_url"] == "/"
    purposes = {icon["purpose"] for icon in manifest["icons"]}
    assert {"any", "maskable"} <= purposes
    for icon in manifest["icons"]:
        assert (STATIC / icon["src"]).exists()


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
