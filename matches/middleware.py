"""Answers that would otherwise have no words."""

from django.shortcuts import render


def method_not_allowed_page(get_response):
    """A 405 says what happened in words: someone opened an address that only takes a form's
    submission (a page re-opened from the history after a form answered it, say)."""

    def middleware(request):
        response = get_response(request)
        if response.status_code == 405 and not response.streaming and not response.content:
            page = render(request, "405.html", status=405)
            page["Allow"] = response["Allow"]
            return page
        return response

    return middleware
