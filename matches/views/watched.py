"""The state of the matches this process's phones poll: every phone polls every few seconds,
and a query for each poll would cost the database more than the rest of the answer. So the
state of all the matches watched is read in one query, at most once every
POLL_STALE_SECONDS; a match not watched yet, or asked for through another view link (a new
one), is read alone; one nobody asked for in WATCH_IDLE seconds is no longer read."""

import math
import threading
import time

from django.conf import settings
from django.utils.crypto import constant_time_compare

from matches import selectors

WATCH_IDLE = 60.0  # seconds
WATCHED = 5000  # matches at most: those of the tables playing now


class _Watched:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        # By match: its view link, its state, when a phone last asked (least recent first).
        self.states: dict[int, tuple[str, selectors.State, float]] = {}
        self.read_at = -math.inf

    def state(self, token: str, match_id: int) -> selectors.State | None:
        now = time.monotonic()
        with self.lock:
            if now - self.read_at >= settings.POLL_STALE_SECONDS:
                asked = {match_id: at for match_id, (_, _, at) in self.states.items()
                         if now - at < WATCH_IDLE}  # fmt: skip
                read = selectors.match_states(list(asked))
                self.states = {match_id: (*read[match_id], at) for match_id, at in asked.items()
                               if match_id in read}  # fmt: skip
                self.read_at = now
            found = self.states.get(match_id)
            if found is not None and constant_time_compare(found[0], token):
                del self.states[match_id]  # back in as the most recent
                self.states[match_id] = (token, found[1], now)
                return found[1]
        state = selectors.match_state(token, match_id)
        if state is not None:
            with self.lock:
                self.states[match_id] = (token, state, now)
                while len(self.states) > WATCHED:
                    del self.states[next(iter(self.states))]
        return state


_watched = _Watched()


def polled_state(token: str, match_id: int) -> selectors.State | None:
    """A match's state for a poll or a sheet opened, as this process read it at most
    POLL_STALE_SECONDS ago: another phone's change is seen that much later."""
    return _watched.state(token, match_id)


def forget() -> None:
    """For the tests: each starts with nothing read."""
    with _watched.lock:
        _watched.states.clear()
        _watched.read_at = -math.inf
