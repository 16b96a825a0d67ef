import gzip
import io
import logging
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse

from matches.models import Table
from tests.html import csrf_token

pytestmark = pytest.mark.django_db


def test_an_error_is_logged_with_its_traceback_but_never_the_secret(match, caplog, settings):
    settings.SECRET_KEY = "a-distinctive-secret-that-must-never-be-logged"
    phone = Client(raise_request_exception=False)
    url = reverse("match", args=[match.table.viewer_token, match.pk])
    with (
        caplog.at_level(logging.ERROR, logger="django.request"),
        mock.patch("matches.selectors.load_sheet", side_effect=RuntimeError("boom")),
    ):
        response = phone.get(url)
    assert response.status_code == 500
    assert "Nothing you entered was half-saved" in response.content.decode()
    record = next(r for r in caplog.records if r.name == "django.request")
    assert record.exc_info and record.exc_info[0] is RuntimeError
    logged = caplog.text + "".join(logging.Formatter().formatException(record.exc_info))
    assert "Traceback" in logged
    assert settings.SECRET_KEY not in logged


def test_the_language_switcher_remembers_the_choice(client):
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert "Create table" in client.get("/").content.decode()
    client.post(reverse("set_language"), {"language": "it", "next": "/"})
    assert "Crea il tavolo" in client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_a_request_that_cannot_be_read_is_answered_in_words(client):
    response = client.get("/", HTTP_HOST="not-this-site.example", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert "Nothing was changed. Go back, check what you sent and try again." in response.text


@pytest.mark.parametrize("charset", ["latin-1", "utf-16", "cp1252"])
def test_a_form_sent_in_another_encoding_is_refused_in_words_not_a_500(charset):
    phone = Client(enforce_csrf_checks=True, raise_request_exception=False)
    token = csrf_token(phone.get("/"))
    response = phone.post(
        reverse("create_table"),
        b"name=Bar",
        content_type=f"application/x-www-form-urlencoded; charset={charset}",
        HTTP_X_CSRFTOKEN=token,
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 400
    assert "Nothing was changed. Go back, check what you sent and try again." in response.text
    assert not Table.objects.exists()


@pytest.mark.parametrize("charset", ["utf8", "UTF_8", "u8"])
def test_a_form_in_utf8_by_another_of_its_names_is_read(charset):
    phone = Client(enforce_csrf_checks=True)
    token = csrf_token(phone.get("/"))
    response = phone.post(
        reverse("create_table"),
        "name=Caffè".encode(),
        content_type=f"application/x-www-form-urlencoded; charset={charset}",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 302
    assert Table.objects.get().name == "Caffè"


def test_a_form_cut_off_mid_send_is_refused_in_words_not_a_500():
    phone = Client(enforce_csrf_checks=True, raise_request_exception=False)
    token = csrf_token(phone.get("/"))
    request = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": reverse("create_table"),
        "CONTENT_TYPE": "application/x-www-form-urlencoded",
        "CONTENT_LENGTH": "100",  # announced, never sent: the body ends after 8 bytes
        "wsgi.input": _CutOff(b"name=Bar"),
        "HTTP_X_CSRFTOKEN": token,
        "HTTP_ACCEPT_LANGUAGE": "en",
    }
    response = phone.request(**request)
    assert response.status_code == 400
    assert "Nothing was changed" in response.text
    assert not Table.objects.exists()


class _CutOff(io.BytesIO):
    """A request body whose sender went away: asked for more than came, it raises, as a WSGI
    server's input does (scoresheet.wsgi's guard on granian's input raises OSError)."""

    def read(self, size=-1):
        data = super().read(size)
        if size is not None and size > len(data):
            raise OSError("the connection was lost")
        return data


def test_the_500_page_speaks_italian_first_and_english_too(match):
    phone = Client(raise_request_exception=False)
    url = reverse("match", args=[match.table.viewer_token, match.pk])
    with mock.patch("matches.selectors.load_sheet", side_effect=RuntimeError("boom")):
        html = phone.get(url).content.decode()
    assert '<html lang="it">' in html
    assert "Niente di quello che hai inserito è stato salvato a metà." in html
    assert '<div lang="en">' in html


def test_a_form_sent_without_a_pages_token_is_refused_in_words(settings):
    phone = Client(enforce_csrf_checks=True)
    response = phone.post(reverse("create_table"), {"name": "Bar"}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 403
    assert "Nothing was changed: go back, reload the page and try again." in response.text
    italian = phone.post(reverse("create_table"), {"name": "Bar"}, HTTP_ACCEPT_LANGUAGE="it")
    assert "Pagina non aggiornata" in italian.text


def test_every_answer_says_which_browser_features_the_app_may_use(client):
    policy = client.get("/")["Permissions-Policy"]
    assert "camera=()" in policy and "geolocation=()" in policy
    assert "screen-wake-lock=(self)" in policy  # the sheet keeps the screen on


def test_an_error_page_names_itself_and_leads_home_with_a_button(client, db):
    html = client.get("/t/nope/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<title>Not found · Tressette</title>" in html
    assert '<a class="button" href="/">Home</a>' in html


def test_pages_are_compressed_but_icons_are_sent_as_they_are(settings, db):
    """Django's GZip compresses what Django draws; a static file is answered before it (by
    whitenoise, compressed ahead of time where that helps: a PNG only grows)."""
    settings.WHITENOISE_USE_FINDERS = True
    settings.WHITENOISE_AUTOREFRESH = True
    phone = Client()
    icon = phone.get("/static/icons/icon-192.png", HTTP_ACCEPT_ENCODING="gzip")
    assert icon.status_code == 200 and not icon.has_header("Content-Encoding")
    page = phone.get("/", HTTP_ACCEPT_ENCODING="gzip", HTTP_ACCEPT_LANGUAGE="en")
    assert page["Content-Encoding"] == "gzip" and "Accept-Encoding" in page["Vary"]
    assert b"<title>Tressette Scoresheet</title>" in gzip.decompress(page.content)
