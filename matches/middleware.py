"""Answers that would otherwise have no words, a header every answer carries, and HEAD."""

import codecs

from django.core.exceptions import BadRequest
from django.http import HttpResponseBadRequest, UnreadablePostError
from django.template.loader import render_to_string


def method_not_allowed_page(get_response):
    """A 405 says what happened in words: someone opened an address that only takes a form's
    submission (a page re-opened from the history after a form answered it, say). The answer
    keeps every header the view gave it (Allow, and a table page's no-index and no-cache)."""

    def middleware(request):
        response = get_response(request)
        if response.status_code == 405 and not response.streaming and not response.content:
            response.content = render_to_string("405.html", request=request)
            response["Content-Type"] = "text/html; charset=utf-8"
        return response

    return middleware


def unreadable_form_refused(get_response):
    """A form that cannot be read is refused in words (400), before the CSRF check: one sent
    in another encoding than UTF-8, or cut off (a phone that lost its connection mid-send).

    Django refuses the first too, but leaves its body to be read again, and the CSRF check
    that its own error pages run reads it and fails the same way: the answer was a bare 500.
    UTF-8 by another of its names ("utf8", "UTF_8") is read as UTF-8.
    """

    def middleware(request):
        if request.method == "POST" and request.content_type == "application/x-www-form-urlencoded":
            if _names_utf8(request.content_params.get("charset", "")):
                request.encoding = "utf-8"
            try:
                request.POST  # noqa: B018 (read here, where a refusal can still be answered)
            except (BadRequest, UnreadablePostError):
                return HttpResponseBadRequest(render_to_string("400.html", request=request))
        return get_response(request)

    return middleware


def _names_utf8(charset: str) -> bool:
    try:
        return codecs.lookup(charset).name == "utf-8"
    except LookupError:
        return False


# Nothing here uses the camera, the microphone, the location or payments; the sheet keeps
# the screen awake.
PERMISSIONS_POLICY = (
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), screen-wake-lock=(self)"
)


def permissions_policy(get_response):
    """Every answer says which browser features the app may use, and no more."""

    def middleware(request):
        response = get_response(request)
        response.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response

    return middleware


def head_without_body(get_response):
    """A HEAD is answered with the headers a GET would get and no body: Django leaves the
    body in, and a strict server or proxy then warns of every uptime check."""

    def middleware(request):
        response = get_response(request)
        if request.method == "HEAD" and not response.streaming:
            response.content = b""  # Content-Length stays the GET's, as HTTP allows
        return response

    return middleware
