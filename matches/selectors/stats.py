"""A table's stats, per player and per pair; a match of three's and a match a perdere's, per
player."""

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Q
from django.utils.translation import ngettext

from matches import rules
from matches.models import (
    Deal,
    Match,
    Side,
    Table,
)
from matches.names import pair_name, sort_key

# What the stats count: a match ended; one of three stopped too (each deal was paid). A match
# a perdere stopped has no winner, and its totals mean nothing until one: it counts for none.
_COUNTED = Q(status=rules.Status.FINISHED) | Q(
    game=rules.Game.TERZIGLIO, status=rules.Status.ABANDONED
)


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
        return _share(self.won, self.played)

    @property
    def points_per_deal(self) -> float:
        return _per_deal(self.points, self.deals)

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


@dataclass
class SoloRecord:
    """A player's matches of Terziglio: played and won, the balances they ended on added up,
    and the deals they played alone and won."""

    name: str
    player_id: int
    played: int = 0
    won: int = 0
    balance: int = 0
    alone: int = 0
    won_alone: int = 0

    @property
    def win_rate(self) -> int:
        return _share(self.won, self.played)

    @property
    def alone_rate(self) -> int:
        return _share(self.won_alone, self.alone)


@dataclass
class APerdereRecord:
    """A player's matches a perdere: played and won, and the points charged to them in the
    deals they played (none once they were out): the fewer a deal, the better."""

    name: str
    player_id: int
    played: int = 0
    won: int = 0
    deals: int = 0
    points: int = 0

    @property
    def win_rate(self) -> int:
        return _share(self.won, self.played)

    @property
    def points_per_deal(self) -> float:
        return _per_deal(self.points, self.deals)


def _per_deal(points: int, deals: int) -> float:
    """To a tenth, half up like _share: 21 points in 4 deals is 5.3, not round()'s 5.2.

    >>> _per_deal(21, 4), _per_deal(0, 0)
    (5.3, 0.0)
    """
    return (20 * points + deals) // (2 * deals) / 10 if deals else 0.0


def _share(part: int, whole: int) -> int:
    """In hundredths, half up as people round (Python's round() takes 62.5 to 62).

    >>> _share(5, 8), _share(0, 0)
    (63, 0)
    """
    return (200 * part + whole) // (2 * whole) if whole else 0


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
    terziglio: list[SoloRecord] = field(default_factory=list)  # its players, most wins first
    terziglio_played: int = 0
    a_perdere: list[APerdereRecord] = field(default_factory=list)  # its players, most wins first
    a_perdere_played: int = 0

    @property
    def longest_tied(self) -> bool:
        """More than one match took the most deals."""
        return len(self.longest) > 1


def table_stats(table: Table) -> Stats:
    """Per player and per pair, from the finished matches (and those of three stopped:
    their balances stand): two queries (the matches with what the rules stored of them, and
    their sides), whatever their number; a third reads who played alone in the matches of
    three, a fourth counts the matches waiting for End match. A match a perdere's players
    are counted from what the match stored: no query more."""
    matches = list(Match.objects.filter(_COUNTED, table=table).order_by("started_at", "pk"))
    sides: dict[int, list[Side]] = defaultdict(list)
    seated = Side.objects.filter(match__in=Match.objects.filter(_COUNTED, table=table))
    for side in seated.select_related("first_player", "second_player").order_by("position"):
        sides[side.match_id].append(side)
    players: dict[int, Record] = {}
    pairs: dict[frozenset[int], Record] = {}
    # Terziglio's balances and a perdere's totals are not points for and against a pair:
    # each is counted apart.
    tressette = [match for match in matches if match.game == rules.Game.TRESSETTE]
    for match in tressette:
        for side in sides[match.pk]:
            for record in _records(side, players, pairs):
                _count(record, match, side.position)
    by_wins = lambda r: (-r.won, -r.win_rate, sort_key(r.name))  # noqa: E731
    most = max((m.deal_count for m in matches), default=0)
    longest = [
        Longest(m.pk, tuple(s.name for s in sides[m.pk])) for m in matches if m.deal_count == most
    ]
    player_list = sorted(players.values(), key=by_wins)
    terziglio = [match for match in matches if match.terziglio]
    a_perdere = [match for match in matches if match.a_perdere]
    waiting = Match.objects.filter(
        table=table, status=rules.Status.IN_PROGRESS, decided_for__isnull=False
    )
    return Stats(
        matches_played=len(matches),
        players=player_list,
        pairs=sorted(pairs.values(), key=by_wins),
        longest=longest,
        longest_deals=most,
        chart=_bars(player_list),
        waiting=waiting.count(),
        games_counted=any(match.stakes for match in tressette),
        terziglio=sorted(_solo_records(table, terziglio, sides), key=by_wins),
        terziglio_played=len(terziglio),
        a_perdere=sorted(_a_perdere_records(a_perdere, sides), key=by_wins),
        a_perdere_played=len(a_perdere),
    )


def _solo_records(table: Table, matches: list[Match], sides: dict) -> list[SoloRecord]:
    """Each player's record in these matches of three: one query, their deals played alone
    (none when there are no such matches)."""
    if not matches:
        return []
    records: dict[int, SoloRecord] = {}
    seat_of: dict[tuple[int, int], SoloRecord] = {}  # (match, seat) -> its player's
    for match in matches:
        for side in sides[match.pk]:
            player = side.first_player
            record = records.setdefault(player.pk, SoloRecord(player.name, player.pk))
            record.played += 1
            record.won += match.winner == side.position
            record.balance += match.totals[side.position]
            seat_of[match.pk, side.position] = record
    of_three = Match.objects.filter(_COUNTED, table=table, game=rules.Game.TERZIGLIO)
    alone = Deal.objects.filter(match__in=of_three, side__isnull=False)
    for deal in alone.only("match", "side", "bid", "card_points"):
        record = seat_of[deal.match_id, deal.side]
        record.alone += 1
        record.won_alone += bool(deal.entry.soloist_won)
    return list(records.values())


def _a_perdere_records(matches: list[Match], sides: dict) -> list[APerdereRecord]:
    """Each player's record in these matches a perdere (ended: each has a winner). A player
    out after deal 4 of 7 played 4 of them."""
    records: dict[int, APerdereRecord] = {}
    for match in matches:
        for side in sides[match.pk]:
            player, seat = side.first_player, side.position
            record = records.setdefault(player.pk, APerdereRecord(player.name, player.pk))
            record.played += 1
            record.won += match.winner == seat
            out = match.out_after[seat]
            record.deals += match.deal_count if out is None else out
            record.points += match.totals[seat]
    return list(records.values())


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
