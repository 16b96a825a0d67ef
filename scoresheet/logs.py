"""Logs never hold a table's links: the token in a /t/ or /join/ path is cut to its first
four characters, enough to tell tables apart in a log, of no use to open one.

`RedactTokens` filters Django's records (settings.LOGGING); `GunicornLogger` does the same to
gunicorn's access log (bin/entrypoint passes it as --logger-class).
"""

import logging
import re

from gunicorn.glogging import Logger

_TOKEN = re.compile(r"(/(?:t|join)/)([^/?#\s]{4})[^/?#\s]*")


def redact(text: str) -> str:
    """
    >>> redact("GET /t/AbCdEfGh1234/m/3/?poll=1 HTTP/1.1")
    'GET /t/AbCd…/m/3/?poll=1 HTTP/1.1'
    >>> redact("Forbidden (Permission denied): /join/XyZw9876/")
    'Forbidden (Permission denied): /join/XyZw…/'
    """
    return _TOKEN.sub(r"\1\2…", text)


class RedactTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), ()
        return True


class GunicornLogger(Logger):
    """gunicorn's logger, with the request line and path redacted in the access log."""

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        for key in ("r", "U", "f"):  # the request line, the path, the Referer
            if isinstance(atoms.get(key), str):
                atoms[key] = redact(atoms[key])
        return atoms
