"""What the pages keep between requests, keyed by the revision that changes it: every phone at
a table reads the same sheet, so the server reads it once per revision and language, and
draws each page once per revision, role and language, whichever process a phone reaches.

Three things are kept in Django's cache, which the server's processes share: the sheet read
(also here, in each process, as the object it is), whole pages ({% keep %}, with the key
`page_key` makes) and the sheet's parts HTMX swaps ({% cache %}). None holds what is one
phone's own (its CSRF token, a deal's idempotency key): that is drawn afresh on every answer,
after what is kept (`own`, own.html). A page kept is answered as that part and this one
(`drawn`), without the template that drew it. And a poll, or a sheet opened, may start from
the match's state as this process read it a moment ago (`polled_state`: all the matches
watched, in one query).
"""

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping

from django.conf import settings
from django.core.cache import cache
from django.core.cache.utils import make_template_fragment_key
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.template import Context
from django.template.loader import get_template
from django.utils.crypto import constant_time_compare
from django.utils.translation import get_language

from matches import selectors

SHEETS = 500  # sheets a process keeps: those of the tables playing now
PAGES = 300  # pages a process keeps as drawn (a 40-deal sheet is 36 KB): read without a file
WATCH_IDLE = 60.0  # seconds after its last poll a match's state is no longer read
KEEP = 60 * 60  # seconds a drawn page or part is kept (a newer revision has another key)


class _Recent:
    """The most recently used values, in this process: a sheet is kept as the object it is,
    not read back from Django's cache (unpickling a long sheet costs about 0.1 ms)."""

    def __init__(self, size: int) -> None:
        self.size, self.values, self.lock = size, OrderedDict(), threading.Lock()

    def get(self, key: tuple):
        with self.lock:
            value = self.values.get(key)
            if value is not None:
                self.values.move_to_end(key)
            return value

    def put(self, key: tuple, value) -> None:
        with self.lock:
            self.values[key] = value
            self.values.move_to_end(key)
            if len(self.values) > self.size:
                self.values.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.values.clear()


_sheets = _Recent(SHEETS)


def _sheet_key(token: str, match_id: int, revision: int) -> tuple:
    # The view link is part of the key: the sheet's addresses carry it.
    return (match_id, revision, token, get_language())


def _shared(key: tuple) -> str:
    return "sheet:" + ":".join(map(str, key))


def sheet(token: str, match_id: int, revision: int | None = None) -> selectors.Sheet | None:
    """The sheet at `revision` if it was kept (by this process or another), else as it
    stands now (and kept)."""
    if revision is not None:
        key = _sheet_key(token, match_id, revision)
        if (found := _sheets.get(key) or cache.get(_shared(key))) is not None:
            _sheets.put(key, found)
            return found
    loaded = selectors.load_sheet(token, match_id)
    if loaded is not None:
        key = _sheet_key(token, match_id, loaded.revision)
        _sheets.put(key, loaded)
        cache.set(_shared(key), loaded, KEEP)
    return loaded


class _Watch:
    """The state of each match this process's phones poll or open, all read in one query at
    most once every POLL_STALE_SECONDS: every phone polls every few seconds, and a query for
    each poll would cost more than the rest of it. A match not watched yet, or asked for
    through another view link (a new one), is read alone; one not asked for in WATCH_IDLE
    seconds is no longer read."""

    def __init__(self, size: int) -> None:
        self.size, self.lock = size, threading.Lock()
        # By match: its view link, its state, when a phone last asked (least recent first).
        self.states: OrderedDict[int, tuple[str, selectors.State, float]] = OrderedDict()
        self.read_at = -math.inf

    def state(self, token: str, match_id: int) -> selectors.State | None:
        with self.lock:
            now = time.monotonic()
            if now - self.read_at >= settings.POLL_STALE_SECONDS:
                self._read_all(now)
            found = self.states.get(match_id)
            if found is not None and constant_time_compare(found[0], token):
                self.states[match_id] = (token, found[1], now)
                self.states.move_to_end(match_id)
                return found[1]
        state = selectors.match_state(token, match_id)
        if state is not None:
            with self.lock:
                self.states[match_id] = (token, state, now)
                self.states.move_to_end(match_id)
                if len(self.states) > self.size:
                    self.states.popitem(last=False)
        return state

    def _read_all(self, now: float) -> None:
        asked = [(match_id, at) for match_id, (_, _, at) in self.states.items()
                 if now - at < WATCH_IDLE]  # fmt: skip
        read = selectors.match_states([match_id for match_id, _ in asked])
        self.states = OrderedDict(
            (match_id, (*read[match_id], at)) for match_id, at in asked if match_id in read
        )
        self.read_at = now

    def clear(self) -> None:
        with self.lock:
            self.states.clear()
            self.read_at = -math.inf


_watched = _Watch(5000)


def polled_state(token: str, match_id: int) -> selectors.State | None:
    """A match's state for a poll or a sheet opened, as this process read it at most
    POLL_STALE_SECONDS ago: another phone's change is seen that much later."""
    return _watched.state(token, match_id)


_pages = _Recent(PAGES)


def page(key: tuple) -> bytes | None:
    """A page drawn under `key`, by this process (kept as it is) or another, as it is sent:
    encoded once (encoding a 36 KB sheet on every answer cost 0.04 ms)."""
    found = _pages.get(key)
    if found is None and (found := cache.get(_page_key(key))) is not None:
        _pages.put(key, found)
    return found


def keep_page(key: tuple, drawn: str) -> None:
    encoded = drawn.encode()
    _pages.put(key, encoded)
    cache.set(_page_key(key), encoded, KEEP)


# What a page's own part reads of the page's context: its own template, if it has one
# (the sheet's _phone.html), and what that shows (each named, even as None: a name missing
# from a template's context costs it an exception caught).
OWN = ("own_template", "key", "can_score", "oob")


def drawn(request: HttpRequest, template: str, context: dict, status: int = 200) -> HttpResponse:
    """A page that may be kept (`page_key`): its kept part as it was drawn for everyone, and
    this phone's own; the first time, the template draws it whole (and keeps it). Answered
    from what is kept, with no template around its own part, the sheet cost 2.5 ms in
    process, not 2.9."""
    key = context.get("page_key")
    body = page(key) if key else None
    if body is None:
        return render(request, template, context, status=status)
    return HttpResponse(body + own(request, context).encode(), status=status)


def own(request: HttpRequest | None, page: Mapping | Context) -> str:
    """What is this phone's own on a page, drawn afresh every time after the kept part
    (own.html, which ends the page): its CSRF token, and what the page's context holds of
    OWN (the view's context, or the template's drawing the page whole)."""
    values = {name: page.get(name) for name in OWN}
    values["csrf_token"] = get_token(request) if request is not None else ""  # no request
    return get_template("own.html").template.render(Context(values))


def _page_key(key: tuple) -> str:
    return make_template_fragment_key("page", [repr(key)])


def page_key(*depends_on: object) -> tuple:
    """What a page drawn for everyone is kept under: what it depends on, and the language."""
    return (*depends_on, get_language())


def forget() -> None:
    """For the tests: each starts with nothing kept."""
    _sheets.clear()
    _pages.clear()
    _watched.clear()
