"""A small fixed-window rate limit per client address, counted in the database."""

import time

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from matches.db import atomic
from matches.models import Counted


def client_address(request: HttpRequest) -> str:
    """The connection's peer; behind `settings.TRUSTED_PROXIES` proxies, the address the
    outermost one saw. Each proxy adds the address it saw to X-Forwarded-For, so that one is
    the proxies' count from the right; anything further left is the client's own word."""
    proxies = settings.TRUSTED_PROXIES
    if proxies > 0:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        hops = [hop.strip() for hop in forwarded if hop.strip()]
        if len(hops) >= proxies:
            return hops[-proxies][:64]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


@atomic
def allow(request: HttpRequest, scope: str, *, limit: int, window: int) -> bool:
    """True while this address has done `scope` at most `limit` times in the current window
    (windows of `window` seconds, one after the other). Windows past are forgotten here."""
    start, address = int(time.time()) // window * window, client_address(request)
    counted = Counted.objects.filter(scope=scope, address=address, window=start)
    if not counted.update(count=F("count") + 1):
        try:
            with transaction.atomic():
                Counted.objects.create(scope=scope, address=address, window=start, count=1)
        except IntegrityError:  # another request of this address counted first
            counted.update(count=F("count") + 1)
    Counted.objects.filter(scope=scope, window__lt=start).delete()
    return counted.values_list("count", flat=True).get() <= limit


def refused(request: HttpRequest, window: int, message: str = "") -> HttpResponse:
    """The 429 page of a limit reached: what to do, in words, and when (Retry-After)."""
    context = {"message": message, "minutes": window // 60}
    response = render(request, "429.html", context, status=429)
    response["Retry-After"] = str(window)
    return response
