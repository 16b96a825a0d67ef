import logging
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_an_error_is_logged_with_its_traceback_but_never_the_secret(match, caplog, settings):
    settings.SECRET_KEY = "a-distinctive-secret-that-must-never-be-logged"
    phone = Client(raise_request_exception=False)
    url = reverse("match", args=[match.table.viewer_token, match.pk])
    with (
        caplog.at_level(logging.ERROR, logger="django.request"),
        mock.patch("matches.views.Sheet.load", side_effect=RuntimeError("boom")),
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
