"""WSGI entry point: granian serves `served` (bin/entrypoint): Django's own handler, with the
server's environment kept out of each request, a body cut short refused, and an access log."""

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scoresheet.settings")

django_application = get_wsgi_application()
# Imported once Django is set up.
from matches.db import checkpoint_in_background  # noqa: E402
from scoresheet.logs import AccessLog  # noqa: E402

# The server's own environment is not the request's: granian puts it in every request's
# environ (DJANGO_SECRET_KEY, DATABASE_URL), where request.META would show it to any code.
# (Names a request sets itself are left: the CGI variables and the headers, HTTP_*.)
_CGI = {"REQUEST_METHOD", "SCRIPT_NAME", "PATH_INFO", "QUERY_STRING", "CONTENT_TYPE",
        "CONTENT_LENGTH", "SERVER_NAME", "SERVER_PORT", "SERVER_PROTOCOL", "REMOTE_ADDR",
        "GATEWAY_INTERFACE", "SERVER_SOFTWARE"}  # fmt: skip
_INHERITED = frozenset(name for name in os.environ if name not in _CGI and name[:5] != "HTTP_")
_served = AccessLog(django_application, server_timing=settings.SERVER_TIMING)


class _WholeBody:
    """A request's body, read as Django reads it (never past its Content-Length): a read that
    comes back short is a client gone mid-body, which granian passes on as if the body had
    ended. It raises as a WSGI server's input does (gunicorn's NoMoreData is an OSError), so
    the request is refused in words and nothing of it stored."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def read(self, size: int = -1) -> bytes:
        return self._whole(self.stream.read(size), size)

    def readline(self, size: int = -1) -> bytes:
        line = self.stream.readline(size)
        return line if line.endswith(b"\n") else self._whole(line, size)

    @staticmethod
    def _whole(data: bytes, size: int | None) -> bytes:
        if size is not None and len(data) < size:
            raise OSError("the request's body was cut short: the client went away")
        return data


def application(environ: dict, start_response):
    for name in _INHERITED.intersection(environ):
        del environ[name]
    if environ.get("CONTENT_LENGTH", "0") not in ("", "0"):
        environ["wsgi.input"] = _WholeBody(environ["wsgi.input"])
    return _served(environ, start_response)


def served():
    """What the server runs in each of its processes (bin/entrypoint: granian's --factory):
    the app, with SQLite's checkpoints in a thread (matches.db); the tests and runserver
    leave them to SQLite."""
    checkpoint_in_background()
    return application
