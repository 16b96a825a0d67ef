"""The sheet's first load: the bytes a phone fetches on its first visit, as the server sends them.

Counted: the sheet's HTML and every file its <link>, <script> and <img> tags name, with what
the CSS names with url(). Listed but not counted: the service worker the scripts register and
what it precaches once the page has loaded. The manifest's icons, fetched only to install the
app, are neither.
"""

import gzip
import json
import re
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from client import Answer, Phone

FETCHED_RELS = {"stylesheet", "icon", "apple-touch-icon", "manifest", "preload", "modulepreload"}
URL_ATTRS = {"href", "src", "action", "formaction", "srcset", "poster", "data", "hx-get", "hx-post"}
CSS_URL = re.compile(r"url\(\s*['\"]?([^'\")]+)")
SW_REGISTER = re.compile(r"serviceWorker\.register\(\s*['\"]([^'\"]+)")
SW_PRECACHE = re.compile(r"const STATIC = \[(.*?)\];", re.S)
SW_CONSTANT = re.compile(r'const (\w+) = "([^"]*)";')


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.fetched: list[str] = []
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        self.urls += [value for name, value in found.items() if name in URL_ATTRS and value]
        rels = set(found.get("rel", "").split())
        if tag == "link" and rels & FETCHED_RELS:
            self.fetched.append(found["href"])
        elif tag in ("script", "img") and found.get("src"):
            self.fetched.append(found["src"])


def _text(phone: Phone, path: str, answer: Answer) -> str:
    encoding = answer.headers.get("content-encoding", "")
    if encoding == "gzip":
        return gzip.decompress(answer.body).decode(errors="replace")
    if encoding:  # brotli: ask again for the plain text
        return phone.request("GET", path, headers={"Accept-Encoding": "identity"}).text
    return answer.text


def first_load(port: int, scorer_token: str, sheet: str) -> dict:
    phone = Phone(port, language="")
    phone.join(scorer_token)
    here = f"127.0.0.1:{port}"
    files: list[dict] = []
    seen: set[str] = set()
    foreign: list[str] = []

    def fetch(url: str, why: str, counted: bool = True) -> str:
        parts = urlsplit(url)
        if parts.scheme == "data":
            return ""
        if parts.netloc and parts.netloc != here:
            foreign.append(url)
            return ""
        if parts.path in seen:
            return ""
        seen.add(parts.path)
        answer = phone.request("GET", parts.path, headers={"Accept-Encoding": "gzip, br"})
        encoding = answer.headers.get("content-encoding", "none")
        files.append(
            {
                "url": parts.path,
                "why": why,
                "status": answer.status,
                "bytes": len(answer.body),
                "encoding": encoding,
                "counted": counted,
            }
        )
        return _text(phone, parts.path, answer)

    html = fetch(sheet, "the sheet's HTML")
    links = _Links()
    links.feed(html)
    foreign += [url for url in links.urls if urlsplit(url).netloc not in ("", here)]
    scripts = []
    for url in links.fetched:
        text = fetch(urljoin(sheet, url), "named in the HTML")
        if url.split("?")[0].endswith(".css"):
            for inner in CSS_URL.findall(text):
                fetch(urljoin(url, inner), "url() in the CSS")
        scripts.append(text)
    for worker in {found for text in scripts for found in SW_REGISTER.findall(text)}:
        body = fetch(worker, "service worker, after load", counted=False)
        constants = dict(SW_CONSTANT.findall(body))
        for block in SW_PRECACHE.findall(body):
            for item in (item.strip() for item in block.split(",")):
                literal = item[1:-1] if item.startswith('"') else constants.get(item, "")
                if literal:
                    url = json.loads(f'"{literal}"')  # JavaScript string escapes
                    fetch(url, "precached by the service worker", counted=False)
    return {
        "files": files,
        "total": sum(file["bytes"] for file in files if file["counted"]),
        "with_worker": sum(file["bytes"] for file in files),
        "html_bytes": len(html.encode()),
        "foreign": sorted(set(foreign)),
    }
