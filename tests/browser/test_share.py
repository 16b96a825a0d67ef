"""The result shared in the table's chat at the end of a match, and tonight's tally from the
table page, in a real Chromium at phone size: the picture (a PNG the phone makes of the
server's SVG) and the text, through the phone's share sheet (stubbed here: the test's Chromium
has none), else Copy and Download."""

import base64
import re
import struct
from pathlib import Path

import pytest
from playwright.sync_api import expect

from matches import rules, services
from matches.models import Match
from tests.browser.conftest import PHONE
from tests.evening import AB, AC, BD, CD, play
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db(transaction=True)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
SMALL = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 3}

# The phone's share sheet, as the test sees it: what it was given is kept in `window.shared`.
SHARE_SHEET = """
window.shared = null;
Object.defineProperty(navigator, "canShare", { configurable: true, value: function (data) {
  return %s;
} });
Object.defineProperty(navigator, "share", { configurable: true, value: function (data) {
  var file = data.files ? data.files[0] : null;
  window.shared = { text: data.text, file: file, name: file && file.name, type: file && file.type };
  return Promise.resolve();
} });
"""
TAKES_FILES = SHARE_SHEET % "Boolean(data.files && data.files.length)"
TEXT_ONLY = SHARE_SHEET % "!data.files"


def decided_match() -> Match:
    """Maria Grazia Santangelo and Carla past the line, 22 to 10: End match is a tap away."""
    table = TableFactory(name="Circolo del Tressette")
    players = [["Maria Grazia Santangelo", "Carla"], ["Bruno", "Dario"]]
    match = services.start_match(table=table, players=players)
    for number, entry in enumerate(
        (rules.DealEntry((8, 3), (3, 0)), rules.DealEntry((7, 4), (4, 3))), start=1
    ):
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    return match


def end_it(new_phone, match: Match, script: str | None = None, **phone):
    """A scorer's phone on the decided match taps End match: the result is shown."""
    page = new_phone(**phone)
    if script:
        page.add_init_script(script)
    page.goto(f"/join/{match.table.scorer_token}/")
    page.get_by_role("button", name="Join as a scorer").click()
    page.goto(f"/t/{match.table.viewer_token}/m/{match.pk}/")
    page.get_by_role("button", name="End match").click()
    expect(page.locator(".result")).to_contain_text("won the match")
    share_offered(page)
    return page


RESULT, TONIGHT = "Share the result", "Share tonight's tally"


def share_offered(page, region: str = RESULT) -> None:
    """Once share.js has run on the result (fetched once the result came): it names on the
    download link the picture it makes. A tap before it would do nothing."""
    download = page.get_by_role("region", name=region).locator("[data-download]")
    expect(download).to_have_attribute("data-key", re.compile("."))


def share_button(page, region: str = RESULT):
    """Share, under the result's heading (or tonight's): the phone's share sheet."""
    return page.get_by_role("region", name=region).get_by_role("button", name="Share", exact=True)


def within_the_phone(page, share) -> None:
    """Share, within the phone's width, on a page that does not scroll sideways."""
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    box = share.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its header (IHDR, the first chunk)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def shared_png(page) -> bytes:
    """The file the share sheet was given, as its bytes."""
    return base64.b64decode(
        page.evaluate(
            """async () => {
              const bytes = new Uint8Array(await window.shared.file.arrayBuffer());
              let text = "";
              for (const byte of bytes) text += String.fromCharCode(byte);
              return btoa(text);
            }"""
        )
    )


# In the page: the picture's SVG drawn inline (as the PNG was drawn, with the same fonts),
# where each text of the cards lies; and in the PNG the phone shared, how much of each such
# place is inked in the text's colour (none, where a text was not drawn).
INKED = """async ([url, blob]) => {
  const svg = await (await fetch(url)).text();
  const holder = document.createElement("div");
  holder.style.position = "absolute";
  holder.style.left = "-5000px";
  holder.style.top = "0";
  holder.innerHTML = svg;
  document.body.appendChild(holder);
  const bitmap = await createImageBitmap(blob);
  const canvas = document.createElement("canvas");
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  const context = canvas.getContext("2d");
  context.drawImage(bitmap, 0, 0);
  const texts = [...holder.querySelectorAll("text")].map((text) => {
    const box = text.getBBox();
    const fill = text.getAttribute("fill").match(/[0-9a-f]{2}/g).map((hex) => parseInt(hex, 16));
    const x = Math.floor(box.x), y = Math.floor(box.y);
    const w = Math.max(1, Math.ceil(box.width)), h = Math.max(1, Math.ceil(box.height));
    const pixels = context.getImageData(x, y, w, h).data;
    let inked = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      const far = Math.abs(pixels[i] - fill[0]) + Math.abs(pixels[i + 1] - fill[1]) +
        Math.abs(pixels[i + 2] - fill[2]);
      if (far < 90) inked += 1;
    }
    return { text: text.textContent, x: box.x, right: box.x + box.width, inked: inked / (w * h),
             size: text.getAttribute("font-size"), left: text.getAttribute("x") };
  });
  holder.remove();
  return { texts: texts, height: bitmap.height };
}"""


@pytest.mark.parametrize("phone_size", [SMALL, PHONE], ids=["360x740", "pixel-7"])
def test_the_result_is_shared_as_a_picture_with_its_text(new_phone, phone_size):
    match = decided_match()
    page = end_it(new_phone, match, TAKES_FILES, **phone_size)
    share = share_button(page)
    expect(share).to_be_visible()
    within_the_phone(page, share)
    if phone_size is SMALL:
        page.locator("#live").screenshot(path=str(DOCS / "share-360.png"))
    share.click()
    page.wait_for_function("() => window.shared !== null")
    shared = page.evaluate("window.shared")
    lines = shared["text"].splitlines()
    assert lines[:2] == [
        "Maria Grazia Santangelo & Carla 22 – 10 Bruno & Dario",
        "Maria Grazia Santangelo & Carla won the match (reached the line).",
    ]
    assert lines[2].startswith("Line 21 · 2 deals · ")
    assert shared["type"] == "image/png"
    assert shared["name"].startswith("tressette-circolo-del-tressette-match-1-")
    assert shared["name"].endswith(".png")
    data = shared_png(page)
    url = f"/t/{match.table.viewer_token}/m/{match.pk}/result.svg"
    drawn = page.evaluate_handle("window.shared.file")
    inked = page.evaluate(INKED, [url, drawn])
    # The PNG is the picture at its own size: wide enough for a chat's thumbnail.
    assert png_size(data) == (1080, inked["height"])
    texts = {}
    for text in inked["texts"]:
        texts.setdefault(text["text"], text)  # a card's, before the deals' heading
    # The names and the totals were drawn, where the picture lays them out.
    for said in ("Maria Grazia", "Santangelo &", "Carla", "Bruno & Dario", "22", "10"):
        assert texts[said]["inked"] > 0.04, texts[said]
    # Every text is inside the picture; a card's inside its card (a long name wraps).
    for text in inked["texts"]:
        assert text["x"] >= 0 and text["right"] <= 1080, text
    for text in inked["texts"]:
        if text["left"] == "76":
            assert text["right"] <= 48 + 480, text
    if phone_size is SMALL:
        DOCS.mkdir(parents=True, exist_ok=True)
        (DOCS / "share-picture.png").write_bytes(data)


def test_a_share_sheet_that_takes_no_pictures_is_given_the_text(new_phone):
    match = decided_match()
    page = end_it(new_phone, match, TEXT_ONLY, **SMALL)
    share_button(page).click()
    page.wait_for_function("() => window.shared !== null")
    shared = page.evaluate("window.shared")
    assert shared["file"] is None
    assert shared["text"].startswith("Maria Grazia Santangelo & Carla 22 – 10 Bruno & Dario\n")


def test_without_a_share_sheet_the_text_is_copied_and_the_picture_downloaded(new_phone):
    match = decided_match()
    page = end_it(new_phone, match, **SMALL)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    expect(page.locator("#share-result-button")).to_be_hidden()  # this Chromium has none
    page.get_by_role("button", name="Copy", exact=True).click()
    copy = page.locator("#copy-result")  # named "Copied" for a moment
    expect(copy).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.splitlines()[1] == (
        "Maria Grazia Santangelo & Carla won the match (reached the line)."
    )
    download = page.get_by_role("link", name="Download the picture")
    expect(download).to_have_attribute("href", re.compile("^blob:"))  # the PNG, made
    with page.expect_download() as downloading:
        download.click()
    saved = Path(downloading.value.path()).read_bytes()
    assert png_size(saved)[0] == 1080
    assert downloading.value.suggested_filename.endswith(".png")


def test_share_works_on_the_result_an_answer_brings_and_on_the_page_drawn_with_it(new_phone):
    match = decided_match()
    share_script = "script[src*='/js/share.']"
    page = new_phone(**SMALL)
    page.add_init_script(TEXT_ONLY)
    page.goto(f"/join/{match.table.scorer_token}/")
    page.get_by_role("button", name="Join as a scorer").click()
    page.goto(f"/t/{match.table.viewer_token}/m/{match.pk}/")
    expect(page.locator(share_script)).to_have_count(0)  # a match in progress shares nothing
    page.get_by_role("button", name="End match").click()
    share_offered(page)  # share.js, fetched once the result came
    share_button(page).click()
    page.wait_for_function("() => window.shared !== null")
    page.reload()
    expect(page.locator(share_script)).to_have_count(1)  # drawn with the result
    share_button(page).click()
    page.wait_for_function("() => window.shared !== null")
    assert page.evaluate("window.shared.text").startswith("Maria Grazia Santangelo & Carla 22")


def test_share_is_offered_only_once_it_can_open_the_share_sheet(new_phone):
    """share.js comes after the result (fetched once End match answered): until it has run,
    a tap on Share would do nothing, so no Share is offered; Copy and the picture's link work
    without it."""
    match = decided_match()
    held = []  # share.js's request, answered when the test says
    page = new_phone(**SMALL, service_workers="block")  # else it, not the test, answers
    page.add_init_script(TEXT_ONLY)
    page.route(re.compile(r"/js/share\.[^/]*js$"), lambda route: held.append(route))
    page.goto(f"/join/{match.table.scorer_token}/")
    page.get_by_role("button", name="Join as a scorer").click()
    page.goto(f"/t/{match.table.viewer_token}/m/{match.pk}/")
    page.get_by_role("button", name="End match").click()
    expect(page.locator(".result")).to_contain_text("won the match")
    page.wait_for_function("() => document.querySelector(\"script[src*='/js/share.']\")")
    region = page.get_by_role("region", name=RESULT)
    expect(share_button(page)).to_have_count(0)  # hidden: not offered
    expect(region.get_by_role("button", name="Copy", exact=True)).to_be_visible()
    expect(region.get_by_role("link", name="Download the picture")).to_be_visible()
    held[0].continue_()
    share_offered(page)
    share_button(page).click()
    page.wait_for_function("() => window.shared !== null")
    assert page.evaluate("window.shared.text").startswith("Maria Grazia Santangelo & Carla 22")


def test_tonight_s_tally_is_shared_as_a_picture_with_its_text(new_phone):
    table = TableFactory(name="Osteria del Ponte")
    play(table, [AC, BD], 0, evening=rules.Evening.FIRST_TO_2, stakes=True)
    play(table, [AC, BD], 1, how="cappotto")  # la rivincita, to the other side: 2 games
    play(table, [AB, CD], 0)  # partners change: the players' tally is not the sides'
    page = new_phone(**SMALL)
    page.add_init_script(TAKES_FILES)
    page.goto(f"/t/{table.viewer_token}/")  # the view-only link
    share_offered(page, TONIGHT)
    share = share_button(page, TONIGHT)
    expect(share).to_be_visible()
    within_the_phone(page, share)
    share.click()
    page.wait_for_function("() => window.shared !== null")
    shared = page.evaluate("window.shared")
    lines = shared["text"].splitlines()
    assert re.fullmatch(r"Osteria del Ponte · Tonight since ([^,]+, \d{4}, )?\d\d:\d\d", lines[0])
    assert lines[1:] == [
        "Alice & Carla 1 – 1 Beppe & Dino · la bella",
        "Alice & Beppe 1 – 0 Carla & Dino",
        "Sides: Alice & Carla 1 (1 game), Beppe & Dino 1 (2 games), Alice & Beppe 1 (1 game),"
        " Carla & Dino 0 (0 games)",
        "Players: Alice 2 (2 games), Carla 1 (1 game), Beppe 2 (3 games), Dino 1 (2 games)",
    ]
    assert shared["type"] == "image/png"
    assert re.fullmatch(r"tressette-osteria-del-ponte-\d{4}-\d\d-\d\d\.png", shared["name"])
    data = shared_png(page)
    url = f"/t/{table.viewer_token}/tonight.svg"
    inked = page.evaluate(INKED, [url, page.evaluate_handle("window.shared.file")])
    assert png_size(data) == (1080, inked["height"])
    # Each series, each side's and each player's wins and games, in the picture's order …
    said = [text["text"] for text in inked["texts"]]
    assert re.fullmatch(r"Tonight since ([^,]+, \d{4}, )?\d\d:\d\d", said[0])
    assert said[1:] == [
        "Osteria del Ponte",
        *("Alice & Carla", "Beppe & Dino", "1 – 1", "la bella"),
        *("Alice & Beppe", "Carla & Dino", "1 – 0"),
        "Sides",
        *("Alice & Carla", "1 won · 1 game", "Beppe & Dino", "1 won · 2 games"),
        *("Alice & Beppe", "1 won · 1 game", "Carla & Dino", "0 won · 0 games"),
        "Players",
        *("Alice", "2 won · 2 games", "Carla", "1 won · 1 game"),
        *("Beppe", "2 won · 3 games", "Dino", "1 won · 2 games"),
        "Tressette Scoresheet",
    ]
    # … drawn in the PNG the phone shared, each where the picture lays it out, inside it.
    for text in inked["texts"]:
        assert text["inked"] > 0.04, text
        assert text["x"] >= 0 and text["right"] <= 1080, text
