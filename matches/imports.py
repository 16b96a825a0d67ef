"""Reading a JSON export back (docs/export-format.md): every part checked, every deal by the
rules and every seating and result by the rules' own checks, before anything is written.

`read(raw)` gives a TableImport, or raises ImportInvalid listing what is wrong in words
naming the match and deal at fault; services.import_table writes it.
"""

import json
import math
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_lazy

from matches import rules
from matches.exports import FORMAT, VERSION
from matches.forms import clean_name, rule_message
from matches.models import (
    A_PERDERE_ENDS,
    DEAL_KINDS,
    END_REASONS,
    EVENINGS,
    FRACTIONS,
    GAMES,
    MATCH_DEALS_MAX,
    NAME_MAX,
    PAYMENTS,
    SIDE_NAME_MAX,
    STATUSES,
    TABLE_NAME_MAX,
    TABLE_PLAYERS_MAX,
    TERZIGLIO_ENDS,
    TIE_RULES,
    Action,
    DocumentError,
    Match,
    document_game,
    entry_from_document,
    settings_fields,
)
from matches.names import hides_something, name_key, side_name

# The first problems found are said, and the file read no further: a file of a million
# broken entries costs what one of ten does.
MAX_MESSAGES = 10
# A table that plays ten short matches a week for forty years: any more is not a real export
# (and 20 MB holds at most some 20,000 matches of a deal or two).
MAX_MATCHES = 20_000
MAX_WHOLE = 2_147_483_647  # the largest value an integer column holds
# A match's change log: a long evening makes a few hundred changes; a file claiming more is
# not a real export, and its history would be a chore to read.
MAX_LOG = 10_000
FIRST_YEAR, LAST_YEAR = 1900, 2999  # for dates: any page can show them in local time
# An export holds an object or a list for every 35 to 40 bytes or so. Far denser, a file is
# built to swell in memory ({},{},... takes some 20 times its size once read): refused unread.
_MIN_BYTES_PER_CONTAINER = 12
# A JSON string: a name may be "[[Capo]]", which is no container. An unclosed one runs to the
# end of the file, so no byte is read twice.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*+"?')


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
    settings: "rules.MatchSettings | rules.TerziglioTerms | rules.APerdereTerms"  # the game's
    side_names: tuple[str, ...]
    players: tuple[tuple[str, ...], ...]  # each side's players, as named in the players list
    first_dealer: int  # a seat
    outcome: rules.Outcome
    status: rules.Status
    winner: int | None
    end_reason: rules.EndReason | None
    log: tuple[LogEntry, ...]
    rematch: int | None = None  # the number in the file of the match begun as its rematch
    stakes: bool = False  # counted as games (rules.games_won)


@dataclass(frozen=True)
class TableImport:
    name: str
    players: tuple[str, ...]
    matches: tuple[MatchImport, ...]
    # How the table counts its evening; files written before the evening have none of it.
    evening: rules.Evening = rules.Evening.TONIGHT
    stakes: bool = False
    evening_started_at: datetime | None = None


def read(raw: bytes) -> TableImport:
    """The table an uploaded export holds, checked whole."""
    return validate_document(parse_document(raw))


def parse_document(raw: bytes) -> dict:
    """The JSON object in an uploaded file; `validate_document` checks what it says."""
    if _swells(raw):
        raise ImportInvalid([_not_an_export()])
    try:
        document = _loads(raw.decode("utf-8-sig"))
    except ImportInvalid:  # more matches than a table imports: said so, the rest unread
        raise
    except UnicodeDecodeError:
        raise ImportInvalid(
            [gettext("This file is not text (a picture, say): choose the .json file of an export.")]
        ) from None
    except json.JSONDecodeError as error:
        if _looks_like_csv(error.doc):
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
            [
                gettext(
                    "This file cannot be read as an export: it is damaged, or not one (at line "
                    "%(line)s, column %(column)s). Choose the .json file of an export, unchanged."
                )
                % where
            ]
        ) from None
    except (ValueError, RecursionError):
        raise ImportInvalid(
            [
                gettext(
                    "This file cannot be read as an export: it is damaged, or not one. Choose "
                    "the .json file of an export, unchanged."
                )
            ]
        ) from None
    if not isinstance(document, dict):
        raise ImportInvalid([_not_an_export()])
    return document


# The CSV export's header: quoted titles, at commas or semicolons (in either language).
_CSV_HEADER = re.compile(r'"[^"\n]*"([,;])"[^"\n]*"\1"')


def _swells(raw: bytes) -> bool:
    """Far more containers than an export holds: counted in strings too at first (a real
    file passes at once), then, only if that is too many, outside strings alone (slower)."""

    def too_many(text: bytes) -> bool:
        containers = text.count(b"{") + text.count(b"[")
        return containers > 1000 and containers * _MIN_BYTES_PER_CONTAINER > len(raw)

    return too_many(raw) and too_many(_STRING.sub(b"", raw))


_SPACE = re.compile(r"[ \t\n\r]*")


def _loads(text: str) -> object:
    """json.loads, except that an object's "matches" (most of an export) are read one at a
    time, the process's other requests let in between (`_let_others_in`): reading 20 MB
    never holds a worker for long. Errors are json's own, at their place in the file."""
    decoder = json.JSONDecoder(parse_constant=_refuse_constant)
    at = _SPACE.match(text).end()
    if not text.startswith("{", at):
        return decoder.decode(text)
    document: dict = {}
    at = _SPACE.match(text, at + 1).end()
    while not (text.startswith("}", at) and not document):
        if not text.startswith('"', at):
            expected = "Expecting property name enclosed in double quotes"
            raise json.JSONDecodeError(expected, text, at)
        key, at = decoder.raw_decode(text, at)
        at = _SPACE.match(text, at).end()
        if not text.startswith(":", at):
            raise json.JSONDecodeError("Expecting ':' delimiter", text, at)
        at = _SPACE.match(text, at + 1).end()
        if key == "matches" and text.startswith("[", at):
            document[key], at = _each_of(decoder, text, at, most=MAX_MATCHES)
        else:
            document[key], at = decoder.raw_decode(text, at)
        at = _SPACE.match(text, at).end()
        if text.startswith("}", at):
            break
        at = _after_comma(text, at, "}", "object")
    end = _SPACE.match(text, at + 1).end()
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return document


def _each_of(decoder: json.JSONDecoder, text: str, at: int, most: int) -> tuple[list, int]:
    """The array of matches starting at `at`, read a match at a time; its end. More than
    `most` are refused unread."""
    items: list = []
    at = _SPACE.match(text, at + 1).end()
    if text.startswith("]", at):
        return items, at + 1
    while True:
        item, at = decoder.raw_decode(text, at)
        items.append(item)
        if len(items) > most:
            raise _too_many_matches()
        _let_others_in()
        at = _SPACE.match(text, at).end()
        if text.startswith("]", at):
            return items, at + 1
        at = _after_comma(text, at, "]", "array")


def _after_comma(text: str, at: int, end: str, what: str) -> int:
    """Where the next member starts, after the comma at `at`: as json says it."""
    if not text.startswith(",", at):
        raise json.JSONDecodeError("Expecting ',' delimiter", text, at)
    after = _SPACE.match(text, at + 1).end()
    if text.startswith(end, after):
        raise json.JSONDecodeError(f"Illegal trailing comma before end of {what}", text, at)
    return after


_last_let_in = 0.0


def _let_others_in() -> None:
    """A long import gives way, every millisecond or so, to the other requests of its
    process (a save on another table, say), which wait for Python's lock while it runs."""
    global _last_let_in
    now = time.perf_counter()
    if now - _last_let_in > 0.001:
        time.sleep(0)
        _last_let_in = time.perf_counter()


def _too_many_matches() -> ImportInvalid:
    return _fail("The file holds more than %(max)s matches: a table imports at most that many.",
                 max=MAX_MATCHES)  # fmt: skip


def _looks_like_csv(text: str) -> bool:
    """A first line of several cells, as the CSV export's header is (in either language)."""
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    return _CSV_HEADER.match(first) is not None or (
        not first.startswith(("{", "[")) and max(first.count(","), first.count(";")) >= 2
    )


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")


def _not_an_export() -> str:
    return gettext("The file is not a Tressette scoresheet export.")


def validate_document(document: object) -> TableImport:
    """Check a parsed export against the format and the rules. Each match is checked on its
    own, and its first broken part named ("Match 2, deal 5: ...")."""
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
    where, at_table = gettext("The file"), gettext("The table")
    name = _name(_get(_get(document, "table", where, dict), "name", at_table, str), at_table)
    players = _players(_get(document, "players", where, list))
    matches = _get(document, "matches", where, list)
    if len(matches) > MAX_MATCHES:
        raise _too_many_matches()
    messages: list[str] = []
    checked: list[MatchImport] = []
    for index, match in enumerate(matches, start=1):
        try:
            checked.append(_match(match, gettext("Match %(match)s") % {"match": index}, players))
        except ImportInvalid as invalid:
            messages += invalid.messages
        _let_others_in()
        if len(messages) > MAX_MESSAGES:
            more = gettext("… and more: the file was read no further. Correct these first.")
            raise ImportInvalid([*messages[:MAX_MESSAGES], more])
    if not messages:  # then `checked` holds every match, numbered as in the file
        messages = _rematch_errors(checked)[: MAX_MESSAGES + 1]
    if messages:
        raise ImportInvalid(messages)
    return TableImport(name, tuple(players.values()), tuple(checked), *_evening(document))


def _evening(document: dict) -> tuple[rules.Evening, bool, datetime | None]:
    """How the table counts its evening, and when it began; absent from files written
    before the evening: tonight's tally, no stakes, no evening begun."""
    where = gettext("The table")
    table = document["table"]
    evening = _choice(table, "evening", where, EVENINGS) if "evening" in table else "tonight"
    stakes = "stakes" in table and _get(table, "stakes", where, bool)
    began = "evening_started_at" in table and _when(table, "evening_started_at", where, null=True)
    return rules.Evening(evening), stakes, began or None


# --- A match -----------------------------------------------------------------------------


def _match(raw: object, where: str, players: dict[str, str]) -> MatchImport:
    if not isinstance(raw, dict):
        raise _fail("%(where)s: a match must be an object.", where=where)
    started_at = _when(raw, "started_at", where)
    finished_at = _when(raw, "finished_at", where, null=True)
    if finished_at is not None and finished_at < started_at:
        raise _fail("%(where)s: “finished_at” is before “started_at”.", where=where)
    # Files written before Terziglio, and every match of Tressette, name no game.
    game = rules.Game(_choice(raw, "game", where, GAMES) if "game" in raw else "tressette")
    terms = {rules.Game.TERZIGLIO: _terms, rules.Game.A_PERDERE: _a_perdere_terms}
    settings = terms.get(game, _settings)(raw, where)
    side_names, seated = _sides(_get(raw, "sides", where, list), where, players, game)
    first_dealer = _first_dealer(raw, where, seated, game)
    outcome = _scored_deals(raw, where, settings, side_names, first_dealer, len(seated[0]))
    totals = _numbers(raw, "totals", where, len(side_names))
    if totals != outcome.totals:
        raise _fail(
            "%(where)s: the file gives totals %(file)s, but the deals add up to %(scored)s.",
            where=where,
            file=list(totals),
            scored=list(outcome.totals),
        )
    status = rules.Status(_choice(raw, "status", where, STATUSES))
    winner = _get(raw, "winner", where, int, null=True)
    reason = _choice(raw, "end_reason", where, END_REASONS, null=True)
    reason = None if reason is None else rules.EndReason(reason)
    refused = rules.result_errors(
        outcome, status=status, winner=winner, reason=reason, finished=finished_at is not None
    )
    if refused:
        raise ImportInvalid([_result_message(where, refused[0], side_names)])
    return MatchImport(
        started_at=started_at,
        finished_at=finished_at,
        settings=settings,
        side_names=side_names,
        players=tuple(tuple(side) for side in seated),
        first_dealer=first_dealer,
        outcome=outcome,
        status=status,
        winner=winner,
        end_reason=reason,
        log=_log(raw, where),
        # Files written before rematches were linked have no such field.
        rematch=_get(raw, "rematch", where, int, null=True) if "rematch" in raw else None,
        # Nor had those written before the stakes: no match counted them.
        stakes="stakes" in raw and _get(raw, "stakes", where, bool),
    )


def _settings(raw: dict, where: str) -> rules.MatchSettings:
    line = _get(raw, "line", where, int)
    tie_rule = _choice(raw, "tie_rule", where, TIE_RULES)
    claims_allowed = _get(raw, "claims_allowed", where, bool)
    # Files written before a match could be played without declarations have no such field.
    declared = "declarations_allowed" not in raw or _get(raw, "declarations_allowed", where, bool)
    try:
        return rules.MatchSettings(line, rules.TieRule(tie_rule), claims_allowed, declared)
    except rules.RuleError as error:
        raise ImportInvalid([f"{where}: {rule_message(error)}"]) from None


def _terms(raw: dict, where: str) -> rules.TerziglioTerms:
    """A match of Terziglio's terms: how a deal pays, when the match ends."""
    terms = _get(raw, "terms", where, dict)
    payment = _choice(terms, "payment", where, PAYMENTS)
    end = _choice(terms, "end", where, TERZIGLIO_ENDS)
    deals = _get(terms, "deals", where, int) if "deals" in terms else rules.DEFAULT_DEALS
    try:
        return rules.TerziglioTerms(payment, end, _get(terms, "line", where, int), deals)
    except rules.RuleError as error:
        raise ImportInvalid([f"{where}: {rule_message(error)}"]) from None


def _a_perdere_terms(raw: dict, where: str) -> rules.APerdereTerms:
    """A match a perdere's terms: the line, how it ends, the fractions, the reversed sweep."""
    terms = _get(raw, "terms", where, dict)
    end = _choice(terms, "end", where, A_PERDERE_ENDS)
    fractions = _choice(terms, "fractions", where, FRACTIONS)
    swept = _get(terms, "reversed_sweep", where, bool)
    try:
        return rules.APerdereTerms(_get(terms, "line", where, int), end, fractions, swept)
    except rules.RuleError as error:
        raise ImportInvalid([f"{where}: {rule_message(error)}"]) from None


def _sides(
    raw: list, where: str, players: dict[str, str], game: rules.Game = rules.Game.TRESSETTE
) -> tuple[tuple[str, ...], list[list[str]]]:
    """The sides' names and their players (by the names in the players list), seated as the
    rules' seating check allows: two sides, or at Terziglio three of one player (a perdere
    three to five: its seating check says so)."""
    count = {rules.Game.TERZIGLIO: rules.TERZIGLIO_PLAYERS, rules.Game.A_PERDERE: len(raw)}
    count = count.get(game, 2)
    if len(raw) != count or not all(isinstance(side, dict) for side in raw):
        raise _fail(
            "%(where)s: “sides” must be a list of %(count)s sides.", where=where, count=count
        )
    names: list[str] = []
    seated: list[list[str]] = []
    for position, side in enumerate(raw):
        at = gettext("%(where)s, side %(side)s") % {"where": where, "side": position + 1}
        typed = _name(_get(side, "name", at, str), at, SIDE_NAME_MAX)
        side_players = _get(side, "players", at, list)
        if len(side_players) not in (1, 2) or not all(isinstance(p, str) for p in side_players):
            raise _fail("%(where)s: a side has one or two players, by name.", where=at)
        seated.append([_listed(raw_name, at, players) for raw_name in side_players])
        names.append(side_name(typed, seated[-1]))  # spelled as the players, if theirs
    if errors := rules.seating_errors(seated, names, 0, game):
        raise ImportInvalid([f"{where}: {rule_message(errors[0])}"])
    return tuple(names), seated


def _listed(raw_name: str, where: str, players: dict[str, str]) -> str:
    name = _name(raw_name, where, NAME_MAX)
    if name_key(name) not in players:
        raise _fail("%(where)s: %(name)s is not in the players list.", where=where, name=name)
    return players[name_key(name)]


def _first_dealer(
    raw: dict, where: str, seated: list[list[str]], game: rules.Game = rules.Game.TRESSETTE
) -> int:
    order = (
        rules.seat_order(seated) if game is rules.Game.TRESSETTE else [side[0] for side in seated]
    )
    seats = [name_key(name) for name in order]
    dealer = _get(raw, "first_dealer", where, str)
    if name_key(dealer) not in seats:
        raise _fail(
            "%(where)s: the first dealer, %(name)s, does not sit at this match.",
            where=where,
            name=_shown(dealer),
        )
    return seats.index(name_key(dealer))


def _scored_deals(
    raw: dict,
    where: str,
    settings: "rules.MatchSettings | rules.TerziglioTerms",
    side_names: tuple[str, ...],
    first_dealer: int,
    players_per_side: int,
) -> rules.Outcome:
    """The deals as the rules of the match's game score them, each checked as if just
    entered, and the file's points held to the rules' score."""
    deals = _get(raw, "deals", where, list)
    if len(deals) > MATCH_DEALS_MAX:
        raise _fail(
            "%(where)s: it holds %(count)s deals; a match holds at most %(max)s.",
            where=where,
            count=len(deals),
            max=MATCH_DEALS_MAX,
        )
    entries, stated = [], []
    # The match as it will be kept: its game's rules score the deals (Match.score).
    match = Match(
        **settings_fields(settings), first_dealer=first_dealer, players_per_side=players_per_side
    )
    for number, deal in enumerate(deals, start=1):
        at = _deal_at(where, number)
        entries.append(_entry(deal, at, number, rules.Game(match.game)))
        stated.append(_numbers(deal, "points", at, len(side_names)))

    def scored(entries: list[rules.DealEntry]) -> rules.Outcome:
        outcome = match.score(entries, side_names, checked_from=1)
        for deal, points in zip(outcome.deals, stated, strict=False):
            if deal.points != points:
                raise _fail(
                    "%(where)s: the file gives points %(file)s, but the rules score %(scored)s.",
                    where=_deal_at(where, deal.number),
                    file=list(points),
                    scored=list(deal.points),
                )
        return outcome

    try:
        return scored(entries)
    except rules.DealInvalid as invalid:
        # A deal changed in the file before this one may be the cause (its points no longer
        # what the file says): that one is named first.
        number = invalid.errors[0].deal_number
        scored(entries[: number - 1])
        at = _deal_at(where, number)
        raise ImportInvalid([f"{at}: {rule_message(e)}" for e in invalid.errors]) from None


def _deal_at(where: str, number: int) -> str:
    return gettext("%(where)s, deal %(deal)s") % {"where": where, "deal": number}


def _entry(
    raw: object, where: str, number: int, game: rules.Game = rules.Game.TRESSETTE
) -> rules.DealEntry:
    if not isinstance(raw, dict):
        raise _fail("%(where)s: a deal must be an object.", where=where)
    if document_game(raw) is not game:
        raise _fail("%(where)s: this deal is not of this match's game.", where=where)
    if _get(raw, "number", where, int) != number:
        raise _fail(
            "%(where)s: it is numbered %(found)s; deals are numbered 1, 2, 3… in order.",
            where=where,
            found=raw["number"],
        )
    try:
        return entry_from_document(raw, game)
    except DocumentError as wrong:
        if game is rules.Game.A_PERDERE:
            raise _fail(
                "%(where)s: “%(field)s” is missing or wrong: a deal of Tressette a perdere "
                "names each player's card points and who took every point (null if no one).",
                where=where,
                field=wrong.field,
            ) from None
        if game is rules.Game.TERZIGLIO:
            raise _fail(
                "%(where)s: “%(field)s” is missing or wrong: a deal of Terziglio names its "
                "soloist, bid and card points, or is a_monte.",
                where=where,
                field=wrong.field,
            ) from None
        if wrong.field == "kind":
            _choice(raw, "kind", where, DEAL_KINDS)
        elif wrong.field == "side":
            _get(raw, "side", where, int, null=True)
        elif wrong.field == "seat":  # absent, or null: a deal that names no player
            _get(raw, "seat", where, int, null=True)
        _pair(raw, wrong.field, where)
        raise  # not reached: each check above raises for the part at fault


def _result_message(where: str, error: rules.RuleError, side_names: tuple[str, ...]) -> str:
    """A result at odds with the deals, naming sides (Terziglio's players) and end reasons
    in words."""
    params = dict(error.params)
    if error.part == "winner":
        given = params["given"]
        named = type(given) is int and 0 <= given < len(side_names)
        params["given"] = side_names[given] if named else _shown(given)
        params["winner"] = side_names[params["winner"]]
    elif error.part == "reason":
        params.update(given=_reason(params["given"]), reason=_reason(params["reason"]))
    return f"{where}: {gettext(error.template) % params}"


def _reason(reason: str | None) -> str:
    """An end reason in the reader's words ("cappotto", "reached the line")."""
    return f"“{dict(END_REASONS)[reason]}”" if reason else _shown(reason)


def _rematch_errors(matches: list[MatchImport]) -> list[str]:
    """A rematch is begun from an ended or stopped match, as the rematch of that one only,
    and seats its players as they sat. It may come anywhere in the file: a match dated by
    hand may start after its own rematch."""
    messages = []
    begun_from: dict[int, int] = {}
    for number, match in enumerate(matches, start=1):
        if match.rematch is None:
            continue
        where = gettext("Match %(match)s") % {"match": number}
        params = {"where": where, "rematch": match.rematch}
        if match.status is rules.Status.IN_PROGRESS:
            refused = _fail("%(where)s: a match still being played has no rematch yet.", **params)
        elif not 1 <= match.rematch <= len(matches) or match.rematch == number:
            refused = _fail(
                "%(where)s: “rematch” must be the number of another match in the file, "
                "not %(rematch)s.",
                **params,
            )
        elif matches[match.rematch - 1].players != match.players:
            refused = _fail(
                "%(where)s: match %(rematch)s cannot be its rematch: a rematch seats the same "
                "players in the same seats.",
                **params,
            )
        elif match.rematch in begun_from:
            refused = _fail(
                "%(where)s: match %(rematch)s is already the rematch of match %(other)s.",
                other=begun_from[match.rematch],
                **params,
            )
        else:
            begun_from[match.rematch] = number
            continue
        messages += refused.messages
    return messages or _rematch_loops(matches)


def _rematch_loops(matches: list[MatchImport]) -> list[str]:
    """Following rematches never comes back round: one walk from each match."""
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


# --- The log -----------------------------------------------------------------------------


def _log(raw: dict, where: str) -> tuple[LogEntry, ...]:
    entries = _get(raw, "log", where, list)
    if len(entries) > MAX_LOG:
        raise _fail(
            "%(where)s: the log holds %(count)s changes; a match keeps at most %(max)s.",
            where=where,
            count=len(entries),
            max=MAX_LOG,
        )
    at = gettext("%(where)s, log entry %(entry)s")
    return tuple(
        _log_entry(entry, at % {"where": where, "entry": number})
        for number, entry in enumerate(entries, start=1)
    )


def _log_entry(raw: object, where: str) -> LogEntry:
    if not isinstance(raw, dict):
        raise _fail("%(where)s: a log entry must be an object.", where=where)
    detail = {"deal": None, "old": None, "new": None, **_get(raw, "detail", where, dict)}
    return LogEntry(
        at=_when(raw, "at", where),
        action=_choice(raw, "action", where, Action.choices),
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


# --- The parts of a file -----------------------------------------------------------------

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


def _choice(obj: dict, field: str, where: str, choices: list, *, null: bool = False):
    value = _get(obj, field, where, str, null=null)
    values = [str(choice) for choice, _label in choices]
    if value is None or value in values:
        return value
    raise _fail(
        "%(where)s: “%(field)s” must be one of %(choices)s, not %(found)s.",
        where=where,
        field=field,
        choices=", ".join(values),
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


def _numbers(obj: dict, field: str, where: str, count: int) -> tuple[int, ...]:
    """One number per side: two sides' whole numbers ([8, 3]); three players' balances or
    what a deal moved them by, which may be negative ([6, -3, -3])."""
    if count == 2:
        return _pair(obj, field, where)
    value = _get(obj, field, where, list)
    if len(value) != count or not all(type(number) is int for number in value):
        raise _fail(
            "%(where)s: “%(field)s” must be %(count)s whole numbers, one per player, like "
            "[6, -3, -3].",
            where=where,
            field=field,
            count=count,
        )
    return tuple(value)


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


def _name(value: str, where: str, max_length: int = TABLE_NAME_MAX, *, blank: bool = False) -> str:
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
