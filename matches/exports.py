"""A table's history as documents: streaming CSV for spreadsheets and JSON to keep or move
(read back by matches.imports; the format is docs/export-format.md).

Both are generators of text chunks, for a StreamingHttpResponse or a file. The sides, the
deals and the change log each come in one query ordered by match, read in chunks and cut
into matches as they arrive: 100,000 deals export in constant memory and in the same few
queries as ten. Every score comes from `matches.rules`.
"""

import csv
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from operator import attrgetter

from django.db.models import F, Q, QuerySet
from django.template.defaultfilters import yesno
from django.utils import formats, timezone
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext

from matches import rules
from matches.models import (
    A_MONTE,
    BIDS,
    DEAL_KINDS,
    END_REASONS,
    GAMES,
    STATUSES,
    TIE_RULES,
    Change,
    Deal,
    Match,
    Side,
    Table,
    deal_document,
)

FORMAT = "tressette-scoresheet"
VERSION = 1
CHUNK_SIZE = 2000

CSV_HEADER = (
    _("Match"),
    _("Date"),
    _("Line"),
    _("Deal"),
    _("Dealer"),
    _("Kind"),
    _("Swept or claimed by"),
    _("Side 1 name"),
    _("Side 1, first player"),
    _("Side 1, second player"),
    _("Side 1 card points"),
    _("Side 1 declared points"),
    _("Side 1 points"),
    _("Side 1 total"),
    _("Side 2 name"),
    _("Side 2, first player"),
    _("Side 2, second player"),
    _("Side 2 card points"),
    _("Side 2 declared points"),
    _("Side 2 points"),
    _("Side 2 total"),
    _("Match status"),
    _("Winner"),
    _("Won by"),
    _("Tie rule"),
    _("Claims allowed"),
    _("Declarations allowed"),
    _("Stakes"),
    _("Games won"),
    # Added last: a spreadsheet that reads the columns before it by place still reads them.
    _("Swept alone by"),
)
# A table that played Terziglio has these too, after the rest: a deal of three, its sides
# 1 and 2 in the columns above (each a player; card points only the soloist's), the third
# player here. A table of Tressette alone exports as it always did.
TERZIGLIO_HEADER = (
    _("Game"),
    _("Played alone by"),
    _("Bid"),
    _("Side 3 name"),
    _("Side 3 card points"),
    _("Side 3 points"),
    _("Side 3 total"),
)
# And a table that played a perdere these, after those: its players 1 to 3 in the columns
# of the sides above (card points each their own), the fourth and fifth here.
A_PERDERE_HEADER = (
    _("Took every point"),
    _("Side 4 name"),
    _("Side 4 card points"),
    _("Side 4 points"),
    _("Side 4 total"),
    _("Side 5 name"),
    _("Side 5 card points"),
    _("Side 5 points"),
    _("Side 5 total"),
)
# Where a spreadsheet may begin a cell in a text: at its start, or after a separator (either:
# one set to the other separator splits at it, quotes or not) or a line break; then perhaps
# spaces or quotes it drops, and a character that makes the cell a formula.
_FORMULA_AT_A_CELLS_START = re.compile(r"(?:^|[,;\t\r\n])[ '\"]*(?=[=+\-@\t\r])")
# Rows of many matches, in the order the matches are exported.
_BY_MATCH = ("match__started_at", "match_id")


@dataclass(frozen=True)
class _Scored:
    match: Match
    sides: list[Side]
    outcome: rules.Outcome
    changes: list[Change]

    @property
    def seat_names(self) -> list[str]:
        if self.match.game != rules.Game.TRESSETTE:  # each player a side of one
            return [side.name for side in self.sides]
        return rules.seat_order([[p.name for p in side.players] for side in self.sides])


class _ByMatch:
    """Rows of many matches, ordered like the matches, handed out a match at a time as they
    are read. Rows of a match not asked for (one begun while the export runs) are passed."""

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
    """Each match, oldest first, with its sides and deals scored by the rules: two queries
    (three with the log) however many there are, each read in chunks."""
    sides = (
        Side.objects.filter(match__in=matches)
        .select_related("match", "first_player", "second_player")
        .order_by(*_BY_MATCH, "position")
        .iterator(chunk_size=CHUNK_SIZE)
    )
    deals = _ByMatch(Deal.objects.filter(match__in=matches), "number")
    log = Change.objects.filter(match__in=matches) if with_log else Change.objects.none()
    changes = _ByMatch(log, "at", "id")
    for _match_id, pair in itertools.groupby(sides, key=attrgetter("match_id")):
        match_sides = list(pair)
        match = match_sides[0].match
        names = tuple(side.name for side in match_sides)
        outcome = match.score([deal.entry for deal in deals.of(match)], names)
        yield _Scored(match, match_sides, outcome, changes.of(match))


# --- CSV ---------------------------------------------------------------------------------


class _Echo:
    """A file that hands back what is written to it: csv.writer then returns each row."""

    def write(self, text: str) -> str:
        return text


def _cell(value: object) -> object:
    """Text a spreadsheet would run as a formula, wherever it may begin a cell, gets a quote
    just before it (OWASP's advice against CSV injection), and so shows as text:

    >>> _cell("=2+2"), _cell("Bo;=2+2"), _cell("Cy, =3+3"), _cell("2026-11-29")
    ("'=2+2", "Bo;'=2+2", "Cy, '=3+3", '2026-11-29')
    """
    if isinstance(value, str):
        return _FORMULA_AT_A_CELLS_START.sub(lambda start: start[0] + "'", value)
    return value


def _csv_rows(matches: QuerySet[Match], *, first: int = 1) -> Iterator[str]:
    """The header, then a row per deal; matches numbered from `first`, oldest first."""
    # In the language active now (a streamed response is read after the view returns), with
    # its separator: where a decimal point is a comma, spreadsheets split rows at semicolons.
    delimiter = ";" if formats.get_format("DECIMAL_SEPARATOR") == "," else ","
    games = set(matches.order_by().values_list("game", flat=True).distinct())
    three, perdere = bool(games - {rules.Game.TRESSETTE}), rules.Game.A_PERDERE in games
    added = (*(TERZIGLIO_HEADER if three else ()), *(A_PERDERE_HEADER if perdere else ()))
    header = [str(title) for title in (*CSV_HEADER, *added)]
    labels = {
        name: {str(value): str(label) for value, label in choices}
        for name, choices in (
            ("game", GAMES),
            ("bid", BIDS),
            ("kind", DEAL_KINDS),
            ("status", STATUSES),
            ("end", END_REASONS),
            ("tie", TIE_RULES),
            ("yes", [(True, yesno(True)), (False, yesno(False))]),
        )
    }

    def rows() -> Iterator[str]:
        # Every text quoted: one holding the other separator ("Bo;=2+2") stays one cell in a
        # spreadsheet that splits at either.
        writer = csv.writer(_Echo(), delimiter=delimiter, quoting=csv.QUOTE_STRINGS)
        yield writer.writerow([_cell(title) for title in header])
        for number, scored in enumerate(_scored_matches(matches), start=first):
            game = scored.match.game
            rows = {rules.Game.TERZIGLIO: _solo_rows, rules.Game.A_PERDERE: _a_perdere_rows}
            for row in rows.get(game, _match_rows)(number, scored, labels):
                if three and game == rules.Game.TRESSETTE:
                    row += [labels["game"][game], *[""] * (len(TERZIGLIO_HEADER) - 1)]
                if perdere and game != rules.Game.A_PERDERE:
                    row += [""] * len(A_PERDERE_HEADER)
                yield writer.writerow([_cell(value) for value in row])

    return rows()


def _match_rows(number: int, scored: _Scored, labels: dict[str, dict]) -> Iterator[list]:
    match, sides, names = scored.match, scored.sides, scored.seat_names
    # As spreadsheets read a date and time in any language (an offset would make it text).
    date = timezone.localtime(match.started_at).strftime("%Y-%m-%d %H:%M")
    # One column a fact: a side's name only where the table gave it one, then its players.
    seated = [
        ["" if side.named_after_players else side.name]
        + [player.name for player in side.players]
        + [""] * (2 - len(side.players))  # tressette in due: no second player
        for side in sides
    ]
    ending = [labels["status"][match.status]]
    won = match.finished and match.winner is not None
    ending += [sides[match.winner].name, labels["end"][match.end_reason]] if won else ["", ""]
    ending += [labels["tie"][match.tie_rule], labels["yes"][str(match.claims_allowed)]]
    ending.append(labels["yes"][str(match.declarations_allowed)])
    ending.append(labels["yes"][str(match.stakes)])
    # What its win counts, under the old stakes if the match played them (rules.games_won).
    ending.append(rules.games_won(rules.EndReason(match.end_reason), stakes=match.stakes)
                  if won else "")  # fmt: skip
    for deal in scored.outcome.deals:
        entry = deal.entry
        named = sides[entry.side].name if entry.side is not None else ""
        alone = names[entry.seat] if entry.seat is not None else ""  # cappottone, stramazzone
        row = [number, date, match.line, deal.number, names[deal.dealer]]
        row += [labels["kind"][entry.kind], named]
        for i, side in enumerate(seated):
            row += [*side, entry.card_points[i], entry.declared_points[i]]
            row += [deal.points[i], deal.totals[i]]
        yield [*row, *ending, alone]
    if not scored.outcome.deals:  # a match with no deal yet still has its row
        row = [number, date, match.line, "", "", "", ""]
        for side in seated:
            row += [*side, "", "", "", 0]
        yield [*row, *ending, ""]


def _solo_rows(number: int, scored: _Scored, labels: dict[str, dict]) -> Iterator[list]:
    """A match of Terziglio, in the same columns: each player a side of one (card points the
    soloist's alone), the third in the columns Terziglio adds."""
    match, names = scored.match, scored.seat_names
    date = timezone.localtime(match.started_at).strftime("%Y-%m-%d %H:%M")
    ending, game = _alone_ending(match, names, labels), labels["game"][match.game]
    for deal in scored.outcome.deals:
        entry = deal.entry
        seats = [
            (entry.card_points if seat == entry.soloist else "", deal.points[seat],
             deal.totals[seat])
            for seat in range(len(names))
        ]  # fmt: skip
        row = [number, date, match.line, deal.number, names[deal.dealer], "", ""]
        for seat in (0, 1):
            cards, points, total = seats[seat]
            row += ["", names[seat], "", cards, "", points, total]
        soloist = names[entry.soloist] if entry.soloist is not None else ""
        bid = labels["bid"][A_MONTE if entry.a_monte else str(entry.bid)]
        yield [*row, *ending, game, soloist, bid, names[2], *seats[2]]
    if not scored.outcome.deals:  # a match with no deal yet still has its row
        row = [number, date, match.line, "", "", "", ""]
        for seat in (0, 1):
            row += ["", names[seat], "", "", "", "", 0]
        yield [*row, *ending, game, "", "", names[2], "", "", 0]


def _alone_ending(match: Match, names: list[str], labels: dict[str, dict]) -> list:
    """The columns after the sides' of a match each for themselves: its status, winner and
    how won; no tie rule, claims, declarations nor stakes."""
    ending = [labels["status"][match.status]]
    won = match.finished and match.winner is not None
    ending += [names[match.winner], labels["end"][match.end_reason]] if won else ["", ""]
    return [*ending, "", labels["yes"][str(False)], labels["yes"][str(False)], "", "", ""]


def _a_perdere_rows(number: int, scored: _Scored, labels: dict[str, dict]) -> Iterator[list]:
    """A match a perdere, in the same columns: each player a side of one, the first two in the
    sides' columns, the third in Terziglio's, the fourth and fifth in those a perdere adds."""
    match, names = scored.match, scored.seat_names
    date = timezone.localtime(match.started_at).strftime("%Y-%m-%d %H:%M")
    ending, game = _alone_ending(match, names, labels), labels["game"][match.game]
    deals = scored.outcome.deals or [None]  # a match with no deal yet still has its row

    def seat(deal: "rules.APerdereDeal | None", at: int) -> list:
        if at >= len(names):
            return ["", "", "", ""]
        if deal is None:
            return [names[at], "", "", 0]
        return [names[at], deal.entry.card_points[at], deal.points[at], deal.totals[at]]

    for deal in deals:
        row = [number, date, match.line, *([deal.number, names[deal.dealer]] if deal else ["", ""])]
        row += ["", ""]
        for at in (0, 1):
            name, cards, points, total = seat(deal, at)
            row += ["", name, "", cards, "", points, total]
        swept = deal.entry.sweeper if deal else None
        took = names[swept] if swept is not None else ""
        yield [*row, *ending, game, "", "", *seat(deal, 2), took, *seat(deal, 3), *seat(deal, 4)]


def table_csv_rows(table: Table) -> Iterator[str]:
    """The whole table as CSV: a header, then one row per deal, oldest match first."""
    return _csv_rows(Match.objects.filter(table=table))


def match_csv_rows(match: Match) -> Iterator[str]:
    """One match as CSV, numbered as in the table's CSV."""
    return _csv_rows(Match.objects.filter(pk=match.pk), first=match_number(match))


def match_number(match: Match) -> int:
    """The match's number at its table: 1 for the first begun (as the table's CSV counts)."""
    earlier = Q(started_at__lt=match.started_at) | Q(started_at=match.started_at, pk__lt=match.pk)
    return Match.objects.filter(earlier, table_id=match.table_id).count() + 1


# --- JSON --------------------------------------------------------------------------------


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when is not None else None


def _match_document(scored: _Scored, numbers: dict[int, int]) -> dict:
    """One match; `numbers` gives each match's number in the file (1, 2, 3…) by its id."""
    match, sides = scored.match, scored.sides
    # A match of Terziglio or a perdere says so, with its terms; one of Tressette as it
    # always did.
    game = {"game": match.game, "terms": match.settings.as_dict()}
    if match.game == rules.Game.TRESSETTE:
        game = {}
    return {
        **game,
        "started_at": _iso(match.started_at),
        "finished_at": _iso(match.finished_at),
        "line": match.line,
        "tie_rule": match.tie_rule,
        "claims_allowed": match.claims_allowed,
        "declarations_allowed": match.declarations_allowed,
        "stakes": match.stakes,
        "sides": [
            {"name": side.name, "players": [player.name for player in side.players]}
            for side in sides
        ],
        "first_dealer": scored.seat_names[match.first_dealer],
        "deals": [deal_document(d.number, d.entry, d.points) for d in scored.outcome.deals],
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
    """The whole table as a JSON document, one match per chunk.

    Each match's number in the file, which a rematch is named by, is counted first: the
    matches written are those counted (a match begun meanwhile has a later id).
    """
    head = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now().isoformat(),
        "table": {
            "name": table.name,
            "evening": table.evening,
            "stakes": table.stakes,
            "evening_started_at": _iso(table.evening_started_at),
        },
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
    """A safe download name: `tressette-bar-sport-2026-11-29.csv`: the table's name, then
    the match and the day it began, or else today; the words in the language of the request
    (`treseta-…-partija-12-…` in Croatian)."""
    game = slugify(pgettext("a download's name", "tressette"))
    parts = [
        game,
        slugify(table.name)[:40].strip("-") or slugify(pgettext("a download's name", "table")),
    ]
    if match is None:
        parts.append(timezone.localdate().isoformat())
    else:
        day = timezone.localdate(match.started_at).isoformat()
        match_word = slugify(pgettext("a download's name", "match"))
        parts += [f"{match_word}-{match_number(match)}", day]
    return f"{'-'.join(parts)}.{ext}"
