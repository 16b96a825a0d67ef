"""Streaming CSV and JSON exports of a table, and reading a JSON export back for import.

Both exports are generators of text chunks, for a StreamingHttpResponse or a file. The
sides, the deals and the change log each come in one query ordered by match, read in chunks
with `.iterator()` and cut into matches as they arrive: 100,000 deals export in constant
memory and in the same few queries as ten. Every score comes from `matches.rules`.

The JSON format is described in docs/export-format.md.
"""

import csv
import itertools
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from operator import attrgetter

from django.core.exceptions import ValidationError
from django.db.models import F, Q, QuerySet
from django.utils import formats, timezone
from django.utils.text import slugify
from django.utils.translation import gettext, gettext_lazy, ngettext

from matches import rules
from matches.forms import clean_name, hides_something
from matches.models import (
    MATCH_DEALS_MAX,
    NAME_MAX,
    SIDE_NAME_MAX,
    TABLE_NAME_MAX,
    TABLE_PLAYERS_MAX,
    Action,
    Change,
    Deal,
    DealKind,
    EndReason,
    Match,
    Side,
    Status,
    Table,
    TieRule,
    name_key,
    pair_name,
    side_name,
)
from matches.sheet import seat_names

FORMAT = "tressette-scoresheet"
VERSION = 1
CHUNK_SIZE = 2000
MAX_MESSAGES = 50
MAX_WHOLE = 2_147_483_647  # the largest value an integer column holds
# A match's change log: a long evening makes a few hundred changes; a file claiming more is
# not a real export, and its history would be a chore to read.
MAX_LOG = 10_000
FIRST_YEAR, LAST_YEAR = 1900, 2999  # for dates: any page can show them in local time

# Rows of many matches, in the order the matches are exported.
_BY_MATCH = ("match__started_at", "match_id")

CSV_HEADER = (
    gettext_lazy("Match"),
    gettext_lazy("Date"),
    gettext_lazy("Line"),
    gettext_lazy("Deal"),
    gettext_lazy("Dealer"),
    gettext_lazy("Kind"),
    gettext_lazy("Swept or claimed by"),
    gettext_lazy("Side 1"),
    gettext_lazy("Side 1 players"),
    gettext_lazy("Side 1 card points"),
    gettext_lazy("Side 1 declared points"),
    gettext_lazy("Side 1 points"),
    gettext_lazy("Side 1 total"),
    gettext_lazy("Side 2"),
    gettext_lazy("Side 2 players"),
    gettext_lazy("Side 2 card points"),
    gettext_lazy("Side 2 declared points"),
    gettext_lazy("Side 2 points"),
    gettext_lazy("Side 2 total"),
    gettext_lazy("Match status"),
    gettext_lazy("Winner"),
    gettext_lazy("Won by"),
)
# A spreadsheet runs a cell starting with one of these as a formula.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


# --- Reading a table's matches -------------------------------------------------


@dataclass(frozen=True)
class _Scored:
    match: Match
    sides: list[Side]
    outcome: rules.Outcome
    changes: list[Change]


class _ByMatch:
    """Rows of many matches, ordered like the matches, handed out a match at a time.

    They are read in chunks as they are asked for. Rows of a match that is not asked for
    (one begun while the export runs) are passed over.
    """

    def __init__(self, rows: QuerySet, *then: str) -> None:
        rows = rows.annotate(match_started_at=F("match__started_at")).order_by(*_BY_MATCH, *then)
        self._rows = rows.iterator(chunk_size=CHUNK_SIZE)
        self._row = next(self._rows, None)

    def of(self, match: Match) -> list:
        key = (match.started_at, match.pk)
        group = []
        while self._row is not None and (self._row.match_started_at, self._row.match_id) <= key:
            if self._row.match_id == match.pk:
                group.append(self._row)
            self._row = next(self._rows, None)
        return group


def _scored_matches(matches: QuerySet[Match], *, with_log: bool = False) -> Iterator[_Scored]:
    """Each match, oldest first, with its sides and deals scored by the rules.

    Two queries (three with the log) however many matches and deals there are, each read
    in chunks: the memory used does not grow with them either.
    """
    sides = (
        Side.objects.filter(match__in=matches)
        .select_related("match", "first_player", "second_player")
        .order_by(*_BY_MATCH, "position")
        .iterator(chunk_size=CHUNK_SIZE)
    )
    deals = _ByMatch(Deal.objects.filter(match__in=matches), "number")
    log = Change.objects.filter(match__in=matches) if with_log else Change.objects.none()
    changes = _ByMatch(log, "at", "id")
    for _, pair in itertools.groupby(sides, key=attrgetter("match_id")):
        match_sides = list(pair)
        match = match_sides[0].match
        outcome = match.outcome(deals.of(match), match_sides)
        yield _Scored(match, match_sides, outcome, changes.of(match))


# --- CSV -----------------------------------------------------------------------


class _Echo:
    """A file that hands back what is written to it: csv.writer then returns each row."""

    def write(self, text: str) -> str:
        return text


def _cell(value: object) -> object:
    """Text a spreadsheet would run as a formula gets a leading quote."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def _csv_rows(matches: QuerySet[Match], *, first: int = 1) -> Iterator[str]:
    """The header, then a row per deal; matches numbered from `first`, oldest first."""
    # Labels in the language active now: a streamed response is read after the view returns.
    # So is the separator: where a decimal point is written as a comma (Italian), spreadsheets
    # (Excel above all) split a row at semicolons.
    delimiter = ";" if formats.get_format("DECIMAL_SEPARATOR") == "," else ","
    header = [str(title) for title in CSV_HEADER]
    kinds = {kind: str(label) for kind, label in DealKind.choices}
    statuses = {status: str(label) for status, label in Status.choices}
    reasons = {reason: str(label) for reason, label in EndReason.choices}

    def rows() -> Iterator[str]:
        writer = csv.writer(_Echo(), delimiter=delimiter)
        yield writer.writerow([_cell(title) for title in header])
        for number, scored in enumerate(_scored_matches(matches), start=first):
            match, sides = scored.match, scored.sides
            names = seat_names(sides)
            # As spreadsheets read a date and time in any language (an offset would make it
            # text); the JSON keeps the offset.
            date = timezone.localtime(match.started_at).strftime("%Y-%m-%d %H:%M")
            seated = [pair_name([player.name for player in side.players]) for side in sides]
            won = match.winner is not None and match.status == Status.FINISHED
            ending = [statuses[match.status]]
            ending += [sides[match.winner].name, reasons[match.end_reason]] if won else ["", ""]
            for deal in scored.outcome.deals:
                entry = deal.entry
                named = sides[entry.side].name if entry.side is not None else ""
                row = [number, date, match.line, deal.number, names[deal.dealer]]
                row += [kinds[entry.kind], named]
                for i, side in enumerate(sides):
                    row += [side.name, seated[i], entry.card_points[i], entry.declared_points[i]]
                    row += [deal.points[i], deal.totals[i]]
                yield writer.writerow([_cell(value) for value in row + ending])
            if not scored.outcome.deals:  # a match with no deal yet still has its row
                row = [number, date, match.line, "", "", "", ""]
                for i, side in enumerate(sides):
                    row += [side.name, seated[i], "", "", "", 0]
                yield writer.writerow([_cell(value) for value in row + ending])

    return rows()


def table_csv_rows(table: Table) -> Iterator[str]:
    """The whole table as CSV: a header, then one row per deal, oldest match first."""
    return _csv_rows(Match.objects.filter(table=table))


def match_csv_rows(match: Match) -> Iterator[str]:
    """One match as CSV: a header, then one row per deal; numbered as in the table's CSV."""
    return _csv_rows(Match.objects.filter(pk=match.pk), first=match_number(match))


def match_number(match: Match) -> int:
    """The match's number at its table: 1 for the first begun (as the table's CSV counts)."""
    earlier = Q(started_at__lt=match.started_at) | Q(started_at=match.started_at, pk__lt=match.pk)
    return Match.objects.filter(earlier, table_id=match.table_id).count() + 1


# --- JSON ----------------------------------------------------------------------


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when is not None else None


def _match_document(scored: _Scored, numbers: dict[int, int]) -> dict:
    """One match; `numbers` gives each match's number in the file (1, 2, 3…) by its id."""
    match, sides = scored.match, scored.sides
    return {
        "started_at": _iso(match.started_at),
        "finished_at": _iso(match.finished_at),
        "line": match.line,
        "tie_rule": match.tie_rule,
        "claims_allowed": match.claims_allowed,
        "sides": [
            {"name": side.name, "players": [player.name for player in side.players]}
            for side in sides
        ],
        "first_dealer": seat_names(sides)[match.first_dealer],
        "deals": [
            {
                "number": deal.number,
                "kind": str(deal.entry.kind),
                "side": deal.entry.side,
                "card_points": list(deal.entry.card_points),
                "declared_points": list(deal.entry.declared_points),
                "points": list(deal.points),
            }
            for deal in scored.outcome.deals
        ],
        "totals": list(scored.outcome.totals),
        "status": match.status,
        "winner": match.winner,
        "end_reason": match.end_reason or None,
        "rematch": numbers.get(match.next_match_id),
        "log": [
            {
                "at": _iso(change.at),
                "action": change.action,
                "by": change.by,
                "detail": {"deal": change.deal_number, "old": change.old, "new": change.new},
            }
            for change in scored.changes
        ],
    }


def table_json_chunks(table: Table) -> Iterator[str]:
    """The whole table as a JSON document (version 1), one match per chunk.

    Each match's number in the file, which a rematch is named by, is counted first: the
    matches written are those counted (a match begun meanwhile has a later id).
    """
    head = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now().isoformat(),
        "table": {"name": table.name},
        "players": list(table.players.order_by("pk").values_list("name", flat=True)),
    }
    matches = Match.objects.filter(table=table)
    ids = matches.order_by("started_at", "pk").values_list("pk", flat=True)  # as _BY_MATCH
    numbers = {pk: number for number, pk in enumerate(ids.iterator(), start=1)}
    yield _dumps(head)[:-1] + ', "matches": ['
    separator = "\n"
    for scored in _scored_matches(matches.filter(pk__lte=max(numbers, default=0)), with_log=True):
        yield separator + _dumps(_match_document(scored, numbers))
        separator = ",\n"
    yield "\n]}\n"


def export_filename(table: Table, ext: str, match: Match | None = None) -> str:
    """A safe download name: `tressette-bar-sport-2026-11-29.csv`.

    The table's name, then the match and the day it began, or else today.
    """
    parts = ["tressette", slugify(table.name)[:40].strip("-") or "table"]
    if match is None:
        parts.append(timezone.localdate().isoformat())
    else:
        day = timezone.localdate(match.started_at).isoformat()
        parts += [f"match-{match_number(match)}", day]
    return f"{'-'.join(parts)}.{ext}"


# --- Reading an export back ------------------------------------------------------


class ImportInvalid(ValueError):
    """Everything wrong with an import file, in words naming the match and deal at fault."""

    def __init__(self, messages: list[str]) -> None:
        self.messages = list(messages)
        super().__init__("\n".join(self.messages))


@dataclass(frozen=True)
class LogEntry:
    at: datetime
    action: str
    by: str
    deal_number: int | None
    old: dict | None
    new: dict | None


@dataclass(frozen=True)
class MatchImport:
    """One match of a checked file; `outcome` is what the rules scored from its deals."""

    started_at: datetime
    finished_at: datetime | None
    match_rules: rules.MatchRules
    players: tuple[tuple[str, ...], ...]  # each side's players, as named in the players list
    first_dealer: int  # a seat
    outcome: rules.Outcome
    status: str
    winner: int | None
    end_reason: str  # "" while the match is in progress
    log: tuple[LogEntry, ...]
    rematch: int | None = None  # the number in the file of the match begun as its rematch


@dataclass(frozen=True)
class TableImport:
    name: str
    players: tuple[str, ...]
    matches: tuple[MatchImport, ...]


# An export holds an object or a list for every 35 to 40 bytes or so. Far denser, a file is
# built to swell in memory ({},{},... takes some 20 times its size once read): refused unread.
_MIN_BYTES_PER_CONTAINER = 12


# A JSON string, for counting the containers outside them: a name may be "[[Capo]]". An
# unclosed one runs to the end of the file: every match then ends at a quote or at the end,
# so no byte is read twice (a required closing quote made '"\\"\\"\\"...' take quadratic time).
_STRING = re.compile(r'"(?:[^"\\]|\\.)*+"?')
_STRING_BYTES = re.compile(_STRING.pattern.encode())


def parse_document(raw: bytes | str) -> dict:
    """The JSON object in an uploaded file; `validate_document` checks what it says."""
    text = isinstance(raw, str)
    strings, brace, bracket = (_STRING, "{", "[") if text else (_STRING_BYTES, b"{", b"[")
    bare = strings.sub(raw[:0], raw)  # only the containers outside strings count
    containers = bare.count(brace) + bare.count(bracket)
    if containers > 1000 and containers * _MIN_BYTES_PER_CONTAINER > len(raw):
        raise ImportInvalid([_not_an_export()])
    try:
        document = json.loads(
            raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw,
            parse_constant=_refuse_constant,
        )
    except UnicodeDecodeError:
        raise ImportInvalid([gettext("The file is not UTF-8 text.")]) from None
    except json.JSONDecodeError as error:
        if error.pos == 0 and _looks_like_csv(error.doc):
            raise ImportInvalid(
                [
                    gettext(
                        "This is a spreadsheet (CSV) file: a table is restored from its JSON "
                        "export, the file that ends in .json."
                    )
                ]
            ) from None
        where = {"line": error.lineno, "column": error.colno}
        raise ImportInvalid(
            [gettext("The file is not valid JSON (line %(line)s, column %(column)s).") % where]
        ) from None
    except (ValueError, RecursionError):
        raise ImportInvalid([gettext("The file is not valid JSON.")]) from None
    if not isinstance(document, dict):
        raise ImportInvalid([_not_an_export()])
    return document


def _looks_like_csv(text: str) -> bool:
    """A first line of several cells, as the CSV export's header is (in either language)."""
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    return max(first.count(","), first.count(";")) >= 2


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")


def _not_an_export() -> str:
    return gettext("The file is not a Tressette scoresheet export.")


def validate_document(document: object) -> TableImport:
    """Check a parsed export against the format and the rules.

    Raises ImportInvalid listing what is wrong: each match is checked on its own, and its
    first broken part named ("Match 2, deal 5: ...").
    """
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ImportInvalid([_not_an_export()])
    version = document.get("version")
    if not _is_a(version, int) or version != VERSION:
        raise ImportInvalid(
            [
                gettext("This app reads version %(supported)s of the export, not %(version)s.")
                % {"supported": VERSION, "version": _shown(version)}
            ]
        )
    where = gettext("The file")
    table = _get(document, "table", where, dict)
    name = _name(
        _get(table, "name", gettext("The table"), str), gettext("The table"), TABLE_NAME_MAX
    )
    players = _players(_get(document, "players", where, list))
    matches = _get(document, "matches", where, list)
    messages: list[str] = []
    checked: list[MatchImport] = []
    for index, match in enumerate(matches, start=1):
        try:
            checked.append(_match(match, gettext("Match %(match)s") % {"match": index}, players))
        except ImportInvalid as invalid:
            messages += invalid.messages
    if not messages:  # then `checked` holds every match, numbered as in the file
        messages = _check_rematches(checked)
    if messages:
        if len(messages) > MAX_MESSAGES:
            more = len(messages) - MAX_MESSAGES
            messages = [
                *messages[:MAX_MESSAGES],
                ngettext("… and %(count)s more problem.", "… and %(count)s more problems.", more)
                % {"count": more},
            ]
        raise ImportInvalid(messages)
    return TableImport(name, tuple(players.values()), tuple(checked))


def _check_rematches(matches: list[MatchImport]) -> list[str]:
    """A rematch is begun from an ended or stopped match, as the rematch of that one only,
    and seats its players as they sat.

    It may come anywhere in the file: the export numbers matches by their start, and a match
    dated by hand (or imported so) may start after its own rematch."""
    messages = []
    begun_from: dict[int, int] = {}
    for number, match in enumerate(matches, start=1):
        if match.rematch is None:
            continue
        where = gettext("Match %(match)s") % {"match": number}
        if match.status == Status.IN_PROGRESS:
            refused = _fail(
                "%(where)s: a match still being played has no rematch yet.", where=where
            )
        elif not 1 <= match.rematch <= len(matches) or match.rematch == number:
            refused = _fail(
                "%(where)s: “rematch” must be the number of another match in the file, "
                "not %(found)s.",
                where=where,
                found=match.rematch,
            )
        elif matches[match.rematch - 1].players != match.players:
            refused = _fail(
                "%(where)s: match %(rematch)s cannot be its rematch: a rematch seats the same "
                "players in the same seats.",
                where=where,
                rematch=match.rematch,
            )
        elif match.rematch in begun_from:
            refused = _fail(
                "%(where)s: match %(rematch)s is already the rematch of match %(other)s.",
                where=where,
                rematch=match.rematch,
                other=begun_from[match.rematch],
            )
        else:
            begun_from[match.rematch] = number
            continue
        messages += refused.messages
    return messages or _rematch_loops(matches)


def _rematch_loops(matches: list[MatchImport]) -> list[str]:
    """A rematch is begun after its match: following rematches never comes back round.
    Each match has at most one, each the rematch of one match only: one walk each."""
    walked: set[int] = set()
    for start in range(1, len(matches) + 1):
        path: list[int] = []
        number: int | None = start
        while number is not None and number not in walked:
            walked.add(number)
            path.append(number)
            number = matches[number - 1].rematch
        if number is not None and number in path:
            return _fail(
                "%(where)s: its rematch, or a rematch of that one, is this match again.",
                where=gettext("Match %(match)s") % {"match": number},
            ).messages
    return []


# --- Checking the parts of a file ------------------------------------------------

_KINDS = DealKind.values
_TIE_RULES = TieRule.values
_STATUSES = Status.values
_END_REASONS = EndReason.values
_ACTIONS = Action.values
_TYPE_NAMES = {
    int: gettext_lazy("a whole number (0 or more)"),
    str: gettext_lazy("text"),
    list: gettext_lazy("a list"),
    dict: gettext_lazy("an object"),
    bool: gettext_lazy("true or false"),
}


def _fail(template: str, **params: object) -> ImportInvalid:
    return ImportInvalid([gettext(template) % params])


def _is_a(value: object, expected: type) -> bool:
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_WHOLE
    return isinstance(value, expected)


def _shown(value: object) -> str:
    """A value from the file, briefly, for a message."""
    if value is None or isinstance(value, str | bool | float):
        text = json.dumps(value, ensure_ascii=False)
        text = text if len(text) <= 40 else text[:39] + "…"
        return text.encode("utf-8", "backslashreplace").decode()  # no lone surrogates
    if isinstance(value, int):
        return str(value) if value.bit_length() <= 64 else gettext("a very large number")
    return str(_TYPE_NAMES.get(type(value), type(value).__name__))


def _get(obj: dict, field: str, where: str, expected: type, *, null: bool = False):
    """`obj[field]`, which must be of the `expected` JSON type (or null, if allowed)."""
    if field not in obj:
        raise _fail("%(where)s: “%(field)s” is missing.", where=where, field=field)
    value = obj[field]
    if (value is None and null) or _is_a(value, expected):
        return value
    raise _fail(
        "%(where)s: “%(field)s” must be %(expected)s, not %(found)s.",
        where=where,
        field=field,
        expected=_TYPE_NAMES[expected],
        found=_shown(value),
    )


def _choice(obj: dict, field: str, where: str, choices: list[str], *, null: bool = False):
    value = _get(obj, field, where, str, null=null)
    if value is None or value in choices:
        return value
    raise _fail(
        "%(where)s: “%(field)s” must be one of %(choices)s, not %(found)s.",
        where=where,
        field=field,
        choices=", ".join(choices),
        found=_shown(value),
    )


def _when(obj: dict, field: str, where: str, *, null: bool = False) -> datetime | None:
    value = _get(obj, field, where, str, null=null)
    if value is None:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise _fail(
            "%(where)s: “%(field)s” must be a date and time with its UTC offset, "
            "like 2026-11-29T21:30:00+01:00, not %(found)s.",
            where=where,
            field=field,
            found=_shown(value),
        )
    try:
        when = when.astimezone(UTC)
    except OverflowError:  # past year 9999 or before year 1 in UTC
        when = None
    # Pages show dates in local time: one at the edge of year 9999 could not be shown.
    if when is None or not FIRST_YEAR <= when.year <= LAST_YEAR:
        raise _fail(
            "%(where)s: “%(field)s” must be a date between the years %(first)s and %(last)s, "
            "not %(found)s.",
            where=where,
            field=field,
            first=FIRST_YEAR,
            last=LAST_YEAR,
            found=_shown(value),
        )
    return when


def _pair(obj: dict, field: str, where: str) -> tuple[int, int]:
    """One whole number per side, as `[8, 3]`."""
    value = _get(obj, field, where, list)
    if len(value) != 2 or not all(_is_a(number, int) for number in value):
        raise _fail(
            "%(where)s: “%(field)s” must be two whole numbers, one per side, like [8, 3].",
            where=where,
            field=field,
        )
    return value[0], value[1]


def _name(value: str, where: str, max_length: int, *, blank: bool = False) -> str:
    try:
        name = clean_name(value, max_length=max_length)
    except ValidationError as error:
        raise _fail("%(where)s: %(message)s", where=where, message=error.messages[0]) from None
    if not name and not blank:
        raise _fail("%(where)s: the name is empty.", where=where)
    return name


def _players(names: list) -> dict[str, str]:
    """The table's players by name_key: ignoring case and accents, as a table compares them."""
    if len(names) > TABLE_PLAYERS_MAX:
        raise _fail(
            "The file lists %(count)s players; a table holds at most %(max)s.",
            count=len(names),
            max=TABLE_PLAYERS_MAX,
        )
    players: dict[str, str] = {}
    for number, raw in enumerate(names, start=1):
        where = gettext("Player %(number)s") % {"number": number}
        if not isinstance(raw, str):
            raise _fail(
                "%(where)s: a player is a name, not %(found)s.", where=where, found=_shown(raw)
            )
        name = _name(raw, where, NAME_MAX)
        if name_key(name) in players:
            raise _fail(
                "%(where)s: %(name)s is already in the players list, as %(same)s (names "
                "are compared ignoring case and accents).",
                where=where,
                name=name,
                same=players[name_key(name)],
            )
        players[name_key(name)] = name
    return players


def _sides(raw: list, where: str, players: dict[str, str]) -> tuple[list[str], list[list[str]]]:
    """The two sides' names and their players (by the names in the players list)."""
    if len(raw) != 2 or not all(isinstance(side, dict) for side in raw):
        raise _fail("%(where)s: “sides” must be a list of two sides.", where=where)
    names: list[str] = []
    seated: list[list[str]] = []
    for position, side in enumerate(raw):
        at = gettext("%(where)s, side %(side)s") % {"where": where, "side": position + 1}
        typed = _name(_get(side, "name", at, str), at, SIDE_NAME_MAX)
        side_players = _get(side, "players", at, list)
        if len(side_players) not in (1, 2) or not all(isinstance(p, str) for p in side_players):
            raise _fail("%(where)s: a side has one or two players, by name.", where=at)
        seated.append([])
        for raw_name in side_players:
            name = _name(raw_name, at, NAME_MAX)
            if name_key(name) not in players:
                raise _fail("%(where)s: %(name)s is not in the players list.", where=at, name=name)
            seated[-1].append(players[name_key(name)])
        names.append(side_name(typed, seated[-1]))  # spelled as the players, if theirs
    if len(seated[0]) != len(seated[1]):
        raise _fail("%(where)s: both sides need the same number of players.", where=where)
    if name_key(names[0]) == name_key(names[1]):
        # The sheet, its messages and the exports tell the sides apart by name.
        raise _fail(
            "%(where)s: both sides are called %(name)s; give one of them another name.",
            where=where,
            name=names[1],
        )
    everyone = seated[0] + seated[1]
    if len(set(everyone)) != len(everyone):
        raise _fail("%(where)s: a player can sit only once at a match.", where=where)
    return names, seated


def _rule_message(where: str, error: rules.RuleError) -> str:
    return f"{where}: {gettext(error.template) % error.params}"


def _match(raw: object, where: str, players: dict[str, str]) -> MatchImport:
    if not isinstance(raw, dict):
        raise _fail("%(where)s: a match must be an object.", where=where)
    started_at = _when(raw, "started_at", where)
    finished_at = _when(raw, "finished_at", where, null=True)
    if finished_at is not None and finished_at < started_at:
        raise _fail("%(where)s: “finished_at” is before “started_at”.", where=where)
    line = _get(raw, "line", where, int)
    tie_rule = _choice(raw, "tie_rule", where, _TIE_RULES)
    claims_allowed = _get(raw, "claims_allowed", where, bool)
    side_names, seated = _sides(_get(raw, "sides", where, list), where, players)
    try:
        match_rules = rules.MatchRules(
            line=line,
            tie_rule=tie_rule,
            claims_allowed=claims_allowed,
            side_names=(side_names[0], side_names[1]),
        )
    except rules.RuleError as error:
        raise ImportInvalid([_rule_message(where, error)]) from None
    seats = _seat_order(seated)
    dealer = _get(raw, "first_dealer", where, str)
    if name_key(dealer) not in [name_key(name) for name in seats]:
        raise _fail(
            "%(where)s: the first dealer, %(name)s, does not sit at this match.",
            where=where,
            name=_shown(dealer),
        )
    first_dealer = [name_key(name) for name in seats].index(name_key(dealer))

    deals = _get(raw, "deals", where, list)
    if len(deals) > MATCH_DEALS_MAX:
        raise _fail(
            "%(where)s: it holds %(count)s deals; a match holds at most %(max)s.",
            where=where,
            count=len(deals),
            max=MATCH_DEALS_MAX,
        )
    deal_at = gettext("%(where)s, deal %(deal)s")
    entries, points = [], []
    for number, deal in enumerate(deals, start=1):
        at = deal_at % {"where": where, "deal": number}
        if not isinstance(deal, dict):
            raise _fail("%(where)s: a deal must be an object.", where=at)
        if _get(deal, "number", at, int) != number:
            raise _fail(
                "%(where)s: it is numbered %(found)s; deals are numbered 1, 2, 3… in order.",
                where=at,
                found=deal["number"],
            )
        entries.append(
            rules.DealEntry(
                card_points=_pair(deal, "card_points", at),
                declared_points=_pair(deal, "declared_points", at),
                kind=_choice(deal, "kind", at, _KINDS),
                side=_get(deal, "side", at, int, null=True),
            )
        )
        points.append(_pair(deal, "points", at))

    def scored(entries: list[rules.DealEntry]) -> rules.Outcome:
        outcome = rules.evaluate(
            match_rules, entries, first_dealer=first_dealer, seat_count=len(seats)
        )
        for deal, stated in zip(outcome.deals, points, strict=False):
            if deal.points != stated:
                raise _fail(
                    "%(where)s, deal %(deal)s: the file gives points %(file)s, but the rules "
                    "score %(scored)s.",
                    where=where,
                    deal=deal.number,
                    file=list(stated),
                    scored=list(deal.points),
                )
        return outcome

    try:
        outcome = scored(entries)
    except rules.DealInvalid as invalid:
        # A deal changed in the file before this one may be the cause (its points no longer
        # what the file says): that one is named first.
        scored(entries[: invalid.errors[0].deal_number - 1])
        raise ImportInvalid(
            [
                _rule_message(deal_at % {"where": where, "deal": error.deal_number}, error)
                for error in invalid.errors
            ]
        ) from None
    totals = _pair(raw, "totals", where)
    if totals != outcome.totals:
        raise _fail(
            "%(where)s: the file gives totals %(file)s, but the deals add up to %(scored)s.",
            where=where,
            file=list(totals),
            scored=list(outcome.totals),
        )
    status = _choice(raw, "status", where, _STATUSES)
    winner = _get(raw, "winner", where, int, null=True)
    end_reason = _choice(raw, "end_reason", where, _END_REASONS, null=True)
    _check_result(where, side_names, outcome, status, winner, end_reason, finished_at)
    raw_log = _get(raw, "log", where, list)
    if len(raw_log) > MAX_LOG:
        raise _fail(
            "%(where)s: the log holds %(count)s changes; a match keeps at most %(max)s.",
            where=where,
            count=len(raw_log),
            max=MAX_LOG,
        )
    log = [
        _log_entry(entry, gettext("%(where)s, log entry %(entry)s") % {"where": where, "entry": n})
        for n, entry in enumerate(raw_log, start=1)
    ]
    return MatchImport(
        started_at=started_at,
        finished_at=finished_at,
        match_rules=match_rules,
        players=tuple(tuple(side) for side in seated),
        first_dealer=first_dealer,
        outcome=outcome,
        status=status,
        winner=winner,
        end_reason=end_reason or "",
        log=tuple(log),
        # Files written before rematches were linked have no such field.
        rematch=_get(raw, "rematch", where, int, null=True) if "rematch" in raw else None,
    )


def _seat_order(seated: list[list[str]]) -> list[str]:
    """The players' names in seat order, from each side's players."""
    count = 2 * len(seated[0])
    return [seated[side][index] for side, index in map(rules.seat_player, range(count))]


def _check_result(
    where: str,
    side_names: list[str],
    outcome: rules.Outcome,
    status: str,
    winner: int | None,
    end_reason: str | None,
    finished_at: datetime | None,
) -> None:
    """A finished match must be decided as the file says; one in progress has no result,
    and one stopped undecided has only the time it stopped."""
    if status == Status.IN_PROGRESS:
        if winner is not None or end_reason is not None or finished_at is not None:
            raise _fail(
                "%(where)s: a match in progress has no winner, end reason or finish time.",
                where=where,
            )
        return
    if status == Status.ABANDONED:
        if winner is not None or end_reason is not None or finished_at is None:
            raise _fail(
                "%(where)s: a match stopped undecided has no winner or end reason, and needs "
                "“finished_at”.",
                where=where,
            )
        if outcome.decided:
            raise _fail(
                "%(where)s: the file says it was stopped undecided, but its deals decide it.",
                where=where,
            )
        return
    if not outcome.decided:
        raise _fail(
            "%(where)s: the file says it is finished, but its deals do not decide it.",
            where=where,
        )
    if winner != outcome.winner:
        raise _fail(
            "%(where)s: the file gives the winner as %(file)s, but by the deals %(scored)s won.",
            where=where,
            file=side_names[winner] if winner in (0, 1) else _shown(winner),
            scored=side_names[outcome.winner],
        )
    if end_reason != outcome.reason:
        raise _fail(
            "%(where)s: the file says the match ended by %(file)s, but by the deals it ended "
            "by %(scored)s.",
            where=where,
            file=_reason(end_reason),
            scored=_reason(outcome.reason),
        )
    if finished_at is None:
        raise _fail("%(where)s: a finished match needs “finished_at”.", where=where)


def _reason(reason: str | None) -> str:
    """An end reason in the reader's words ("cappotto", "reached the line")."""
    return f"“{EndReason(reason).label}”" if reason else _shown(reason)


def _log_entry(raw: object, where: str) -> LogEntry:
    if not isinstance(raw, dict):
        raise _fail("%(where)s: a log entry must be an object.", where=where)
    detail = {"deal": None, "old": None, "new": None, **_get(raw, "detail", where, dict)}
    return LogEntry(
        at=_when(raw, "at", where),
        action=_choice(raw, "action", where, _ACTIONS),
        by=_name(_get(raw, "by", where, str), where, 2 * NAME_MAX, blank=True),
        deal_number=_get(detail, "deal", where, int, null=True),
        old=_values(detail, "old", where),
        new=_values(detail, "new", where),
    )


def _values(detail: dict, field: str, where: str) -> dict | None:
    """A deal's or a match's values in the log: plain values, or lists of them, by name."""
    values = _get(detail, field, where, dict, null=True)
    if values is None:
        return None
    if all(
        _plain(key) and (_plain(value) or (isinstance(value, list) and all(map(_plain, value))))
        for key, value in values.items()
    ):
        return values
    raise _fail(
        "%(where)s: “%(field)s” may hold only numbers, true/false, null, plain text and lists "
        "of those.",
        where=where,
        field=field,
    )


def _plain(value: object) -> bool:
    if isinstance(value, str):
        return not hides_something(value)  # as in a name
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, int)
