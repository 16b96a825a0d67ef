"""A tiny HTTP client for 127.0.0.1: a phone's cookies, CSRF token and timed requests.

The CSRF token is read from the last page that drew one (its secret is kept in the session
cookie): a form's hidden input, or the X-CSRFToken header htmx sends from <body hx-headers>.

Each request opens its own connection, as a phone does after the server's keep-alive expired.
The server's cookies are marked Secure (production settings); a phone talking plain HTTP to
127.0.0.1 sends them anyway.
"""

import http.client
import re
import time
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import urlencode

HOST = "127.0.0.1"
# A form's token, or htmx's header in hx-headers (its JSON's quotes may be drawn escaped).
_QUOTE = r'(?:"|&quot;|&#34;|&#x22;)'
TOKEN = re.compile(
    r'name="csrfmiddlewaretoken" value="([^"]+)"'
    rf"|X-CSRFToken{_QUOTE}\s*:\s*{_QUOTE}([^\"&]+)"
)


def token_in(page: str) -> str:
    """The first CSRF token a page draws, whichever way it draws it; "" if none."""
    found = TOKEN.search(page)
    return (found.group(1) or found.group(2)) if found else ""


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes
    seconds: float

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


@dataclass
class Phone:
    """One browser: its cookies travel with every request."""

    port: int
    language: str = "en"
    cookies: dict[str, str] = field(default_factory=dict)
    token: str = ""

    def request(
        self,
        method: str,
        path: str,
        *,
        headers: dict[str, str] | None = None,
        form: dict[str, object] | None = None,
        body: bytes | None = None,
        timeout: float = 30,
    ) -> Answer:
        sent = {"Accept-Language": self.language, "Connection": "close", **(headers or {})}
        if self.cookies:
            sent["Cookie"] = self.cookie_header()
        if form is not None:
            body = urlencode(form).encode()
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        if method == "POST" and self.token:
            sent["X-CSRFToken"] = self.token
        connection = http.client.HTTPConnection(HOST, self.port, timeout=timeout)
        try:
            start = time.perf_counter()
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            data = response.read()
            seconds = time.perf_counter() - start
        finally:
            connection.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        headers_out = {name.lower(): value for name, value in response.getheaders()}
        answer = Answer(response.status, headers_out, data, seconds)
        page = "text/html" in headers_out.get("content-type", "")
        if page and (token := token_in(answer.text)):  # a page that draws a token
            self.token = token
        return answer

    def join(self, scorer_token: str) -> None:
        """Join a table through its scorer link, as a person does: open it, then confirm."""
        page = self.request("GET", f"/join/{scorer_token}/")
        if page.status != 200 or not self.token:
            raise RuntimeError(f"the join page answered {page.status}")
        done = self.request("POST", f"/join/{scorer_token}/", form={"label": "bench"})
        if done.status != 302:
            raise RuntimeError(f"joining answered {done.status}")

    def cookie_header(self) -> str:
        return "; ".join(f"{name}={value}" for name, value in self.cookies.items())
