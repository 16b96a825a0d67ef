"""Logs never hold a table's links: the token in a /t/ or /join/ path, and anything else that
looks like one however it is spelt, is cut to its first four characters, enough to tell
tables apart in a log, of no use to open one.

`RedactingFormatter` writes every line so, tracebacks included (settings.LOGGING), the access
log's lines too: the app writes those itself (`AccessLog`), whatever server runs it.
"""

import logging
import re
import time
from urllib.parse import unquote

# /t/ or /join/, in any case and with any character percent-encoded (/%74/ and /t%2F are /t/
# to the server).
_PREFIX = r"(?i:(?:/|%2f)(?:t|%[57]4|(?:j|%[46]a)(?:o|%[46]f)(?:i|%[46]9)(?:n|%[46]e))(?:/|%2f))"
_TOKEN = re.compile(rf"({_PREFIX})([^/?#\s]{{4}})[^/?#\s]*")


# A token however a path spells it (/t/./TOKEN/, /join;x/TOKEN/, percent-encoded): a run of
# 24 or more URL-safe characters holding a capital or a digit, as a token's 32 random ones do
# (a name joined by underscores, as in a traceback, holds neither).
_MAYBE_ENCODED = re.compile(r"(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9_-])+")
_RANDOM = re.compile(r"(?=[A-Za-z0-9_-]*[A-Z0-9])[A-Za-z0-9_-]{24,}")


def _cut_random(found: re.Match) -> str:
    raw = found.group(0)
    plain = unquote(raw) if "%" in raw else raw
    if not _RANDOM.search(plain):
        return raw
    cut = _RANDOM.sub(lambda run: run.group(0)[:4] + "…", plain)
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in cut)


def redact(text: str) -> str:
    """
    >>> redact("GET /t/AbCdEfGh1234/m/3/?poll=1 HTTP/1.1")
    'GET /t/AbCd…/m/3/?poll=1 HTTP/1.1'
    >>> redact("Forbidden (Permission denied): /join/XyZw9876/")
    'Forbidden (Permission denied): /join/XyZw…/'
    >>> redact("GET /%74/W3qwIRAcS8mTl34lvzBfYlcr7W4KH3hV/ HTTP/1.1")
    'GET /%74/W3qw…/ HTTP/1.1'
    >>> redact("GET /%4AOIN/W3qwIRAcS8mTl34lvzBfYlcr7W4KH3hV/ HTTP/1.1")
    'GET /%4AOIN/W3qw…/ HTTP/1.1'
    >>> redact("GET /t%2FW3qwIRAcS8mTl34lvzBfYlcr7W4KH3hV/ HTTP/1.1")
    'GET /t%2FW3qw…/ HTTP/1.1'
    >>> redact("GET /t/./W3qwIRAcS8mTl34lvzBfYlcr7W4KH3hV/ HTTP/1.1")
    'GET /t/./W3qw…/ HTTP/1.1'
    >>> redact("GET /join;x/W3qwIRAcS8mTl34lvzBfYlcr7W4KH3hV/ HTTP/1.1")
    'GET /join;x/W3qw…/ HTTP/1.1'
    >>> redact("GET /x/%57%33qwIRAcS8mTl34lvzBfYlcr7W4KH3hV/ HTTP/1.1")
    'GET /x/W3qw…/ HTTP/1.1'
    >>> redact("in scorer_match_and_sides_of_a_long_name")
    'in scorer_match_and_sides_of_a_long_name'
    """
    return _MAYBE_ENCODED.sub(_cut_random, _TOKEN.sub(r"\1\2…", text))


class RedactingFormatter(logging.Formatter):
    """A formatter whose lines, and the tracebacks under them, hold no table's token."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def without_denial_tracebacks(record: logging.LogRecord) -> bool:
    """A refusal is logged in one line: a 403 (a viewer asking to score, a changed scorer
    link) or a 400 (a request for another host, a body too big: what scanners send) is an
    everyday answer, not a fault, and its traceback would bury the real ones."""
    if getattr(record, "status_code", None) in (400, 403):
        record.exc_info = None
        record.exc_text = None
    return True


ACCESS = logging.getLogger("scoresheet.access")


class AccessLog:
    """A WSGI wrapper writing a line per request once its answer is sent: who asked, what, the
    status, the size and how long it took. A poll answered "unchanged" is not logged: every
    phone at a table polls every 3 s, and at 2,000 phones that is 600 lines a second that say
    nothing. With `server_timing` (settings.SERVER_TIMING: the benchmark's), each answer also says
    the CPU time it took the app, which a client cannot tell from its own timings."""

    def __init__(self, application, *, server_timing: bool = False) -> None:
        self.application, self.server_timing = application, server_timing

    def __call__(self, environ: dict, start_response):
        started, answered, cpu = time.perf_counter(), [], time.thread_time()

        def start(status: str, headers: list, exc_info=None):
            if self.server_timing:  # the CPU this thread spent on the answer until its headers
                spent = (time.thread_time() - cpu) * 1000
                headers.append(("Server-Timing", f"app;dur={spent:.2f}"))
            answered[:] = [status, headers]
            if exc_info is None:
                return start_response(status, headers)
            return start_response(status, headers, exc_info)

        body = self.application(environ, start)
        if isinstance(body, list):  # all there already: no close to wait for
            _log(environ, *answered, time.perf_counter() - started)
            return body
        return _Logged(body, lambda: _log(environ, *answered, time.perf_counter() - started))


class _Logged:
    """The answer's body, logged when the server closes it (all of it sent, or the client
    gone)."""

    def __init__(self, body, logged) -> None:
        self.body, self.logged = body, logged

    def __iter__(self):
        return iter(self.body)

    def close(self) -> None:
        try:
            if hasattr(self.body, "close"):
                self.body.close()
        finally:
            self.logged()


def _log(environ: dict, status: str, headers: list, seconds: float) -> None:
    code = status.split(" ", 1)[0]
    query = environ.get("QUERY_STRING", "")
    if code == "304" and "poll=1" in query.split("&"):
        return
    path = environ.get("PATH_INFO", "") + (f"?{query}" if query else "")
    size = next((value for name, value in headers if name.lower() == "content-length"), "-")
    request = f"{environ.get('REQUEST_METHOD')} {path} {environ.get('SERVER_PROTOCOL')}"
    ACCESS.info('%s "%s" %s %s %dms', environ.get("REMOTE_ADDR", "-"), request, code, size,
                round(seconds * 1000))  # fmt: skip
