"""Screenshots of the sheet for docs/screenshots: a scorer right after saving a deal (a tap
on a key, one on a declaration, Save) at 360x740 and 412x915, and typing card points with the
keyboard open (about 360x420 of the page left), light and dark.
Run: .venv/bin/python bench/screenshots.py"""

import sys
import tempfile
from pathlib import Path

import run
from playwright.sync_api import sync_playwright

OUT = run.ROOT / "docs" / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
SIZES = [(360, 740), (412, 915)]


def main() -> int:
    work = Path(tempfile.mkdtemp())
    env = run.base_env(work)
    run.manage(env, "migrate", "--no-input", "-v", "0")
    sizes = {"finished": 5, "export_deals": 10, "save_pool": 2, "phone_tables": 8}
    seeded = run.task(env, "seed", {**sizes, "evening_tables": 0, "neighbour_pool": 1}, work)
    OUT.mkdir(parents=True, exist_ok=True)
    with run.server(env, work / "server.log") as port, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        tables = iter(seeded["phones"])
        for width, height in SIZES:
            for scheme in ("light", "dark"):
                table = next(tables)
                screen = {"width": width, "height": height}
                context = browser.new_context(
                    base_url=f"http://127.0.0.1:{port}", viewport=screen, device_scale_factor=2,
                    is_mobile=True, has_touch=True, color_scheme=scheme, locale="en-US",
                )  # fmt: skip
                page = context.new_page()
                page.goto(f"/join/{table['scorer']}/")
                page.locator("main form button[type=submit]").click()
                page.goto(f"/t/{table['viewer']}/m/{table['matches'][0]}/")
                page.wait_for_load_state("load")
                side = page.locator("#deal-form .side-entry.side-0")
                side.locator(".pad .key", has=page.locator("[value='7']")).click()
                side.locator("[data-add]").first.click()
                page.locator("#deal-form button.save").click()
                page.locator("#saved").wait_for()
                page.wait_for_function(
                    "document.activeElement && document.activeElement.id === 'saved'"
                )
                page.screenshot(path=str(OUT / f"sheet-after-save-{width}x{height}-{scheme}.png"))
                if width == 360:
                    page.set_viewport_size({"width": 360, "height": 420})
                    page.locator("#id_card_points_0").focus()
                    page.keyboard.type("8")
                    page.locator("#after [data-after]").wait_for()
                    page.screenshot(path=str(OUT / f"sheet-typing-360x420-{scheme}.png"))
                context.close()
        browser.close()
    print("written to", OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
