"""Reading the sheet at the table (issue 50, 9, 10, 12): in the top bar, the sheet's scoreboard
and its deals' headings, and the stats, no word is broken across two lines or cut off, measured
word by word in the browser. At 360x740, on a Pixel 7 and on a tablet (where the deals' column
of numbers is wide enough to hold a dealer's name), light and dark, in Italian, English and
Croatian, with long names. In the dark the top bar is as dim as the page."""

import re

import pytest
from django.utils import translation
from playwright.sync_api import expect

from matches import rules, services
from matches.models import NAME_MAX
from tests.browser.conftest import SIDEWAYS
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"360x740": {"width": 360, "height": 740}, "pixel-7": {"width": 412, "height": 915},
         "tablet": {"width": 800, "height": 1280}}  # fmt: skip
LOCALES = {"it": "it-IT", "en": "en-US", "hr": "hr-HR"}
MARIA, GIOVANNI, FRANJO = "Maria Grazia Santangelo", "Giovanni Battista", "Franjo Kuharić-Vlašić"
SWEEP = rules.DealEntry((11, 0), (0, 0), kind=rules.DealKind.CAPPOTTO, side=0)

# Each word shown inside `scopes`, split as the page's language splits words: the word, the
# number of lines it is drawn on, and whether something clips it (a box with its overflow
# hidden, an ellipsis, a clamp of lines) or the screen's edge; a text the server cut short
# ("Maria Grazia Sa…") counts as cut, an "…" alone (a total not known yet) not. Text only
# screen readers get (clipped to a pixel), or folded in a closed <details>, is left out.
WORDS = """scopes => {
  const segmenter = new Intl.Segmenter(document.documentElement.lang, {granularity: "word"});
  const clips = element => getComputedStyle(element).overflow !== "visible";
  const unseen = element => {
    for (let e = element; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.clipPath !== "none" || style.clip !== "auto") return true;
    }
    return !element.checkVisibility({visibilityProperty: true, opacityProperty: true});
  };
  // Inside a closed <details>, only its summary is drawn.
  const folded = node => {
    for (let d = node.parentElement.closest("details:not([open])"); d;
      d = d.parentElement.closest("details:not([open])")) {
      const summary = d.querySelector(":scope > summary");
      if (!summary || !summary.contains(node)) return true;
    }
    return false;
  };
  const found = [];
  for (const root of scopes.flatMap(scope => [...document.querySelectorAll(scope)])) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (unseen(node.parentElement) || folded(node)) continue;
      for (const {segment, index, isWordLike} of segmenter.segment(node.data)) {
        if (segment === "…" && node.data.trim() !== "…") {
          found.push({word: node.data, lines: 1, cut: true, in: "text"});
        }
        if (!isWordLike) continue;
        const range = document.createRange();
        range.setStart(node, index);
        range.setEnd(node, index + segment.length);
        const rects = [...range.getClientRects()].filter(rect => rect.width > 0);
        const outside = box => rects.some(rect => rect.left < box.left - 1
          || rect.right > box.right + 1 || rect.top < box.top - 1 || rect.bottom > box.bottom + 1);
        let cut = outside({left: 0, right: innerWidth, top: -Infinity, bottom: Infinity});
        for (let e = node.parentElement; e && e !== document.body && !cut; e = e.parentElement) {
          cut = clips(e) && outside(e.getBoundingClientRect());
        }
        found.push({word: segment, lines: rects.length, cut, in: node.parentElement.className});
      }
    }
  }
  return found;
}"""


def table_of_long_names():
    """A table whose players have long names: a match of four and one of two under way, and
    two finished matches of two deals each."""
    table = TableFactory(name="Circolo Santangelo")
    four = services.start_match(table=table, players=[[MARIA, GIOVANNI], [FRANJO, "Ante"]])
    for number, points in enumerate((8, 4), start=1):
        entry = rules.DealEntry((points, 11 - points), (3, 0))
        services.record_deal(match_id=four.pk, number=number, entry=entry)
    due = services.start_match(table=table, players=[[MARIA], [FRANJO]])
    services.record_deal(match_id=due.pk, number=1, entry=rules.DealEntry((6, 5), (0, 4)))
    for players in ([["Giulia", "Ante"], [GIOVANNI, FRANJO]], [[MARIA], ["Giulia"]]):
        finished = services.start_match(table=table, players=players)
        services.record_deal(match_id=finished.pk, number=1, entry=rules.DealEntry((6, 5), (0, 0)))
        services.record_deal(match_id=finished.pk, number=2, entry=SWEEP)
        services.end_match(match=finished)
    return table, four, due


def as_scorer(phone, table) -> str:
    """Join `table` on this phone (the scorer's sheet has the most in its top bar); its address."""
    phone.goto(f"/join/{table.scorer_token}/")
    phone.locator("form:has(#id_label) button[type=submit]").click()
    phone.wait_for_url(f"**/t/{table.viewer_token}/")
    return f"/t/{table.viewer_token}/"


def words_on(phone, scopes: list[str]) -> list[dict]:
    return phone.evaluate(WORDS, scopes)


# The whole sheet: the top bar, the scoreboard with the line and tonight's series, the deals,
# what this phone and the others were told, and the next deal's entry.
SHEET = [".topbar", "#live", "#rows", "#notices", "#elsewhere", "#entry"]


def chip(phone, name: str, value: str):
    """The chip a finger taps for this choice of the deal form."""
    return phone.locator(
        "#deal-form label", has=phone.locator(f"input[name={name}][value='{value}']")
    )


def words_of(language: str, message: str) -> set[str]:
    with translation.override(language):
        return set(re.findall(r"\w+(?:['’]\w+)*", translation.gettext(message)))


def measured(phone, wrong: dict, shown: dict, name: str, scopes: list[str]) -> None:
    """Measure each word within `scopes` now, under `name`; nothing wider than the screen."""
    found = words_on(phone, scopes)
    shown[name] = {w["word"] for w in found}
    wrong[name] = [w for w in found if w["lines"] != 1 or w["cut"]]
    assert phone.evaluate(SIDEWAYS) <= 0, name


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("language", LOCALES)
@pytest.mark.parametrize("size", SIZES)
def test_no_word_is_broken_or_cut(new_phone, screenshot, size, language, scheme):
    phone = new_phone(viewport=SIZES[size], locale=LOCALES[language], color_scheme=scheme)
    table, four, due = table_of_long_names()
    base = as_scorer(phone, table)
    wrong, shown = {}, {}
    for name, match in (("four", four), ("due", due)):
        phone.goto(f"{base}m/{match.pk}/")
        expect(phone.locator(".wake")).to_be_visible()  # "Keep screen on", in the bar
        expect(phone.locator("#tonight-line")).to_be_visible()
        measured(phone, wrong, shown, name, SHEET)
        # While a deal is typed: what it will make, then the sweeps' sides and players.
        chip(phone, "card_pad_0", "8").click()
        expect(phone.locator("#after [data-after]")).to_be_visible()
        measured(phone, wrong, shown, f"{name}-typed", SHEET)
        chip(phone, "kind", "cappotto").click()
        expect(phone.locator("#deal-form .side-choice")).to_be_visible()
        measured(phone, wrong, shown, f"{name}-sweep", ["#entry"])
        if name == "four":  # a player sweeps alone only in a match of four
            chip(phone, "kind", "cappottone").click()
            expect(phone.locator("#deal-form .player-choice")).to_be_visible()
            measured(phone, wrong, shown, "four-alone", ["#entry"])
        chip(phone, "kind", "normal").click()
        phone.locator("#deal-form button.save").click()
        expect(phone.locator("#saved")).to_be_visible()  # "Deal 3 saved. Undo"
        screenshot(phone, f"words-{name}-{size}-{language}-{scheme}")
        measured(phone, wrong, shown, f"{name}-saved", SHEET)
    phone.goto(f"{base}stats")
    screenshot(phone, f"words-stats-{size}-{language}-{scheme}")
    measured(phone, wrong, shown, "stats", [".topbar", "main"])
    assert wrong == {name: [] for name in wrong}
    # What was measured: the long names, each of their words, in the scoreboard, the deals and
    # the chips; the bar's toggle, Save, the hint and the preview, the line, tonight, Undo.
    names = {"Maria", "Grazia", "Santangelo", "Giovanni", "Battista", "Kuharić", "Vlašić"}
    assert names <= shown["four"]
    assert names <= shown["four-alone"]
    assert {"Maria", "Grazia", "Santangelo", "Kuharić", "Vlašić"} <= shown["due-sweep"]
    assert names | {"Giulia", "Ante", "Circolo"} <= shown["stats"]
    for name in ("four", "due"):
        for message in ("Keep screen on", "Save deal", "Tap one side's card points.", "Tonight"):
            assert words_of(language, message) <= shown[name], (name, message)
        assert words_of(language, "After this deal:") <= shown[f"{name}-typed"]
        assert words_of(language, "Which side swept") <= shown[f"{name}-sweep"]
        assert words_of(language, "Undo") <= shown[f"{name}-saved"]
        assert words_of(language, "Line %(line)s") - {"line", "s"} <= shown[f"{name}-saved"]


def luminance(rgb: str) -> float:
    """The relative luminance of a CSS colour "rgb(r, g, b)" (WCAG 2)."""
    channels = [int(c) / 255 for c in rgb[rgb.index("(") + 1 : -1].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: float, b: float) -> float:
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


COLOURS = """() => {
  const of = selector => getComputedStyle(document.querySelector(selector));
  return {bar: of(".topbar").backgroundColor, brand: of(".brand").color,
    crumb: of(".crumb").color, page: of("body").backgroundColor, text: of("body").color,
    theme: document.querySelector("meta[name=theme-color][media*=" + CSS.escape(matchMedia(
      "(prefers-color-scheme: dark)").matches ? "dark" : "light") + "]").content};
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_top_bar_is_dim_in_the_dark_and_its_words_read_clearly(new_phone, screenshot, scheme):
    phone = new_phone(viewport=SIZES["360x740"], color_scheme=scheme)
    table, four, _ = table_of_long_names()
    phone.goto(f"{as_scorer(phone, table)}m/{four.pk}/")
    screenshot(phone, f"bar-{scheme}")
    colours = phone.evaluate(COLOURS)
    bar = luminance(colours["bar"])
    for words in ("brand", "crumb"):
        assert contrast(luminance(colours[words]), bar) >= 4.5, (words, colours)
    if scheme == "dark":
        # No brighter than the page's own text can make it: a dark band, close to the page.
        assert bar < 0.03 and contrast(bar, luminance(colours["page"])) < 1.6, colours
        assert luminance(colours["brand"]) < luminance(colours["text"]), colours
    # The phone's own status bar above the page takes the bar's colour.
    theme = colours["theme"]
    assert colours["bar"] == f"rgb({', '.join(str(int(theme[i : i + 2], 16)) for i in (1, 3, 5))})"


LONGEST = "Maria Grazia Santangelo Kuharić-Vlašić 👍"  # as long as a name may be


@pytest.mark.parametrize("size", ["360x740", "pixel-7"])
def test_the_longest_dealer_s_name_is_whole_and_leaves_the_pencil_free(new_phone, size):
    """On a phone a dealer's name has a line of its own at the foot of the deal's row, across
    the points: the longest a name may be is read whole there, clear of the pencil."""
    assert len(LONGEST) == NAME_MAX
    phone = new_phone(viewport=SIZES[size])
    table = TableFactory(name="Circolo")
    match = services.start_match(table=table, players=[[LONGEST, "Ante"], ["Bruno", "Carla"]])
    services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((6, 5), (0, 0)))
    phone.goto(f"/join/{table.scorer_token}/")
    phone.locator("form:has(#id_label) button[type=submit]").click()
    expect(phone.locator("#deal-1")).to_be_visible()  # one match under way: its sheet
    row = phone.locator("#deal-1")
    expect(row.locator(".dealer")).to_have_text(LONGEST)
    assert [w for w in words_on(phone, ["#rows"]) if w["lines"] != 1 or w["cut"]] == []
    name = row.locator(".dealer").bounding_box()
    pencil = row.locator(".change .button").bounding_box()
    beside = name["y"] < pencil["y"] + pencil["height"] and pencil["y"] < name["y"] + name["height"]
    assert not beside or name["x"] + name["width"] <= pencil["x"], (name, pencil)


@pytest.mark.parametrize("size", ["360x740", "pixel-7"])
def test_the_two_sides_keys_start_level_whatever_the_names(new_phone, size):
    """One side named after a pair with the longest names, the other short: the name above a
    side's keys takes the lines it needs, and the two sides' keys still start level, so the
    same number sits at the same height on both."""
    phone = new_phone(viewport=SIZES[size])
    table = TableFactory(name="Circolo")
    services.start_match(table=table, players=[[LONGEST, "Maria Antonietta Bevilacqua-Scarpe"],
                                               ["Bruno", "Carla"]])  # fmt: skip
    phone.goto(f"/join/{table.scorer_token}/")
    phone.locator("form:has(#id_label) button[type=submit]").click()
    first, second = (phone.locator(f".side-entry.side-{side} .pad .key").first
                     for side in (0, 1))  # fmt: skip
    expect(first).to_be_visible()
    assert abs(first.bounding_box()["y"] - second.bounding_box()["y"]) < 1
