"""A table's stats, per player and per pair."""

import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field

from django.utils.translation import ngettext

from matches import rules
from matches.models import (
    Match,
    Side,
    Table,
)
from matches.names import ZWJ, pair_name, sort_key


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
class Stats:
    matches_played: int
    players: list[Record]
    pairs: list[Record]
    longest: Match | None
    longest_sides: tuple[str, str]
    chart: dict
    waiting: int  # decided by their deals but never ended: they count once they are


def table_stats(table: Table) -> Stats:
    """Per player and per pair, from the finished matches: two queries (the matches with
    what the rules stored of them, and their sides), whatever their number; a third counts
    the matches waiting for End match."""
    matches = list(
        Match.objects.filter(table=table, status=rules.Status.FINISHED).order_by("started_at", "pk")
    )
    sides: dict[int, list[Side]] = defaultdict(list)
    finished = Side.objects.filter(match__table=table, match__status=rules.Status.FINISHED)
    for side in finished.select_related("first_player", "second_player").order_by("position"):
        sides[side.match_id].append(side)
    players: dict[int, Record] = {}
    pairs: dict[frozenset[int], Record] = {}
    for match in matches:
        for side in sides[match.pk]:
            for record in _records(side, players, pairs):
                _count(record, match, side.position)
    by_wins = lambda r: (-r.won, -r.win_rate, sort_key(r.name))  # noqa: E731
    longest = max(matches, key=lambda m: (m.deal_count, m.pk), default=None)
    player_list = sorted(players.values(), key=by_wins)
    waiting = Match.objects.filter(
        table=table, status=rules.Status.IN_PROGRESS, decided_for__isnull=False
    )
    return Stats(
        matches_played=len(matches),
        players=player_list,
        pairs=sorted(pairs.values(), key=by_wins),
        longest=longest,
        longest_sides=tuple(s.name for s in sides[longest.pk]) if longest else ("", ""),
        chart=_bars(player_list),
        waiting=waiting.count(),
    )


def _records(side: Side, players: dict, pairs: dict) -> list[Record]:
    members = side.players
    records = [players.setdefault(p.pk, Record(p.name, p.pk)) for p in members]
    if len(members) == 2:
        name = pair_name(sorted((p.name for p in members), key=sort_key))
        records.append(pairs.setdefault(frozenset(p.pk for p in members), Record(name)))
    return records


def _count(record: Record, match: Match, position: int) -> None:
    won = match.winner == position
    record.played += 1
    record.won += won
    record.deals += match.deal_count
    record.points += (match.total_0, match.total_1)[position]
    record.declarations += (match.declarations_0, match.declarations_1)[position]
    record.declared_points += (match.declared_0, match.declared_1)[position]
    record.sweeps += (match.sweeps_0, match.sweeps_1)[position]
    record.results.append(won)


def _label(name: str, most: int = 16) -> str:
    """A name as it fits beside its bar, cut between characters one sees, never inside one
    made of several (a letter and its accent, an emoji joined from others):

    >>> _label("Maria Antonietta Esposito")
    'Maria Antoniett…'
    >>> _label("Tressette club 👩\u200d🍳")
    'Tressette club…'
    """
    if len(name) <= most:
        return name
    end = most - 1
    while end > 0 and (_joins_on(name[end]) or name[end - 1] == ZWJ or _splits_flag(name, end)):
        end -= 1
    return name[:end].rstrip() + "…"


def _joins_on(char: str) -> bool:
    """Part of the character before it: a mark, a joiner, an emoji's skin tone, a tag (the
    flags of England, Scotland and Wales are a black flag and tags)."""
    return (
        char == ZWJ
        or unicodedata.category(char) in {"Mn", "Mc", "Me"}
        or 0x1F3FB <= ord(char) <= 0x1F3FF
        or 0xE0020 <= ord(char) <= 0xE007F
    )


def _splits_flag(name: str, end: int) -> bool:
    """Would a cut at `end` part the two letters of a country's flag (🇮🇹)? They come in
    pairs: an odd number of them just before the cut means it would."""
    letters = 0
    while end - letters > 0 and 0x1F1E6 <= ord(name[end - letters - 1]) <= 0x1F1FF:
        letters += 1
    return letters % 2 == 1


def _bars(records: list[Record], width: int = 300, bar: int = 22) -> dict:
    """A horizontal bar per player: matches won, against the most anyone won. Names take
    the first 125 units, each bar starts there and its count follows it."""
    names, gap, count = 125, 5, 40
    most = max((r.won for r in records), default=0) or 1
    rows = []
    for i, r in enumerate(records[:12]):
        length = max(2, round(r.won * (width - names - gap - count) / most))
        rows.append(
            {
                "name": _label(r.name),
                "won": r.won,
                "y": i * (bar + 8),
                "label_y": i * (bar + 8) + 16,
                "x": names,
                "width": length,
                "count_x": names + length + gap,
            }
        )
    return {"rows": rows, "height": max(len(rows) * (bar + 8), bar), "bar": bar, "width": width}
