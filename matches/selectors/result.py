"""A match's result for the table's chat: its sides (Terziglio's three players, a perdere's
three to five), every deal, the totals, who won and how, as a few lines of text and as a
picture the server lays out (drawn as SVG by templates/matches/result.svg; the phone makes it
a PNG to share, static/js/share.js).

Read in three queries and scored by `matches.rules`. The picture is laid out here in whole
pixels; a text's width is estimated from its characters, so that a long name wraps or
shrinks instead of running off the picture.
"""

import math
import unicodedata
from dataclasses import dataclass
from datetime import datetime

from django.utils import dateformat, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from matches import rules
from matches.exports import export_filename
from matches.models import A_MONTE, BIDS, DEAL_KINDS, GAMES, STATUSES
from matches.selectors.sheet import Seated, claim_said, ended_reason, label, match_and_sides


@dataclass(frozen=True)
class ResultSide:
    name: str
    players: tuple[str, ...]
    total: int
    won: bool
    out: bool = False  # a perdere: reached the line

    @property
    def named_apart(self) -> bool:
        """A name of its own: the picture says who played in it too."""
        return Seated(self.name, self.players).named_apart


@dataclass(frozen=True)
class ResultDeal:
    number: int
    points: tuple[int, ...]  # at Terziglio, what it moved each balance by
    totals: tuple[int, ...]  # at Terziglio, the balances after it
    tags: tuple[str, ...]  # the kind of deal, on the side that swept or claimed
    bid: str = ""  # at Terziglio, the bid and the card points ("solo 7–4"), or "a monte"
    soloist: int | None = None  # at Terziglio, the seat of who played alone
    were_out: tuple[bool, ...] = ()  # a perdere: the players out before it, who played no part


@dataclass(frozen=True)
class Result:
    """A match as it is shared: the final sheet. Its verdict is in the language active when it
    was read, its other words in the one active when they are drawn (the same request's)."""

    table_name: str
    line: int
    started_at: datetime
    sides: tuple[ResultSide, ...]  # two; at Terziglio and a perdere, its players
    deals: tuple[ResultDeal, ...]
    verdict: str  # who won and how; or that it was stopped undecided, or is being played
    file_name: str  # the picture's, as a download is named
    terziglio: bool = False
    a_perdere: bool = False
    to_a_line: bool = True  # Terziglio's may end after its deals, or when the table stops

    @property
    def score(self) -> str:
        """ "Alice & Carla 21 – 14 Beppe & Dino"; at Terziglio "Anna 6 · Bruno -3 · Carla -3",
        a perdere alike"""
        if self.terziglio or self.a_perdere:
            return " · ".join(f"{side.name} {side.total}" for side in self.sides)
        first, second = self.sides
        return f"{first.name} {first.total} – {second.total} {second.name}"

    @property
    def day(self) -> str:
        return dateformat.format(timezone.localtime(self.started_at), _("N j, Y"))

    @property
    def played(self) -> str:
        """ "Line 21 · 7 deals"; a perdere, its name first: the fewest points win."""
        count = len(self.deals)
        deals = ngettext("%(count)s deal", "%(count)s deals", count) % {"count": count}
        if not self.to_a_line:
            return deals
        line = _("Line %(line)s") % {"line": self.line}
        if self.a_perdere:
            return f"{dict(GAMES)[rules.Game.A_PERDERE]} · {line} · {deals}"
        return f"{line} · {deals}"

    @property
    def about(self) -> str:
        """ "Line 21 · 7 deals · Nov 29, 2026" """
        return f"{self.played} · {self.day}"

    @property
    def text(self) -> str:
        """What is shared with the picture, or alone: the score, who won and how, the rest."""
        return "\n".join([self.score, self.verdict, self.about])


def load_result(token: str, match_id: int) -> Result | None:
    """The result of a match seen through its table's view link: three queries (the match
    with its table and sides, its deals, its number at the table for the file's name)."""
    found = match_and_sides(token, match_id)
    if found is None:
        return None
    match, sides = found
    outcome = match.score(
        [deal.entry for deal in match.deals.order_by("number")], tuple(s.name for s in sides)
    )
    seated = [Seated(side.name, tuple(player.name for player in side.players)) for side in sides]
    terziglio, a_perdere = match.terziglio, match.a_perdere
    if terziglio or a_perdere:
        seats = [side.name for side in seated]
    else:
        seats = rules.seat_order([side.players for side in seated])
    out = outcome.standing.out_after if a_perdere else (None,) * len(seated)
    status = rules.Status(match.status)
    won = outcome.winner if status is rules.Status.FINISHED else None
    if a_perdere:
        deals = tuple(_charged_deal(deal, out) for deal in outcome.deals)
    else:
        deals = tuple((_solo_deal if terziglio else _deal)(deal, seats) for deal in outcome.deals)
    return Result(
        table_name=match.table.name,
        line=match.line,
        started_at=match.started_at,
        sides=tuple(
            ResultSide(side.name, side.players, outcome.totals[i], won == i, out[i] is not None)
            for i, side in enumerate(seated)
        ),
        deals=deals,
        verdict=_verdict(status, outcome, seated, seats),
        file_name=export_filename(match.table, "png", match),
        terziglio=terziglio,
        a_perdere=a_perdere,
        to_a_line=not terziglio or match.settings.end is rules.TerziglioEnd.LINE,
    )


def _deal(deal: rules.ScoredDeal, seats: list[str]) -> ResultDeal:
    side, seat, label = deal.entry.side, deal.entry.seat, str(dict(DEAL_KINDS)[deal.entry.kind])
    if seat is not None and seat < len(seats):  # a sweep by one: who swept
        label = f"{label} · {seats[seat]}"
    tags = tuple(label if side == i else "" for i in range(2))
    return ResultDeal(deal.number, deal.points, deal.totals, tags)


def _solo_deal(deal: rules.TerziglioDeal, seats: list[str]) -> ResultDeal:
    entry = deal.entry
    if entry.a_monte:
        bid = label(BIDS, A_MONTE)
    else:
        bid = f"{label(BIDS, str(entry.bid))} {entry.card_points}–{entry.others_card_points}"
    return ResultDeal(deal.number, deal.changes, deal.balances, ("",) * len(seats), bid,
                      entry.soloist)  # fmt: skip


def _charged_deal(deal: rules.APerdereDeal, out_after: tuple[int | None, ...]) -> ResultDeal:
    """A deal a perdere: what it charged each player, their totals after it, "out" on those
    it put out; those out before it played no part in it."""
    out = pgettext("a perdere: reached the line", "out")
    tags = tuple(out if seat in deal.out else "" for seat in range(len(deal.totals)))
    were_out = tuple(gone is not None and gone < deal.number for gone in out_after)
    return ResultDeal(deal.number, deal.points, deal.totals, tags, were_out=were_out)


def _verdict(
    status: rules.Status, outcome: rules.Outcome, sides: list[Seated], seats: list[str]
) -> str:
    if status is rules.Status.ABANDONED and isinstance(outcome, rules.APerdereOutcome):
        return _("Stopped, undecided: the totals stand as they are.")
    if status is rules.Status.ABANDONED and len(sides) > 2:
        return _("Stopped, undecided: the balances stand as they are.")
    if status is rules.Status.ABANDONED:
        first, second = outcome.totals
        return _("Stopped at %(a)s–%(b)s, undecided.") % {"a": first, "b": second}
    if status is rules.Status.IN_PROGRESS:
        return str(dict(STATUSES)[status])
    winner = sides[outcome.winner]
    # Translators: the count is the players the side's name speaks of (1 or 2), for the verb.
    said = ngettext(
        "%(side)s won the match (%(reason)s).",
        "%(side)s won the match (%(reason)s).",
        winner.speaks_of,
    ) % {"side": winner.name, "reason": ended_reason(outcome, seats)}
    claim = claim_said(outcome, sides)
    return f"{said} {claim}" if claim else said


# --- The picture ------------------------------------------------------------------------

WIDTH = 1080  # pixels: a chat's thumbnail of it still shows every number
_PAD = 48
_GAP = 24
_INSET = 28  # inside a side's card
_LEADING = 1.2
_ASCENT = 0.85  # a line's baseline below its top, in sizes
_BAND = 104  # the band on top: the table and the day

PAPER, CARD, STRIPE, RULE = "#f6f4ee", "#ffffff", "#eeebe2", "#d5d2c7"
INK, MUTED, ACCENT, ON_ACCENT, WON = "#1b1d1a", "#545a52", "#1f6f4a", "#ffffff", "#e4f3ea"
# The sheet's own side colours; a third player's (Terziglio's), a fourth's, a fifth's (a perdere).
SIDES = ("#1f5fa8", "#b03a2e", "#6b4a9e", "#8a6a00", "#1d7a74")


@dataclass(frozen=True)
class Box:
    x: int
    y: int
    width: int
    height: int
    fill: str
    stroke: str = ""
    rounded: int = 0


@dataclass(frozen=True)
class Text:
    x: int
    y: int  # the baseline
    size: int
    text: str
    fill: str = INK
    bold: bool = False
    anchor: str = "start"  # start, middle or end
    squeeze: int | None = None  # estimated wider than its room: drawn this wide


@dataclass(frozen=True)
class Picture:
    width: int
    height: int
    boxes: tuple[Box, ...]
    texts: tuple[Text, ...]


_NARROW = frozenset("fijlrtI.,:;'!|()[]` ")
_WIDE = frozenset("mwMW@%&")


def _em(char: str) -> float:
    """A character's width in ems, a little more than common sans-serif fonts draw it."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0.0
    if unicodedata.east_asian_width(char) in ("W", "F"):  # emoji, CJK
        return 1.05
    if char in _NARROW:
        return 0.34
    if char in _WIDE:
        return 0.92
    return 0.72 if char.isupper() else 0.6


def text_width(text: str, size: int, bold: bool = False) -> float:
    """Its width in pixels at `size`, estimated (a bold face is wider).

    >>> text_width("Alice", 40), text_width("MMM", 10, bold=True)
    (104.0, 29.0)
    """
    return round(sum(map(_em, text)) * size * (1.05 if bold else 1.0), 1)


@dataclass(frozen=True)
class _Fitted:
    size: int
    lines: tuple[str, ...]
    room: int
    bold: bool

    @property
    def height(self) -> int:
        return round(len(self.lines) * self.size * _LEADING)

    def drawn(self, x: int, top: int, fill: str = INK, anchor: str = "start") -> list[Text]:
        """Its lines, the first one's top at `top`."""
        texts = []
        for i, line in enumerate(self.lines):
            y = top + round(self.size * (_ASCENT + i * _LEADING))
            wide = text_width(line, self.size, self.bold) > self.room
            squeeze = self.room if wide else None
            texts.append(Text(x, y, self.size, line, fill, self.bold, anchor, squeeze))
        return texts

    def on_baseline(self, x: int, y: int, fill: str = INK, anchor: str = "start") -> list[Text]:
        """Its lines, the first one on baseline `y`: in line with a text of another size
        beside it, whatever size this one was fitted at."""
        return self.drawn(x, y - round(self.size * _ASCENT), fill, anchor)


def fit(
    text: str, room: int, largest: int, smallest: int, lines: int = 1, bold: bool = False
) -> _Fitted:
    """`text` at the largest size from `largest` down to `smallest` at which it wraps, at
    spaces, into at most `lines` lines `room` wide; at `smallest`, what still does not fit
    is squeezed (Text.squeeze).

    >>> fit("Maria Grazia Santangelo", 424, 52, 30, lines=3, bold=True).lines
    ('Maria Grazia', 'Santangelo')
    >>> fitted = fit("Maria Grazia Santangelo", 200, 40, 30)
    >>> fitted.size, fitted.lines, fitted.drawn(0, 0)[0].squeeze
    (30, ('Maria Grazia Santangelo',), 200)
    """
    for size in range(largest, smallest - 1, -2):
        wrapped = _wrap(text, room, size, bold, lines)
        if all(text_width(line, size, bold) <= room for line in wrapped):
            return _Fitted(size, wrapped, room, bold)
    return _Fitted(smallest, _wrap(text, room, smallest, bold, lines), room, bold)


def _wrap(text: str, room: int, size: int, bold: bool, most: int) -> tuple[str, ...]:
    """Words into lines of at most `room`, greedily; past `most` lines, the rest on the last."""
    lines: list[str] = []
    for word in text.split():
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and (text_width(joined, size, bold) <= room or len(lines) == most):
            lines[-1] = joined
        else:
            lines.append(word)
    return tuple(lines) or ("",)


def result_picture(result: Result) -> Picture:
    """The result laid out: the table and the day; a card a side with its name (its players
    too when it has a name of its own), its total and, for the winner, that it won; who won
    and how; then every deal, in one to three columns of rows as the deals run long."""
    boxes = [Box(0, 0, WIDTH, _BAND, ACCENT)]
    day = Text(WIDTH - _PAD, 66, 32, result.day, ON_ACCENT, anchor="end")
    room = WIDTH - 2 * _PAD - _GAP - math.ceil(text_width(result.day, 32))
    table = fit(result.table_name, room, 40, 26, bold=True)
    texts = [day, *table.on_baseline(_PAD, day.y, ON_ACCENT)]

    cards = _cards(result, _BAND + 40)
    bottom = cards.height
    boxes += cards.boxes
    texts += cards.texts
    verdict = fit(result.verdict, WIDTH - 2 * _PAD, 44, 30, lines=3, bold=True)
    texts += verdict.drawn(WIDTH // 2, bottom + 36, anchor="middle")
    about_top = bottom + 36 + verdict.height + 12
    about = fit(result.played, WIDTH - 2 * _PAD, 30, 22)  # the day is in the band
    texts += about.drawn(WIDTH // 2, about_top, MUTED, anchor="middle")

    deals = _deals(result, about_top + about.height + 36)
    boxes += deals.boxes
    texts += deals.texts
    texts.append(Text(WIDTH - _PAD, deals.height + 44, 24, _("Tressette Scoresheet"), MUTED,
                      anchor="end"))  # fmt: skip
    height = deals.height + 72
    return Picture(WIDTH, height, (Box(0, 0, WIDTH, height, PAPER), *boxes), tuple(texts))


def _cards(result: Result, top: int) -> Picture:
    """The sides' cards (two, Terziglio's three, a perdere's three to five), side by side,
    as high as the highest; a player out says so where a winner's card says it won. Its
    height is where they end."""
    count = len(result.sides)
    width = (WIDTH - 2 * _PAD - _GAP * (count - 1)) // count
    # Four or five abreast: narrower margins, so that the totals and "match won" stay large.
    inset, padding = (_INSET, 20) if count <= 3 else (16, 10)
    room = width - 2 * inset
    names = [fit(side.name, room, 52, 30, lines=3, bold=True) for side in result.sides]
    players = [
        fit(" & ".join(side.players), room, 32, 22, lines=2) if side.named_apart else None
        for side in result.sides
    ]
    head = max(
        name.height + (who.height + 8 if who is not None else 0)
        for name, who in zip(names, players, strict=True)
    )
    total_y = top + 12 + inset + head + 140
    won, out = _("match won"), pgettext("a perdere: reached the line", "out")
    badge = math.ceil(text_width(won, 30, bold=True)) + 2 * padding
    bottom = total_y + 24 + 52 + inset
    boxes, texts = [], []
    for i, side in enumerate(result.sides):
        x = _PAD + i * (width + _GAP)
        boxes.append(Box(x, top, width, bottom - top, WON if side.won else CARD, RULE, 16))
        boxes.append(Box(x, top, width, 12, SIDES[i]))
        inner = x + inset
        texts += names[i].drawn(inner, top + 12 + inset)
        if players[i] is not None:
            texts += players[i].drawn(inner, top + 12 + inset + names[i].height + 8, MUTED)
        total = fit(str(side.total), room, 150, 90, bold=True)
        texts += total.on_baseline(inner, total_y, SIDES[i])
        if side.won:
            boxes.append(Box(inner, total_y + 24, min(badge, room), 52, ACCENT, rounded=26))
            pill = fit(won, room - 2 * padding, 30, 20, bold=True)
            texts += pill.drawn(inner + min(badge, room) // 2, total_y + 33, ON_ACCENT, "middle")
        elif side.out:
            texts += fit(out, room, 30, 20, bold=True).drawn(inner, total_y + 33, MUTED)
    return Picture(WIDTH, bottom, tuple(boxes), tuple(texts))


# Rows of deals: per number of columns, the row's height and the points' size.
_ROWS = {1: (64, 38), 2: (54, 32), 3: (46, 26)}
# Where a row's parts go, as parts of its column's width: the deal's number ends at 0.10;
# each side's points are centred under its heading, in 0.12 to 0.36 and 0.36 to 0.60 (or
# moved left, the kind of deal after them); the totals end at 0.97. Terziglio's three
# players' balances take 0.12 to 0.78, the bid what is left before 0.97. A perdere's three to
# five totals share 0.12 to 0.97 alike (_spans): each is a running total already.
_NUMBER, _TOTALS = 0.10, 0.97
_SIDES = {2: ((0.12, 0.36), (0.36, 0.60)), 3: ((0.12, 0.34), (0.34, 0.56), (0.56, 0.78))}


def _spans(result: Result) -> tuple[tuple[float, float], ...]:
    """Where each side's figures go in a row, as parts of its column's width.

    >>> [round(a, 2) for a, _b in _spans(Result("", 21, None, (None,) * 5, (), "", "",
    ...                                           a_perdere=True))]
    [0.12, 0.29, 0.46, 0.63, 0.8]
    """
    if not result.a_perdere:
        return _SIDES[len(result.sides)]
    count, start = len(result.sides), _SIDES[2][0][0]
    step = (_TOTALS - start) / count
    return tuple((start + i * step, start + (i + 1) * step) for i in range(count))


def _deals(result: Result, top: int) -> Picture:
    """Every deal a row: its number, each side's points and the running totals; the side
    that swept or claimed says so after its points (at Terziglio: each player's balance and
    what the deal moved it by, then the bid). Its height is where it ends."""
    count = len(result.deals)
    columns = 1 if count <= 16 else 2 if count <= 40 else 3
    row, size = _ROWS[columns]
    width = (WIDTH - 2 * _PAD - _GAP * (columns - 1)) // columns
    rows = math.ceil(count / columns)
    head_size = max(16, size * 6 // 10)
    spans = _spans(result)
    span = round(width * (spans[0][1] - spans[0][0]))
    heads = [fit(side.name, span - 8, head_size, 14, lines=2, bold=True) for side in result.sides]
    head = max(name.height for name in heads) + 14
    heading = top + head - 14  # the headings' baseline
    cells = _charged_cells if result.a_perdere else _solo_cells if result.terziglio else _cells
    boxes, texts = [], []
    for column in range(columns if count else 0):
        x = _PAD + column * (width + _GAP)

        def at(part: float, x: int = x) -> int:
            return x + round(width * part)

        texts.append(Text(at(_NUMBER), heading, head_size, "#", MUTED, anchor="end"))
        for i, name in enumerate(heads):
            centre = at(sum(spans[i]) / 2)
            last = round(name.size * (_ASCENT + (len(name.lines) - 1) * _LEADING))
            texts += name.drawn(centre, heading - last, SIDES[i], "middle")
            boxes.append(Box(at(spans[i][0]) + 4, top + head - 8, span - 8, 4, SIDES[i]))
        if not result.a_perdere:  # its players' figures are the totals
            totals = _("Bid") if result.terziglio else _("Totals")
            texts.append(Text(at(_TOTALS), heading, head_size, totals, MUTED, anchor="end"))
        shown = result.deals[column * rows : (column + 1) * rows]
        for n, deal in enumerate(shown):
            y = top + head + n * row
            if n % 2 == 0:
                boxes.append(Box(x, y, width, row, STRIPE))
            base = y + round(row / 2 + size * 0.35)
            texts.append(
                Text(at(_NUMBER), base, size * 3 // 4, str(deal.number), MUTED, anchor="end")
            )
            texts += cells(deal, [(at(a), at(b)) for a, b in spans], at(_TOTALS), base, size)
    end = top + head + rows * row
    return Picture(WIDTH, end, tuple(boxes), tuple(texts))


def _cells(deal: ResultDeal, spans: list[tuple[int, int]], last: int, base: int, size: int):
    """A deal of two sides: each side's points (the kind of deal after them, on the side that
    swept or claimed), the running totals ending at `last`."""
    texts = []
    for i, points in enumerate(deal.points):
        start, end = spans[i]
        if not deal.tags[i]:
            middle = (start + end) // 2
            texts.append(Text(middle, base, size, str(points), bold=True, anchor="middle"))
            continue
        # Its points moved left, to leave the kind of deal room after them.
        left = start + (end - start) * 2 // 5
        texts.append(Text(left, base, size, str(points), bold=True, anchor="end"))
        tag = fit(deal.tags[i], end - left - 10, size * 6 // 10, 12)
        texts += tag.drawn(left + 6, base - tag.size, SIDES[i])
    run = f"{deal.totals[0]}–{deal.totals[1]}"
    texts.append(Text(last, base, size, run, anchor="end"))
    return texts


def _solo_cells(deal: ResultDeal, spans: list[tuple[int, int]], last: int, base: int, size: int):
    """A deal of Terziglio: each player's balance after it and, smaller, what it moved by;
    the bid ending at `last`, in the colour of who played alone."""
    texts = []
    for (start, end), total, change in zip(spans, deal.totals, deal.points, strict=True):
        middle = start + (end - start) // 2
        texts.append(Text(middle, base, size, str(total), bold=True, anchor="end"))
        moved = f"{change:+d}" if change else "0"
        texts.append(Text(middle + 8, base, size * 3 // 5, moved, MUTED))
    colour = SIDES[deal.soloist] if deal.soloist is not None else MUTED
    bid = fit(deal.bid, last - spans[-1][1] - 8, size * 7 // 10, 12)
    texts += bid.on_baseline(last, base, colour, "end")
    return texts


def _charged_cells(deal: ResultDeal, spans: list[tuple[int, int]], last: int, base: int, size: int):
    """A deal a perdere: each player's total after it and, smaller, what it charged them,
    "out" over it for who it put out; a dash for a player out before it."""
    texts = []
    for i, (start, end) in enumerate(spans):
        middle = start + (end - start) // 2
        if deal.were_out[i]:
            texts.append(Text(middle, base, size, "\u2013", MUTED, anchor="middle"))
            continue
        # Each in its half of the player's span, smaller where a span is narrow (five players,
        # two or three columns of deals): never over the next player's.
        half = (end - start) // 2 - 6
        total = fit(str(deal.totals[i]), half, size, 12, bold=True).size
        charged = fit(f"+{deal.points[i]}", half, size * 3 // 5, 10).size
        texts.append(Text(middle, base, total, str(deal.totals[i]), bold=True, anchor="end"))
        texts.append(Text(middle + 8, base, charged, f"+{deal.points[i]}", MUTED))
        if deal.tags[i]:
            tag = fit(deal.tags[i], end - middle - 12, size * 3 // 5, 12, bold=True)
            texts += tag.on_baseline(middle + 8, base - size * 3 // 5, SIDES[i])
    return texts
