"""A small fixed-window rate limit per client address, on the cache every worker shares."""

from django.core.cache import caches
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def allow(request: HttpRequest, scope: str, *, limit: int, window: int) -> bool:
    """True while this address has done `scope` at most `limit` times in the current window."""
    cache = caches["limits"]
    key = f"limit:{scope}:{client_address(request)}"
    cache.add(key, 0, timeout=window)
    try:
        count = cache.incr(key)
    except ValueError:  # the window expired between add and incr
        cache.set(key, 1, timeout=window)
        count = 1
    return count <= limit
