"""Logs never hold a table's links: the token in a /t/ or /join/ path, and anything else that
looks like one however it is spelt, is cut to its first four characters, enough to tell
tables apart in a log, of no use to open one.

`RedactingFormatter` writes every line so, tracebacks included: Django's handler uses it
(settings.LOGGING), and `GunicornLogger` puts it on gunicorn's access and error logs
(bin/entrypoint passes it as --logger-class).
"""

import logging
import re
from urllib.parse import unquote

from gunicorn.glogging import Logger

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


class GunicornLogger(Logger):
    """gunicorn's logger, every line of both its logs redacted; a poll answered "unchanged"
    is not logged. Every phone at a table polls every 3 s: at 2,000 phones that is 600 lines
    a second that say nothing, and writing each cost the server a tenth of the answer."""

    def access(self, resp, req, environ: dict, request_time) -> None:
        unchanged_poll = resp.status_code == 304 and "poll=1" in environ.get(
            "QUERY_STRING", ""
        ).split("&")
        if not unchanged_poll:
            super().access(resp, req, environ, request_time)

    def setup(self, cfg) -> None:
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                given = handler.formatter or logging.Formatter()
                handler.setFormatter(RedactingFormatter(given._fmt, given.datefmt))
