"""Tonight at a table: its matches in the order played, what each side and each player won,
the series between the same two sides and la bella, as the table page, every sheet and the
shared tally show it; at its matches of three (Terziglio), each player's balances added up;
at its matches a perdere, each player's wins. Tressette's counted by `rules.evening_tally`
(two sides a match: the others' never reach it); read in two queries (the table, the sides
of tonight's matches with their players), whatever the number of matches."""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q
from django.utils import dateformat, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches import rules
from matches.exports import export_filename
from matches.models import EVENINGS, Match, Side, Table
from matches.names import sort_key
from matches.selectors.result import (
    _BAND,
    _GAP,
    _PAD,
    ACCENT,
    CARD,
    INK,
    MUTED,
    ON_ACCENT,
    PAPER,
    RULE,
    SIDES,
    STRIPE,
    WIDTH,
    Box,
    Picture,
    Text,
    fit,
)


@dataclass(frozen=True)
class Counted:
    """A side or a player tonight: matches played and won, and the games those count."""

    name: str
    played: int
    won: int
    games: int


@dataclass(frozen=True)
class Balance:
    """A player at tonight's matches of three ended or stopped (a match counts once it leaves
    play, as in the rest of the tally): played, won, and the balances they ended on added
    up (a match stopped counts as it stood: each deal is paid as it is played)."""

    name: str
    played: int
    won: int
    balance: int

    @property
    def signed(self) -> str:
        """ "+12", "-5", "0" """
        return f"{self.balance:+d}" if self.balance else "0"


@dataclass(frozen=True)
class SeriesLine:
    """Two sides' series: their names and wins in the order they first met in it."""

    names: tuple[str, str]
    wins: tuple[int, int]
    won_by: str  # the side that took it, or ""
    deciding: bool  # the next match between them decides it: la bella

    @property
    def score(self) -> str:
        """ "Alice & Carla 2 – 1 Beppe & Dino" """
        return f"{self.names[0]} {self.wins[0]} – {self.wins[1]} {self.names[1]}"


@dataclass(frozen=True)
class Standing:
    """Where a match stands in its series, as its sheet shows it: the wins in its own sides'
    order (after it, once it has ended; before it while played)."""

    wins: tuple[int, int]
    number: int  # its number in the series: 1, 2, 3 …
    deciding: bool  # it is la bella
    won_by: str  # the side that took the series with it, or ""
    games: tuple[int, int]  # what each side won tonight in games, in its order


@dataclass(frozen=True)
class Tonight:
    """A table's evening, as every phone shows it."""

    table_name: str
    counted_as: rules.Evening
    stakes: bool
    started_at: datetime | None
    sides: tuple[Counted, ...]  # every side that played, in the order it first played
    players: tuple[Counted, ...]
    series: tuple[SeriesLine, ...]
    standings: dict[int, Standing]  # by match id: each of tonight's matches ended or played
    matches: int  # tonight's matches ended or played
    file_name: str  # the picture's, as a download is named
    three: tuple[Balance, ...] = ()  # the players of tonight's matches of three, most up first
    a_perdere: tuple[Counted, ...] = ()  # tonight's players a perdere, most wins first

    @property
    def three_said(self) -> str:
        """ "Anna +12 (2 won), Bruno -5, Carla -7" """
        return ", ".join(self.balance_said(one) for one in self.three)

    @staticmethod
    def balance_said(one: Balance) -> str:
        if not one.won:
            return f"{one.name} {one.signed}"
        won = ngettext("%(n)s won", "%(n)s won", one.won) % {"n": one.won}
        return f"{one.name} {one.signed} ({won})"

    @property
    def counted_as_said(self) -> str:
        return str(dict(EVENINGS)[self.counted_as])

    @property
    def in_series(self) -> bool:
        return rules.wins_needed(self.counted_as) is not None

    @property
    def games_counted(self) -> bool:
        """Some match of tonight's counted the stakes, or the table plays them now."""
        return self.stakes or any(c.games != c.won for c in self.sides)

    @property
    def since(self) -> str:
        """ "since 20:14", or "since Dec 5, 2026, 20:14" for an evening begun another day."""
        if self.started_at is None:
            return ""
        began = timezone.localtime(self.started_at)
        time = dateformat.format(began, "H:i")
        if began.date() == timezone.localdate():
            return _("since %(time)s") % {"time": time}
        day = dateformat.format(began, _("N j, Y"))
        return _("since %(day)s, %(time)s") % {"day": day, "time": time}

    @property
    def text(self) -> str:
        """Tonight's tally, to share: each series, then each side's and player's wins.

        Osteria · Tonight since 20:14
        Alice & Carla 2 – 1 Beppe & Dino · series won by Alice & Carla
        Sides: Alice & Carla 2 (2 games), Beppe & Dino 1 (2 games)
        Players: Alice 2 (2 games), …
        """
        lines = [f"{self.table_name} · {_('Tonight')} {self.since}".strip()]
        for series in self.series:
            said = series.score
            if series.won_by:
                said += " · " + _("series won by %(side)s") % {"side": series.won_by}
            elif series.deciding:
                said += " · " + _("la bella")
            lines.append(said)
        for title, counted in ((_("Sides"), self.sides), (_("Players"), self.players)):
            if counted:
                lines.append(f"{title}: " + ", ".join(self.won_said(c) for c in counted))
        if self.three:
            lines.append(f"{_('Terziglio')}: {self.three_said}")
        if self.a_perdere:
            won = ", ".join(f"{one.name} {one.won}" for one in self.a_perdere)
            lines.append(f"{_('Tressette a perdere')}: {won}")
        return "\n".join(lines)

    def won_said(self, counted: Counted) -> str:
        """ "Alice 2 (3 games)" """
        if not self.games_counted:
            return f"{counted.name} {counted.won}"
        games = ngettext("%(n)s game", "%(n)s games", counted.games) % {"n": counted.games}
        return f"{counted.name} {counted.won} ({games})"


def load_tonight(table: Table) -> Tonight:
    """Tonight at `table` (read with its evening): one query, the sides of its matches; none
    before its evening began."""
    began = table.evening_started_at
    sides = list(_tonight_sides(Q(match__table=table), began)) if began is not None else []
    return _tonight(table, sides)


def tonight_of(table_id: int, began: datetime | None) -> Tonight | None:
    """Tonight at the table of this id, whose evening `began` then, as a sheet shows it: one
    query (the sides of tonight's matches, with the table), none before its evening began;
    None when no match was played tonight."""
    if began is None:
        return None
    sides = _tonight_sides(Q(match__table_id=table_id), began).select_related("match__table")
    sides = list(sides)
    return _tonight(sides[0].match.table, sides) if sides else None


def _tonight_sides(table: Q, began: datetime):
    """The sides of the table's matches begun since its evening did (`began`), ended or
    played: by the matches' index of the table's start times."""
    tonight = Side.objects.filter(table, match__started_at__gte=began)
    # A match of Tressette or a perdere stopped undecided counts for nothing; one of three,
    # as it stands.
    tonight = tonight.exclude(
        match__status=rules.Status.ABANDONED,
        match__game__in=[rules.Game.TRESSETTE, rules.Game.A_PERDERE],
    )
    return tonight.select_related("match", "first_player", "second_player").order_by(
        "match__started_at", "match_id", "position"
    )


def _by_match(sides: list[Side]) -> dict[rules.Game, list[tuple[Match, list[Side]]]]:
    """Tonight's matches with their sides, in the order played, by game: Tressette's, and
    apart those of three (Terziglio's: balances) and those a perdere (a winner of three to
    five): no series nor pairs at either."""
    games: dict[rules.Game, list[tuple[Match, list[Side]]]] = {game: [] for game in rules.Game}
    for side in sides:
        played_by = games[rules.Game(side.match.game)]
        if not played_by or played_by[-1][0].pk != side.match_id:
            played_by.append((side.match, []))
        played_by[-1][1].append(side)
    return games


def _tonight(table: Table, sides: list[Side]) -> Tonight:
    games = _by_match(sides)
    matches, three = games[rules.Game.TRESSETTE], games[rules.Game.TERZIGLIO]
    a_perdere = games[rules.Game.A_PERDERE]
    played = [
        rules.Played(
            tuple(tuple(p.pk for p in side.players) for side in pair),
            match.winner if match.status == rules.Status.FINISHED else None,
            _games(match),
        )
        for match, pair in matches
    ]
    tally = rules.evening_tally(played, rules.Evening(table.evening))
    # A side or player is named as they last played tonight.
    names: dict[object, str] = {}
    for _match, pair in matches:
        for side in pair:
            names[frozenset(p.pk for p in side.players)] = side.name
            names.update((p.pk, p.name) for p in side.players)
    series = tuple(
        SeriesLine(
            (names[s.sides[0]], names[s.sides[1]]),
            s.wins,
            names[s.sides[s.won_by]] if s.won_by is not None else "",
            s.deciding,
        )
        for s in tally.series
    )
    games = {c.who: c.games for c in tally.sides}
    standings = {}
    for (match, pair), at in zip(matches, tally.matches, strict=True):
        order = (1, 0) if at.flipped else (0, 1)
        taken = tally.series[at.series]
        won_by = ""
        if match.status == rules.Status.FINISHED and taken.needed is not None:
            wins = (at.score[order[0]], at.score[order[1]])
            won_by = next((pair[i].name for i in (0, 1) if wins[i] >= taken.needed), "")
        standings[match.pk] = Standing(
            wins=(at.score[order[0]], at.score[order[1]]),
            number=at.number,
            deciding=at.deciding,
            won_by=won_by,
            games=tuple(games[frozenset(p.pk for p in side.players)] for side in pair),
        )
    return Tonight(
        table_name=table.name,
        counted_as=rules.Evening(table.evening),
        stakes=table.stakes,
        started_at=table.evening_started_at,
        sides=tuple(Counted(names[c.who], c.played, c.won, c.games) for c in tally.sides),
        players=tuple(Counted(names[c.who], c.played, c.won, c.games) for c in tally.players),
        series=series,
        standings=standings,
        matches=len(matches) + len(three) + len(a_perdere),
        file_name=export_filename(table, "png"),
        three=_balances(three),
        a_perdere=_wins(a_perdere),
    )


def _balances(matches: list[tuple[Match, list[Side]]]) -> tuple[Balance, ...]:
    """Each player's matches of three ended or stopped tonight, their wins and balances
    added up."""
    counted: dict[int, Balance] = {}
    for match, seats in matches:
        if match.status == rules.Status.IN_PROGRESS:
            continue
        won = match.winner if match.status == rules.Status.FINISHED else None
        for side in seats:
            player = side.first_player
            was = counted.get(player.pk, Balance(player.name, 0, 0, 0))
            counted[player.pk] = Balance(
                player.name,
                was.played + 1,
                was.won + (won == side.position),
                was.balance + match.totals[side.position],
            )
    return tuple(sorted(counted.values(), key=lambda one: (-one.balance, sort_key(one.name))))


def _wins(matches: list[tuple[Match, list[Side]]]) -> tuple[Counted, ...]:
    """Each player's matches a perdere ended tonight, and those they won (the winner: the
    last one in, or the lowest total); one still played counts once it ends."""
    counted: dict[int, Counted] = {}
    for match, seats in matches:
        if match.status != rules.Status.FINISHED:
            continue
        for side in seats:
            player = side.first_player
            was = counted.get(player.pk, Counted(player.name, 0, 0, 0))
            won = match.winner == side.position
            counted[player.pk] = Counted(player.name, was.played + 1, was.won + won, 0)
    return tuple(sorted(counted.values(), key=lambda one: (-one.won, sort_key(one.name))))


def _games(match: Match) -> int:
    if match.status != rules.Status.FINISHED:
        return 0
    return rules.games_won(rules.EndReason(match.end_reason), stakes=match.stakes)


# --- The picture ------------------------------------------------------------------------


def tonight_picture(tonight: Tonight) -> Picture:
    """Tonight laid out as a match's result is (result.result_picture): the table and since
    when in the band; each series, its score between the two sides' names and la bella or
    who took it under; then each side's and each player's wins (and games), and each
    player's balance at the matches of three."""
    boxes = [Box(0, 0, WIDTH, _BAND, ACCENT)]
    since = f"{_('Tonight')} {tonight.since}".strip()
    day = fit(since, WIDTH // 2 - _PAD, 32, 22)
    texts = [*day.drawn(WIDTH - _PAD, 40, ON_ACCENT, anchor="end")]
    table = fit(tonight.table_name, WIDTH // 2 - _PAD, 40, 26, bold=True)
    texts += table.drawn(_PAD, 32, ON_ACCENT)
    top = _BAND + 32
    half = (WIDTH - 2 * _PAD - 220) // 2
    for series in tonight.series:
        names = [fit(name, half - 16, 38, 24, lines=2, bold=True) for name in series.names]
        high = max(name.height for name in names)
        said = series.won_by and _("series won by %(side)s") % {"side": series.won_by}
        said = said or (series.deciding and _("la bella")) or ""
        height = max(high, 96) + (48 if said else 0) + 32
        boxes.append(Box(_PAD, top, WIDTH - 2 * _PAD, height, CARD, RULE, 16))
        texts += names[0].drawn(_PAD + 24, top + 16, SIDES[0])
        texts += names[1].drawn(WIDTH - _PAD - 24, top + 16, SIDES[1], anchor="end")
        score = f"{series.wins[0]} – {series.wins[1]}"
        texts.append(Text(WIDTH // 2, top + 92, 80, score, INK, bold=True, anchor="middle"))
        if said:
            texts += fit(said, WIDTH - 2 * _PAD - 48, 30, 20).drawn(
                WIDTH // 2, top + height - 56, ACCENT, anchor="middle"
            )
        top += height + _GAP
    for title, counted in _tallies(tonight):
        texts.append(Text(_PAD, top + 36, 30, title, MUTED, bold=True))
        top += 52
        for n, (who, said) in enumerate(counted):
            if n % 2 == 0:
                boxes.append(Box(_PAD, top, WIDTH - 2 * _PAD, 56, STRIPE))
            name = fit(who, WIDTH - 2 * _PAD - 360, 32, 20)
            texts += name.on_baseline(_PAD + 16, top + 39)
            texts.append(Text(WIDTH - _PAD - 16, top + 39, 30, said, INK, bold=True, anchor="end"))
            top += 56
        top += _GAP
    texts.append(Text(WIDTH - _PAD, top + 32, 24, _("Tressette Scoresheet"), MUTED, anchor="end"))
    height = top + 60
    return Picture(WIDTH, height, (Box(0, 0, WIDTH, height, PAPER), *boxes), tuple(texts))


def _tallies(tonight: Tonight) -> list[tuple[str, list[tuple[str, str]]]]:
    """The picture's lists under their titles, each a name and what it won ("2 won · 3
    games") or, at the matches of three, its balance ("+12 · 2 won"); at the matches a
    perdere, which count no games, its wins; none that is empty."""

    def won(one: Counted, games: bool = True) -> str:
        said = ngettext("%(n)s won", "%(n)s won", one.won) % {"n": one.won}
        if games and tonight.games_counted:
            said += " · " + ngettext("%(n)s game", "%(n)s games", one.games) % {"n": one.games}
        return said

    def balance(one: Balance) -> str:
        won = ngettext("%(n)s won", "%(n)s won", one.won) % {"n": one.won}
        return f"{one.signed} · {won}" if one.won else one.signed

    tallies = [
        (_("Sides"), [(one.name, won(one)) for one in tonight.sides]),
        (_("Players"), [(one.name, won(one)) for one in tonight.players]),
        (_("Terziglio"), [(one.name, balance(one)) for one in tonight.three]),
        (
            _("Tressette a perdere"),
            [(one.name, won(one, games=False)) for one in tonight.a_perdere],
        ),
    ]
    return [(title, counted) for title, counted in tallies if counted]
