"""A poll of an unchanged sheet, answered 304 before Django's middleware and views.

Every phone at a table polls its sheet every few seconds, and almost every poll finds it
unchanged: going through the whole middleware stack to say so cost the server about three
times what the answer needs. `UnchangedPolls` wraps the WSGI application: a poll whose
If-None-Match is the sheet's ETag as it stands (the same `etag` the view sends) is answered
here, for the phone's role and language as the session and the locale would say them;
anything else goes on to Django.
"""

import hashlib
import re
from importlib import import_module

from django.conf import settings
from django.core import signals
from django.core.exceptions import DisallowedHost
from django.core.handlers.wsgi import WSGIRequest
from django.http import QueryDict
from django.utils import translation
from django.utils.cache import parse_etags

from matches import selectors
from matches.views import kept
from matches.views.access import joined_with

POLLED = "poll"  # a poll's query, for its ETag: the phone's own values in it change nothing
POLL = re.compile(r"/t/(?P<token>[A-Za-z0-9_-]{1,64})/m/(?P<match_id>[0-9]{1,18})/")
# What a table page's answer says of caches and robots (access.table_page): a 304 repeats it.
HEADERS = [
    ("Cache-Control", "private, no-cache, no-store"),
    ("Vary", "HX-Request, Cookie, Accept-Language"),
    ("X-Robots-Tag", "noindex, nofollow"),
    ("X-Content-Type-Options", "nosniff"),
]


def etag(match_id: int, state: selectors.State, scorer: bool, language: str, htmx: bool,
         query: str = POLLED, secret: str = "") -> str:  # fmt: skip
    """Changes with the match's revision and whatever else changes the answer: the role (a
    new scorer link changes every scorer's), the language, HTMX, the page's query (for a
    poll, what `polled` keeps of it) and, for a whole page, the session's CSRF secret its
    tokens are masked from."""
    parts = [match_id, state.revision, state.scorer_token if scorer else "", language, htmx, query,
             secret]  # fmt: skip
    return f'"{hashlib.blake2s(repr(parts).encode(), digest_size=12).hexdigest()}"'


def polled(query: QueryDict) -> str:
    """What of a poll's query changes its answer. Not the deal number the phone shows while
    it is not typing (its copy is the sheet at a revision); while it types, that number, so
    that a phone whose deal another phone took is told so, whatever it was answered before
    (an answer's entry form is not swapped in over a deal being typed)."""
    return f"{POLLED}:{query.get('number', '')}" if query.get("typing") == "1" else POLLED


class UnchangedPolls:
    def __init__(self, application) -> None:
        self.application = application

    def __call__(self, environ: dict, start_response):
        if environ.get("REQUEST_METHOD") == "GET" and environ.get("HTTP_IF_NONE_MATCH"):
            found = POLL.fullmatch(environ.get("PATH_INFO", ""))
            if found and (tag := self.unchanged(environ, **found.groupdict())):
                start_response("304 Not Modified", [("ETag", tag), *HEADERS])
                return []
        return self.application(environ, start_response)

    def unchanged(self, environ: dict, token: str, match_id: str) -> str | None:
        # A request to Django's signals as to its handler's: the database connection is
        # checked before and closed after, as its settings say.
        signals.request_started.send(sender=self.__class__, environ=environ)
        try:
            return unchanged(WSGIRequest(environ), token, int(match_id))
        except Exception:  # a request it cannot read, a database error: not its to answer
            return None  # Django answers it, in words, as any request
        finally:
            signals.request_finished.send(sender=self.__class__)


def unchanged(request: WSGIRequest, token: str, match_id: int) -> str | None:
    """The ETag the poll sent, if it is the sheet's as it stands; else None (Django answers)."""
    if "poll" not in request.GET or (settings.SECURE_SSL_REDIRECT and not request.is_secure()):
        return None
    try:
        request.get_host()  # an allowed host only, as Django checks
    except DisallowedHost:
        return None
    state = kept.polled_state(token, match_id)
    if state is None:
        return None
    # This phone's role and language, as the session and locale middleware would find them.
    request.session = import_module(settings.SESSION_ENGINE).SessionStore(
        request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    )
    scorer = joined_with(request, state.table_id, state.scorer_token)
    language = translation.get_language_from_request(request)
    htmx = request.META.get("HTTP_HX_REQUEST") == "true"  # as django-htmx's request.htmx says
    tag = etag(match_id, state, scorer, language, htmx, polled(request.GET))
    sent = {tag.removeprefix("W/") for tag in parse_etags(request.META["HTTP_IF_NONE_MATCH"])}
    return tag if tag in sent else None
