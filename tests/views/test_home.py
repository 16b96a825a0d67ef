import re


def test_the_home_page_loads_htmx_from_this_server_with_a_nonce(client, db):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="en")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<h1>Tressette Scoresheet</h1>" in html
    scripts = re.findall(r"<script[^>]*>", html)
    assert any('src="/static/django_htmx/htmx-2.min.js"' in tag for tag in scripts)
    assert all("nonce=" in tag for tag in scripts)
    assert '"X-CSRFToken": "' in html
