"""Browser tests: Playwright drives Debian's Chromium against pytest-django's live_server."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

# What another phone shows comes with its next poll, every 3 seconds: an expectation waits for
# it with room for a busy machine (it returns as soon as the page shows it).
expect.set_options()

# Playwright's sync API runs an event loop in the test's thread; the ORM must still work there.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# A Pixel 7's viewport.
PHONE = {
    "viewport": {"width": 412, "height": 915},
    "device_scale_factor": 2.625,
    "is_mobile": True,
    "has_touch": True,
    "locale": "en-US",
}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def new_phone(browser, live_server):
    """Open a fresh phone (its own cookies) on the live server; call it again for a second phone."""
    contexts = []

    def open_phone(**overrides):
        context = browser.new_context(base_url=live_server.url, **{**PHONE, **overrides})
        context.set_default_timeout(10_000)
        contexts.append(context)
        return scripted(context.new_page())

    yield open_phone
    for context in contexts:
        context.close()


SCRIPTED = "html[data-scripted]"
# How far the page scrolls sideways: 0 when nothing is wider than the phone.
SIDEWAYS = "() => document.documentElement.scrollWidth - window.innerWidth"


def scripts_ran(page) -> None:
    """Wait for the page's scripts to have run (app.js marks the root once they have)."""
    page.locator(SCRIPTED).wait_for(state="attached")


def scripted(page):
    """A page's scripts run once it is parsed (deferred, app.js marks it): here opening or
    reloading a page returns once they have run, as a person's first tap comes after them."""
    for name in ("goto", "reload", "go_back"):
        navigate = getattr(page, name)

        def wait_for_scripts(*args, navigate=navigate, **kwargs):
            response = navigate(*args, **kwargs)
            scripts_ran(page)
            return response

        setattr(page, name, wait_for_scripts)
    return page


@pytest.fixture
def phone(new_phone):
    return new_phone()


@pytest.fixture
def screenshot():
    def save(page, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        # A whole tall page at twice the pixels is slow to draw on a busy machine: it is given
        # longer than the default wait for an event, and still fails if it never comes.
        page.screenshot(path=str(path), full_page=True, timeout=60_000)
        return path

    return save
