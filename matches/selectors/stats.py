"""A table's stats, per player and per pair."""

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Q
from django.utils.translation import ngettext

from matches import rules
from matches.models import (
    Match,
    Side,
    Table,
)
from matches.names import pair_name, sort_key


@dataclass
class Record:
    """Matches played and won, and more, by one player or one pair."""

    name: str
    player_id: int | None = None  # a player's (its matches are listed on the table's page)
    played: int = 0
    won: int = 0
    deals: int = 0
    points: int = 0
    declarations: int = 0
    declared_points: int = 0
    sweeps: int = 0
    games: int = 0  # what its wins count, under the old stakes where the match played them
    results: list[bool] = field(default_factory=list)  # oldest first

    @property
    def win_rate(self) -> int:
        # Half up, as people round (Python's round() takes 62.5 to 62).
        return (200 * self.won + self.played) // (2 * self.played) if self.played else 0

    @property
    def points_per_deal(self) -> float:
        # To a tenth, half up like win_rate: 21 points in 4 deals is 5.3, not round()'s 5.2.
        return (20 * self.points + self.deals) // (2 * self.deals) / 10 if self.deals else 0.0

    @property
    def streak(self) -> str:
        """The current run in words: "3 won", "1 lost", or ""."""
        if not self.results:
            return ""
        last, run = self.results[-1], 0
        for result in reversed(self.results):
            if result != last:
                break
            run += 1
        if last:
            return ngettext("%(n)s won", "%(n)s won", run) % {"n": run}
        return ngettext("%(n)s lost", "%(n)s lost", run) % {"n": run}


@dataclass(frozen=True)
class Bar:
    """A player's matches won, as a bar: its length in hundredths of the longest."""

    name: str
    won: int
    length: int


@dataclass(frozen=True)
class Longest:
    """A match that took the most deals, named by its sides."""

    match_id: int
    sides: tuple[str, ...]


@dataclass(frozen=True)
class Stats:
    matches_played: int
    players: list[Record]
    pairs: list[Record]
    longest: list[Longest]  # every match that took the most deals, oldest first
    longest_deals: int
    chart: list[Bar]
    waiting: int  # decided by their deals but never ended: they count once they are
    games_counted: bool = False  # some match played the old stakes: games beside matches

    @property
    def longest_tied(self) -> bool:
        """More than one match took the most deals."""
        return len(self.longest) > 1


def table_stats(table: Table) -> Stats:
    """Per player and per pair, from the finished matches: two queries (the matches with
    what the rules stored of them, and their sides), whatever their number; a third counts
    the matches waiting for End match."""
    # Tressette's: a match of Terziglio has balances, not points for and against a pair.
    tressette = Q(game=rules.Game.TRESSETTE)
    matches = list(
        Match.objects.filter(tressette, table=table, status=rules.Status.FINISHED).order_by(
            "started_at", "pk"
        )
    )
    sides: dict[int, list[Side]] = defaultdict(list)
    finished = Side.objects.filter(
        match__table=table, match__status=rules.Status.FINISHED, match__game=rules.Game.TRESSETTE
    )
    for side in finished.select_related("first_player", "second_player").order_by("position"):
        sides[side.match_id].append(side)
    players: dict[int, Record] = {}
    pairs: dict[frozenset[int], Record] = {}
    for match in matches:
        for side in sides[match.pk]:
            for record in _records(side, players, pairs):
                _count(record, match, side.position)
    by_wins = lambda r: (-r.won, -r.win_rate, sort_key(r.name))  # noqa: E731
    most = max((m.deal_count for m in matches), default=0)
    longest = [
        Longest(m.pk, tuple(s.name for s in sides[m.pk])) for m in matches if m.deal_count == most
    ]
    player_list = sorted(players.values(), key=by_wins)
    waiting = Match.objects.filter(
        tressette, table=table, status=rules.Status.IN_PROGRESS, decided_for__isnull=False
    )
    return Stats(
        matches_played=len(matches),
        players=player_list,
        pairs=sorted(pairs.values(), key=by_wins),
        longest=longest,
        longest_deals=most,
        chart=_bars(player_list),
        waiting=waiting.count(),
        games_counted=any(match.stakes for match in matches),
    )


def _records(side: Side, players: dict, pairs: dict) -> list[Record]:
    """A side's players' records and, of two, their pair's: named in seat order as the sheet
    names them ("Giulia & Ante"), as their last match seated them (called oldest first)."""
    members = side.players
    records = [players.setdefault(p.pk, Record(p.name, p.pk)) for p in members]
    if len(members) == 2:
        pair = pairs.setdefault(frozenset(p.pk for p in members), Record(""))
        pair.name = pair_name([p.name for p in members])
        records.append(pair)
    return records


def _count(record: Record, match: Match, position: int) -> None:
    won = match.winner == position
    record.played += 1
    record.won += won
    if won:
        record.games += rules.games_won(rules.EndReason(match.end_reason), stakes=match.stakes)
    record.deals += match.deal_count
    record.points += match.totals[position]
    record.declarations += match.declarations[position]
    record.declared_points += match.declared[position]
    record.sweeps += match.sweeps[position]
    record.results.append(won)


def _bars(records: list[Record], shown: int = 12) -> list[Bar]:
    """A bar per player, the first `shown`: matches won, against the most anyone won.

    >>> [(b.won, b.length) for b in _bars([Record("Anna", won=4), Record("Ugo", won=1)])]
    [(4, 100), (1, 25)]
    """
    most = max((r.won for r in records), default=0) or 1
    return [Bar(r.name, r.won, max(1, round(100 * r.won / most))) for r in records[:shown]]
