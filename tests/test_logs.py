"""Logs never hold a table's links."""

import doctest
import io
import logging
import re
import sys

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


def test_the_access_log_says_each_answer_and_leaves_out_unchanged_polls_only():
    def app(environ, start_response):
        status = environ["answer"]
        start_response(status, [("Content-Length", "5")] if status[0] == "2" else [])
        # An answer whole, as a poll's 304 is, or one whose parts the server sends in turn.
        return [b"hello"] if status[0] == "3" else (part for part in [b"hel", b"lo"])

    access = logging.getLogger("scoresheet.access")
    handler = next(handler for handler in access.handlers)
    stream = io.StringIO()
    former = handler.setStream(stream)
    logged = logs.AccessLog(app)

    def answered(status: str, query: str) -> None:
        environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/t/SeCrEtViewerToken/m/3/",
                   "QUERY_STRING": query, "SERVER_PROTOCOL": "HTTP/1.1",
                   "REMOTE_ADDR": "10.0.0.7", "answer": status}  # fmt: skip
        body = logged(environ, lambda status, headers, exc_info=None: None)
        assert b"".join(body) == b"hello"
        if hasattr(body, "close"):
            body.close()  # the server closes the answer once sent: the line is written then

    try:
        answered("304 Not Modified", "poll=1&number=4&typing=0")
        answered("200 OK", "poll=1&number=4&typing=0")  # the sheet changed
        answered("304 Not Modified", "")  # a page, not a poll
        answered("200 OK", "")
    finally:
        handler.setStream(former)
    lines = stream.getvalue().splitlines()
    assert [line.split("] ", 1)[1].rsplit(" ", 1)[0] for line in lines] == [
        '10.0.0.7 "GET /t/SeCr…/m/3/?poll=1&number=4&typing=0 HTTP/1.1" 200 5',
        '10.0.0.7 "GET /t/SeCr…/m/3/ HTTP/1.1" 304 -',
        '10.0.0.7 "GET /t/SeCr…/m/3/ HTTP/1.1" 200 5',
    ]
    assert all(re.fullmatch(r"\[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\] .* \d+ms", line)
               for line in lines)  # fmt: skip


def test_the_apps_cpu_time_is_said_in_each_answer_only_when_asked():
    def app(environ, start_response):
        sum(range(100_000))  # some CPU to tell
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]

    def headers_of(logged) -> dict:
        sent = {}
        logged({"REQUEST_METHOD": "GET", "PATH_INFO": "/floor"},
               lambda status, headers, exc_info=None: sent.update(headers))  # fmt: skip
        return sent

    timed = headers_of(logs.AccessLog(app, server_timing=True))["Server-Timing"]
    assert re.fullmatch(r"app;dur=\d+\.\d\d", timed) and float(timed[8:]) > 0
    assert "Server-Timing" not in headers_of(logs.AccessLog(app))
