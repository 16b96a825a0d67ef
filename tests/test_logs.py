"""Logs never hold a table's links."""

import doctest
import io
import logging
import sys
from datetime import timedelta

import pytest

from scoresheet import logs


def test_the_docstring_examples_hold():
    assert doctest.testmod(logs).failed == 0


def test_a_logged_line_and_its_traceback_lose_the_token():
    django_handler = next(
        handler
        for handler in logging.getLogger().handlers
        if isinstance(handler.formatter, logs.RedactingFormatter)
    )
    try:
        raise ValueError("no table at /t/SeCrEtViewerToken/m/3/")
    except ValueError:
        record = logging.getLogger("django.request").makeRecord(
            "django.request",
            logging.WARNING,
            __file__,
            1,
            "Not Found: %s",
            ("/join/SeCrEtScorerToken/",),
            exc_info=sys.exc_info(),
        )
    line = django_handler.format(record)
    assert "Not Found: /join/SeCr…/" in line
    assert "/t/SeCr…/m/3/" in line  # in the traceback too
    assert "ViewerToken" not in line and "ScorerToken" not in line


def test_a_bad_log_call_is_reported_as_ever_and_does_not_raise(capsys):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.RedactingFormatter())
    logger = logging.getLogger("tests.bad-call")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("value %d", "x")  # a formatting mistake in some library
    finally:
        logger.removeHandler(handler)
    assert stream.getvalue() == ""
    assert "Logging error" in capsys.readouterr().err


def _django_handler() -> logging.Handler:
    return next(
        handler
        for handler in logging.getLogger().handlers
        if isinstance(handler.formatter, logs.RedactingFormatter)
    )


@pytest.mark.django_db
def test_a_refusal_is_logged_in_one_line_without_its_traceback(client):
    from tests.factories import TableFactory

    table = TableFactory()
    stream = io.StringIO()
    handler = _django_handler()
    former = handler.setStream(stream)
    try:
        response = client.post(f"/t/{table.viewer_token}/players/add", {"name": "Zeno"})
        client.get("/t/nope/")  # a 404 is logged as before
        wrong_host = client.get("/", HTTP_HOST="evil.example")
    finally:
        handler.setStream(former)
    assert response.status_code == 403 and wrong_host.status_code == 400
    lines = stream.getvalue()
    assert "Forbidden (Permission denied): /t/" in lines and "Traceback" not in lines
    assert "Invalid HTTP_HOST header: 'evil.example'" in lines
    assert "Not Found: /t/nope…/" in lines


@pytest.mark.django_db
def test_a_token_is_cut_from_the_log_however_the_path_spells_it(client):
    from tests.factories import TableFactory

    table = TableFactory()
    token = table.scorer_token
    encoded = "".join(f"%{ord(char):02X}" for char in token)
    paths = [f"/t/./{token}/", f"/join;x/{token}/", f"/x/{encoded}/", f"/t//{token}/m/1/"]
    stream = io.StringIO()
    handler = _django_handler()
    former = handler.setStream(stream)
    try:
        answers = [client.get(path).status_code for path in paths]
    finally:
        handler.setStream(former)
    assert answers == [404, 404, 404, 404]
    lines = stream.getvalue()
    assert lines.count(f"{token[:4]}…") == len(paths)
    assert token[4:] not in lines


def test_the_access_log_leaves_out_unchanged_polls_only(tmp_path):
    from gunicorn.config import Config
    from gunicorn.http.wsgi import Response

    log = tmp_path / "access.log"
    config = Config()
    config.set("accesslog", str(log))
    config.set("access_log_format", '"%(r)s" %(s)s')
    logger = logs.GunicornLogger(config)

    class Request:
        headers = []
        version = (1, 1)

    def answered(status: str, query: str) -> None:
        response = Response(Request(), None, config)
        response.status, response.status_code = status, int(status.split()[0])
        environ = {"REQUEST_METHOD": "GET", "RAW_URI": f"/t/SeCrEtViewerToken/m/3/?{query}",
                   "QUERY_STRING": query, "SERVER_PROTOCOL": "HTTP/1.1"}  # fmt: skip
        logger.access(response, Request(), environ, timedelta(milliseconds=1))

    answered("304 Not Modified", "poll=1&number=4&typing=0")
    answered("200 OK", "poll=1&number=4&typing=0")  # the sheet changed
    answered("304 Not Modified", "")  # a page, not a poll
    answered("200 OK", "")
    lines = log.read_text().splitlines()
    assert lines == [
        '"GET /t/SeCr…/m/3/?poll=1&number=4&typing=0 HTTP/1.1" 200',
        '"GET /t/SeCr…/m/3/? HTTP/1.1" 304',
        '"GET /t/SeCr…/m/3/? HTTP/1.1" 200',
    ]
