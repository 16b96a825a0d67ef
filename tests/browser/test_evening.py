"""An evening at the table (issue 51): five matches, first to 2 with the old stakes, a partner
change, a cappotto and a cappottone, on two phones at 360 px: the scorer's sheets and a
watcher's table page (in Italian) show tonight's tally after each match, "la bella" at 1 – 1,
and the games (1, 2 for the cappotto, 6 for the cappottone).

Each match is a row of EVENING: who sits where, who wins and how, and what each phone then
shows."""

from dataclasses import dataclass

import pytest
from playwright.sync_api import expect

from matches.models import Table
from tests.browser.conftest import SIDEWAYS, scripts_ran
from tests.browser.test_sheet import enter_deal

pytestmark = pytest.mark.django_db(transaction=True)

SMALL = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2}
AC, BD = ("Alice", "Carla"), ("Beppe", "Dino")
AB, CD = ("Alice", "Beppe"), ("Carla", "Dino")


@dataclass(frozen=True)
class Played:
    """One match of the evening and what both phones show once it has ended."""

    sides: tuple[tuple[str, str], tuple[str, str]]
    start: str  # "first" (the evening's first, counted so), "rematch" or "new"
    winner: int
    how: str  # "line" or a sweep's kind as the entry form names it ("Cappotto")
    sheet: str  # the scorer's sheet, beside the line, once ended (English)
    series: list[str]  # the watcher's table page (Italian): each series
    tally: list[str]  # … and each side's, then each player's: won, games
    alone: str = ""  # the player who swept alone, on a cappottone


EVENING = [
    Played(
        (AC, BD), "first", 0, "line",
        "Tonight 1 – 0 (Alice & Carla – Beppe & Dino) · games 1–0",
        ["Alice & Carla 1 – 0 Beppe & Dino"],
        ["Alice & Carla 1 1", "Beppe & Dino 0 0", "Alice 1 1", "Carla 1 1", "Beppe 0 0",
         "Dino 0 0"],
    ),
    Played(  # la rivincita, by a cappotto: 2 games, and 1 – 1
        (AC, BD), "rematch", 1, "Cappotto",
        "Tonight 1 – 1 (Alice & Carla – Beppe & Dino) · games 1–2",
        ["Alice & Carla 1 – 1 Beppe & Dino la bella"],
        ["Alice & Carla 1 1", "Beppe & Dino 1 2", "Alice 1 1", "Carla 1 1", "Beppe 1 2",
         "Dino 1 2"],
    ),
    Played(  # la bella
        (AC, BD), "rematch", 1, "line",
        "Tonight 1 – 2 (Alice & Carla – Beppe & Dino) · la bella · series won by Beppe & Dino"
        " · games 1–3",
        ["Alice & Carla 1 – 2 Beppe & Dino serie vinta da Beppe & Dino"],
        ["Alice & Carla 1 1", "Beppe & Dino 2 3", "Alice 1 1", "Carla 1 1", "Beppe 2 3",
         "Dino 2 3"],
    ),
    Played(  # partners change
        (AB, CD), "new", 0, "line",
        "Tonight 1 – 0 (Alice & Beppe – Carla & Dino) · games 1–0",
        ["Alice & Carla 1 – 2 Beppe & Dino serie vinta da Beppe & Dino",
         "Alice & Beppe 1 – 0 Carla & Dino"],
        ["Alice & Carla 1 1", "Beppe & Dino 2 3", "Alice & Beppe 1 1", "Carla & Dino 0 0",
         "Alice 2 2", "Carla 1 1", "Beppe 3 4", "Dino 2 3"],
    ),
    Played(  # la rivincita, by Dino's cappottone: 6 games
        (AB, CD), "rematch", 1, "Cappottone",
        "Tonight 1 – 1 (Alice & Beppe – Carla & Dino) · games 1–6",
        ["Alice & Carla 1 – 2 Beppe & Dino serie vinta da Beppe & Dino",
         "Alice & Beppe 1 – 1 Carla & Dino la bella"],
        ["Alice & Carla 1 1", "Beppe & Dino 2 3", "Alice & Beppe 1 1", "Carla & Dino 1 6",
         "Alice 2 2", "Carla 2 7", "Beppe 3 4", "Dino 3 9"],
        alone="Dino",
    ),
]  # fmt: skip


def start(page, played: Played, table_url: str) -> None:
    """The match begun on the scorer's phone: a rematch from the sheet, else a new match."""
    if played.start == "rematch":
        page.get_by_role("button", name="Rematch").click()
    else:
        page.goto(table_url + "matches/new")
        fields = page.locator("input[list=known-players]")
        expect(fields).to_have_count(4)
        # Field order: side 1 first player, partner, side 2 first player, partner.
        names = [played.sides[0][0], played.sides[0][1], played.sides[1][0], played.sides[1][1]]
        for field, name in zip(fields.all(), names, strict=True):
            field.fill(name)
        if played.start == "first":
            page.get_by_label("Best of three: first to 2 wins").check()
            page.get_by_label("Play the old stakes", exact=False).check()
        else:  # counted as the evening's first match said
            expect(page.locator("#evening-counted")).to_contain_text("Best of three")
        page.get_by_role("button", name="Start match").click()
    expect(page.get_by_role("heading", name="Deal 1")).to_be_visible()
    scripts_ran(page)


def win(page, played: Played) -> None:
    """The deals that win it for `winner`, then End match."""
    side = " & ".join(played.sides[played.winner])
    if played.how == "line":  # 10 + 3 against 1, twice: 26
        for number in (1, 2):
            if played.winner == 0:
                enter_deal(page, 10, da="3")
            else:
                enter_deal(page, 1, db="3")
            if number == 1:
                expect(page.get_by_role("heading", name="Deal 2")).to_be_visible()
    elif played.alone:  # the player, not the side: the side follows
        form = page.locator("#deal-form")
        form.get_by_label(played.how, exact=True).check()
        form.locator(".player-choice label.chip", has_text=played.alone).click()
        page.get_by_role("button", name="Save deal").click()
    else:
        enter_deal(page, 11 if played.winner == 0 else 0, kind=played.how, side=side)
    page.get_by_role("button", name="End match").click()
    expect(page.get_by_role("button", name="Rematch")).to_be_visible()


def test_an_evening_of_five_matches_on_two_phones(new_phone, screenshot):
    scorer = new_phone(**SMALL)
    scorer.goto("/")
    scorer.get_by_label("Table name").fill("Osteria del Ponte")
    scorer.get_by_role("button", name="Create table").click()
    table_url = scorer.url.split("?")[0]
    watcher = new_phone(**SMALL, locale="it-IT")
    watcher.goto(table_url)  # the view-only link, in Italian
    expect(watcher.locator("#no-match-tonight")).to_have_text("Ancora nessuna partita stasera.")

    for number, played in enumerate(EVENING, start=1):
        start(scorer, played, table_url)
        line = scorer.locator("#tonight-line summary")
        if number == 3:  # la bella, said on its sheet while it is played
            expect(line).to_contain_text("la bella")
            # Beside the line, on the same row: the deal's entry is not pushed down.
            meta = scorer.locator("#live .meta").bounding_box()
            assert abs(scorer.locator("#tonight-line").bounding_box()["y"] - meta["y"]) < 2
            expect(scorer.locator("#entry-next")).to_be_in_viewport()
            screenshot(scorer, "evening-la-bella-360")
        win(scorer, played)
        expect(line).to_have_text(played.sheet)
        assert scorer.evaluate(SIDEWAYS) <= 0
        # The watcher's table page, unreloaded: polled.
        expect(watcher.locator("#tonight .series li")).to_have_text(played.series)
        expect(watcher.locator("#tonight .tonight-table tbody tr")).to_have_text(played.tally)
        assert watcher.evaluate(SIDEWAYS) <= 0

    # The whole tally on the sheet, fetched as its line opens.
    scorer.locator("#tonight-line summary").click()
    whole = scorer.locator("#tonight-line .series li")
    expect(whole).to_have_count(2)
    expect(whole.last).to_contain_text("la bella")
    table = Table.objects.get()
    assert (table.evening, table.stakes) == ("first_to_2", True)
    # Shared: the tally as text, in the watcher's words.
    text = watcher.locator("#tonight-text").input_value().splitlines()
    assert text[1:3] == [
        "Alice & Carla 1 – 2 Beppe & Dino · serie vinta da Beppe & Dino",
        "Alice & Beppe 1 – 1 Carla & Dino · la bella",
    ]
    screenshot(watcher, "evening-table-360-it")
