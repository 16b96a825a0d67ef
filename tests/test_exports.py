import csv
import io
import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation

from matches import exports, rules, services
from matches.models import Match, Table

pytestmark = pytest.mark.django_db

WORKED = rules.DealEntry(card_points=(8, 3), declared_points=(3, 0))
HIGHER_TOTAL = "Higher total wins; equal totals play another deal"


def entry(a: int, b: int, da: int = 0, db: int = 0, **kw) -> rules.DealEntry:
    return rules.DealEntry(card_points=(a, b), declared_points=(da, db), **kw)


def record(match: Match, *entries: rules.DealEntry, by: str = "") -> None:
    first = match.deals.count() + 1
    for number, deal in enumerate(entries, start=first):
        services.record_deal(match_id=match.pk, number=number, entry=deal, by=by)


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


def build_evening() -> Table:
    """A table with a past: a cappotto won, a two-player match, one still in progress.

    Names carry quotes, emoji and right-to-left text; the log holds edits and a delete.
    """
    table = services.create_table(name='Bar "Sport" 🃏')
    services.add_player(table=table, name="Elena")  # plays at no match
    players = [['Gianni "il Bello"', "Nonna 🃏"], ["سارة", "Dino"]]
    cappotto = services.start_match(table=table, players=players, by="Carla's phone")
    record(cappotto, WORKED, entry(6, 5), by="Carla's phone")
    first = cappotto.deals.get(number=1)
    services.edit_deal(deal=first, version=1, entry=entry(7, 4, 3, 0), by="Dino")
    services.delete_last_deal(match=cappotto, number=2, by="Dino")
    record(cappotto, entry(11, 0, kind="cappotto", side=0))
    services.end_match(match=cappotto, by="Dino")

    two = services.start_match(
        table=table,
        players=[["سارة"], ["Nonna 🃏"]],
        settings=rules.MatchSettings(11),
        first_dealer=1,
    )
    record(two, entry(4, 7, 4, 0), entry(6, 5))
    services.end_match(match=two)

    open_match = services.start_match(
        table=table,
        players=[["Dino", "Elena"], ['Gianni "il Bello"', "سارة"]],
        side_names=["I «Lupi»", ""],
        settings=rules.MatchSettings(31, rules.TieRule.ANOTHER_DEAL, claims_allowed=True),
        first_dealer=3,
    )
    record(open_match, WORKED, entry(2, 9, 0, 4))
    table.refresh_from_db()
    return table


def json_document(table: Table) -> dict:
    return json.loads("".join(exports.table_json_chunks(table)))


def csv_rows(chunks) -> list[list[str]]:
    return list(csv.reader(io.StringIO("".join(chunks))))


def test_the_json_export_holds_every_match_deal_and_change():
    table = build_evening()
    document = json_document(table)
    assert (document["format"], document["version"]) == ("tressette-scoresheet", 1)
    # Its evening began with its first match: tonight's tally, no stakes.
    began = table.matches.order_by("started_at").first().started_at
    assert document["table"] == {
        "name": 'Bar "Sport" 🃏',
        "evening": "tonight",
        "stakes": False,
        "evening_started_at": began.isoformat(),
    }
    assert document["players"] == ["Elena", 'Gianni "il Bello"', "Nonna 🃏", "سارة", "Dino"]
    cappotto, two, open_match = document["matches"]

    assert cappotto["sides"][0] == {
        "name": 'Gianni "il Bello" & Nonna 🃏',
        "players": ['Gianni "il Bello"', "Nonna 🃏"],
    }
    assert cappotto["first_dealer"] == 'Gianni "il Bello"'
    assert [deal["points"] for deal in cappotto["deals"]] == [[10, 4], [11, 0]]
    assert cappotto["deals"][1] == {
        "number": 2,
        "kind": "cappotto",
        "side": 0,
        "card_points": [11, 0],
        "declared_points": [0, 0],
        "points": [11, 0],
    }
    assert cappotto["totals"] == [21, 4]
    assert (cappotto["status"], cappotto["winner"], cappotto["end_reason"]) == (
        "finished",
        0,
        "cappotto",
    )
    assert [change["action"] for change in cappotto["log"]] == [
        "match_started",
        "deal_recorded",
        "deal_recorded",
        "deal_edited",
        "deal_deleted",
        "deal_recorded",
        "match_ended",
    ]
    edited = cappotto["log"][3]
    assert edited["by"] == "Dino"
    assert edited["detail"]["deal"] == 1
    assert edited["detail"]["old"]["points"] == [11, 3]
    assert edited["detail"]["new"]["points"] == [10, 4]

    assert two["first_dealer"] == "Nonna 🃏"
    assert two["totals"] == [14, 12]
    assert two["winner"] == 0

    assert open_match["sides"][0]["name"] == "I «Lupi»"
    assert open_match["first_dealer"] == "سارة"
    assert (open_match["line"], open_match["tie_rule"], open_match["claims_allowed"]) == (
        31,
        "another_deal",
        True,
    )
    assert (open_match["status"], open_match["winner"], open_match["end_reason"]) == (
        "in_progress",
        None,
        None,
    )
    assert open_match["finished_at"] is None
    assert open_match["totals"] == [13, 16]


def test_the_json_export_streams_one_match_per_chunk():
    table = build_evening()
    chunks = list(exports.table_json_chunks(table))
    assert len(chunks) == 2 + 3


def test_an_empty_table_exports_an_empty_list_of_matches():
    table = services.create_table(name="Nuovo")
    document = json_document(table)
    assert document["matches"] == []
    assert document["players"] == []
    assert csv_rows(exports.table_csv_rows(table)) == [[str(t) for t in exports.CSV_HEADER]]


def test_the_csv_has_a_header_and_a_row_per_deal_with_running_totals():
    table = build_evening()
    rows = csv_rows(exports.table_csv_rows(table))
    assert rows[0] == [
        "Match",
        "Date",
        "Line",
        "Deal",
        "Dealer",
        "Kind",
        "Swept or claimed by",
        "Side 1 name",
        "Side 1, first player",
        "Side 1, second player",
        "Side 1 card points",
        "Side 1 declared points",
        "Side 1 points",
        "Side 1 total",
        "Side 2 name",
        "Side 2, first player",
        "Side 2, second player",
        "Side 2 card points",
        "Side 2 declared points",
        "Side 2 points",
        "Side 2 total",
        "Match status",
        "Winner",
        "Won by",
        "Tie rule",
        "Claims allowed",
        "Declarations allowed",
        "Stakes",
        "Games won",
        "Swept alone by",
    ]
    assert len(rows) == 1 + 2 + 2 + 2
    open_match = Match.objects.get(line=31)
    last = rows[-1]
    assert last[0] == "3"  # the table's third match, oldest first: not its id
    # A date and time as spreadsheets read one, in local time.
    assert last[1] == f"{timezone.localtime(open_match.started_at):%Y-%m-%d %H:%M}"
    # Seat 3 deals first, then seat 0: Dino, partnered with Elena.
    assert last[2:7] == ["31", "2", "Dino", "Normal", ""]
    # A side the table named has its name, then its players; one named after its players
    # says each of them once.
    assert last[7:14] == ["I «Lupi»", "Dino", "Elena", "2", "0", "2", "13"]
    assert last[14:21] == ["", 'Gianni "il Bello"', "سارة", "9", "4", "13", "16"]
    assert last[21:24] == ["In progress", "", ""]
    # What the table agreed for the match, in words.
    assert last[24:] == ["Always play another deal", "yes", "yes", "no", "", ""]
    cappotto_rows = rows[1:3]
    assert [row[5:7] for row in cappotto_rows] == [
        ["Normal", ""],
        ["Cappotto", 'Gianni "il Bello" & Nonna 🃏'],
    ]
    assert [(row[13], row[20]) for row in cappotto_rows] == [("10", "4"), ("21", "4")]
    winner = ["Finished", 'Gianni "il Bello" & Nonna 🃏', "cappotto"]
    agreed = [
        HIGHER_TOTAL,
        "no",
        "yes",
        "no",
        "1",
        "",
    ]  # no stakes: a cappotto counts 1; no sweep by one player alone
    assert [row[21:] for row in cappotto_rows] == [winner + agreed, winner + agreed]
    # The sides' columns never say a pair's names again as one text: a column a player.
    assert [cell for row in rows[1:] for cell in row[7:21] if " & " in cell] == []


def test_a_match_with_no_deal_yet_still_has_its_row_in_the_csv():
    table = services.create_table(name="Bar")
    match = services.start_match(table=table, players=[["Anna"], ["Bruno"]])
    services.stop_match(match=match)
    rows = csv_rows(exports.table_csv_rows(table))
    assert len(rows) == 2
    assert rows[1][0] == "1"
    assert rows[1][2:7] == ["21", "", "", "", ""]
    # Tressette in due: one player a side, no second.
    assert rows[1][7:14] == ["", "Anna", "", "", "", "", "0"]
    assert rows[1][14:21] == ["", "Bruno", "", "", "", "", "0"]
    assert rows[1][21:24] == ["Stopped, undecided", "", ""]
    assert csv_rows(exports.match_csv_rows(match)) == rows


def test_the_csv_says_who_claimed_and_who_won_a_wrong_claim():
    table = services.create_table(name="Bar")
    match = services.start_match(
        table=table,
        players=[["Anna"], ["Bruno"]],
        settings=rules.MatchSettings(claims_allowed=True),
    )
    record(match, entry(6, 5), entry(3, 2, kind="claim", side=0))  # Anna claims with 9
    services.end_match(match=match)
    claim = csv_rows(exports.table_csv_rows(table))[-1]
    assert claim[5:7] == ["Claim", "Anna"]
    assert claim[21:] == ["Finished", "Bruno", "claim", HIGHER_TOTAL, "yes", "yes", "no", "1", ""]


def test_one_match_exports_as_csv_on_its_own():
    other = services.create_table(name="Another table")
    services.start_match(table=other, players=[["Xena"], ["Yuri"]])  # ids are not numbers
    table = build_evening()
    two = Match.objects.get(table=table, players_per_side=1)
    rows = csv_rows(exports.match_csv_rows(two))
    assert len(rows) == 1 + 2
    # Numbered as in the table's CSV.
    table_rows = csv_rows(exports.table_csv_rows(table))
    number = next(row[0] for row in table_rows[1:] if row[4] == "Nonna 🃏" and row[3] == "1")
    assert {row[0] for row in rows[1:]} == {number}
    assert number != str(two.pk)
    assert [row[4] for row in rows[1:]] == ["Nonna 🃏", "سارة"]


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised():
    table = services.create_table(name="=cmd|' /C calc'!A0")
    match = services.start_match(
        table=table,
        players=[["@SUM(1)", "+39 333"], ["Beppe", "Dino"]],
        side_names=['=HYPERLINK("http://evil.example","click")', "-2+3"],
    )
    record(match, WORKED)
    row = csv_rows(exports.table_csv_rows(table))[1]
    assert row[4] == "'@SUM(1)"
    assert row[7] == '\'=HYPERLINK("http://evil.example","click")'
    assert row[8:10] == ["'@SUM(1)", "'+39 333"]
    assert row[14] == "'-2+3"
    assert [cell for cell in row if cell[:1] in {"=", "+", "-", "@", "\t", "\r"}] == []


@pytest.mark.parametrize(
    ("language", "name", "shown"),
    [
        ("en", "Bo;=2+2", "Bo;'=2+2"),
        ("it", "Cy,=3+3", "Cy,'=3+3"),
        ("en", 'Di, "@SUM(1)', "Di, \"'@SUM(1)"),
        ("it", "Ed\n+1", "Ed\n'+1"),
    ],
)
def test_no_cell_starts_a_formula_whichever_separator_a_spreadsheet_splits_at(
    language, name, shown
):
    table = services.create_table(name="Bar")
    match = services.start_match(
        table=table, players=[[name, "Carla"], ["Beppe", "Dino"]], side_names=[name, ""]
    )
    record(match, WORKED)
    with translation.override(language):
        text = "".join(exports.table_csv_rows(table))
    own = ";" if language == "it" else ","
    row = list(csv.reader(io.StringIO(text, newline=""), delimiter=own))[1]
    assert (row[4], row[7], row[8], row[9]) == (shown, shown, shown, "Carla")  # one cell each
    for separator in (",", ";", "\t"):  # read as any: no cell starts a formula
        cells = spreadsheet_cells(text, separator)
        assert [cell for cell in cells if cell.lstrip(' "')[:1] in FORMULA_STARTS] == []


FORMULA_STARTS = {"=", "+", "-", "@", "\t", "\r"}


def spreadsheet_cells(text: str, separator: str) -> list[str]:
    """Cells as spreadsheets split a file at `separator` and line breaks: those that take a
    quote only at a cell's start as opening it (as Python's csv does), and those that take
    quotes as any other character."""
    honouring = csv.reader(io.StringIO(text, newline=""), delimiter=separator)
    ignoring = re.split(f"[{separator}\r\n]", text)
    return [cell for row in honouring for cell in row] + ignoring


def test_a_formula_behind_spaces_or_quotes_is_neutralised():
    table = services.create_table(name="Bar")
    match = services.start_match(
        table=table, players=[["'=1+1", "Carla"], ["Beppe", "Dino"]], side_names=["' @x", ""]
    )
    record(match, WORKED)
    row = csv_rows(exports.table_csv_rows(table))[1]
    assert row[4] == row[8] == "''=1+1"
    assert row[7] == "' '@x"  # the quote just before what a spreadsheet would run


def test_hostile_names_are_quoted_by_csv():
    table = services.create_table(name="Bar")
    match = services.start_match(
        table=table,
        players=[['Al "the, pal"', "Carla"], ["Beppe", "Dino"]],
        side_names=['Line\nbreak, "quoted"', "Beppe, Dino"],
    )
    record(match, WORKED)
    text = "".join(exports.table_csv_rows(table))
    row = csv_rows([text])[1]
    assert row[4] == 'Al "the, pal"'
    assert row[7] == 'Line\nbreak, "quoted"'
    assert row[8:10] == ['Al "the, pal"', "Carla"]
    assert row[14] == "Beppe, Dino"
    assert text.count("\r\n") == 2


def export_queries(table: Table) -> list[int]:
    counts = []
    for export in (exports.table_json_chunks, exports.table_csv_rows):
        with CaptureQueriesContext(connection) as queries:
            for _ in export(table):
                pass
        counts.append(len(queries))
    return counts


def add_matches(table: Table, count: int) -> None:
    for _ in range(count):
        match = services.start_match(table=table, players=[["Alice", "Carla"], ["Beppe", "Dino"]])
        record(match, WORKED, entry(6, 5, 3, 0), entry(2, 9))


def test_the_export_queries_do_not_grow_with_the_matches():
    small, large = services.create_table(name="Small"), services.create_table(name="Large")
    add_matches(small, 2)
    add_matches(large, 6)
    # The CSV asks once more: which games the table played (their columns).
    assert export_queries(small) == export_queries(large) == [5, 3]


def test_export_file_names_are_safe_and_dated():
    today = timezone.localdate().isoformat()
    table = services.create_table(name='Bar Sport "Caffè" / ../etc')
    assert exports.export_filename(table, "csv") == f"tressette-bar-sport-caffe-etc-{today}.csv"
    emoji = services.create_table(name="🃏🍷")
    assert exports.export_filename(emoji, "json") == f"tressette-table-{today}.json"
    services.start_match(table=emoji, players=[["Zoë"], ["Ugo"]])  # another table's match
    match = services.start_match(table=table, players=[["Alice"], ["Beppe"]])
    started = timezone.localdate(match.started_at).isoformat()
    assert (
        exports.export_filename(table, "csv", match=match)
        == f"tressette-bar-sport-caffe-etc-match-1-{started}.csv"  # its number at the table
    )


def test_an_italian_csv_is_split_at_semicolons_as_italian_spreadsheets_expect():
    table = build_evening()
    with translation.override("it"):
        text = "".join(exports.table_csv_rows(table))
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    assert rows[0][:4] == ["Partita", "Data", "Traguardo", "Smazzata"]
    assert {len(row) for row in rows} == {len(exports.CSV_HEADER)}
    english = "".join(exports.table_csv_rows(table))  # this module's tests run in English
    assert english.splitlines()[0].startswith('"Match","Date","Line","Deal",')


@pytest.mark.django_db
def test_a_match_begun_while_the_json_is_written_is_left_out_and_shifts_no_number():
    table = build_evening()
    first = table.matches.order_by("started_at", "pk").first()
    chunks = exports.table_json_chunks(table)
    head = next(chunks)
    services.rematch(match=first)  # begun once the export started
    document = json.loads(head + "".join(chunks))
    assert len(document["matches"]) == 3
    assert [match["rematch"] for match in document["matches"]] == [None, None, None]


@pytest.mark.django_db
def test_a_sweep_by_one_player_is_exported_with_the_players_seat_and_name():
    table = services.create_table(name="Bar")
    match = services.start_match(table=table, players=[["Alice", "Carla"], ["Beppe", "Dino"]])
    alone = entry(1, 10, 0, 3, kind=rules.DealKind.STRAMAZZONE, seat=3)
    record(match, entry(6, 5), alone)
    services.end_match(match=match)
    [exported] = json_document(table)["matches"]
    assert exported["deals"] == [
        {"number": 1, "kind": "normal", "side": None, "card_points": [6, 5],
         "declared_points": [0, 0], "points": [6, 5]},
        {"number": 2, "kind": "stramazzone", "side": 1, "seat": 3, "card_points": [1, 10],
         "declared_points": [0, 3], "points": [1, 16]},
    ]  # fmt: skip
    assert (exported["winner"], exported["end_reason"]) == (1, "stramazzone")
    rows = csv_rows(exports.table_csv_rows(table))
    assert [row[5:7] + row[27:] for row in rows[1:]] == [
        ["Normal", "", "no", "1", ""],  # no stakes: a stramazzone counts 1
        ["Stramazzone", "Beppe & Dino", "no", "1", "Dino"],
    ]
    assert rows[2][21:24] == ["Finished", "Beppe & Dino", "stramazzone"]
