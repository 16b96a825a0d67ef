"""A small fixed-window rate limit per client address, on the cache every worker shares."""

import fcntl
from pathlib import Path

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """The connection's peer; behind `settings.TRUSTED_PROXIES` proxies, the address the
    outermost one saw. Each proxy adds the address it saw to X-Forwarded-For, so that one is
    the proxies' count from the right; anything further left is the client's own word."""
    proxies = settings.TRUSTED_PROXIES
    if proxies > 0:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        hops = [hop.strip() for hop in forwarded if hop.strip()]
        if len(hops) >= proxies:
            return hops[-proxies]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def allow(request: HttpRequest, scope: str, *, limit: int, window: int) -> bool:
    """True while this address has done `scope` at most `limit` times in the current window.

    The file cache's counters are read and written in turn under a lock on the machine: two
    workers counting at once would otherwise both count from the same number.
    """
    cache = caches["limits"]
    key = f"limit:{scope}:{client_address(request)}"
    folder = Path(settings.CACHES["limits"]["LOCATION"])
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "counting.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        cache.add(key, 0, timeout=window)
        try:
            count = cache.incr(key)
        except ValueError:  # the window expired between add and incr
            cache.set(key, 1, timeout=window)
            count = 1
    return count <= limit
