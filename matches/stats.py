"""A table's statistics, from a fixed number of queries whatever the number of matches."""

import hashlib
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db.models import Count, Max, Q, Sum

from matches.models import Change, Match, Side, Table
from matches.names import ZWJ, pair_name, sort_key
from matches.rules import DealKind, Status

SWEEPS = [DealKind.CAPPOTTO, DealKind.STRAMAZZO]


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
    def streak(self) -> tuple[str, int]:
        """The current run: ("won", 3) after three wins in a row, ("lost", 1), or ("", 0)."""
        if not self.results:
            return ("", 0)
        last = self.results[-1]
        run = 0
        for result in reversed(self.results):
            if result != last:
                break
            run += 1
        return ("won" if last else "lost", run)


def _matches(table: Table) -> list[Match]:
    per_side = {}
    for side in (0, 1):
        per_side |= {
            f"declared_{side}": Sum(f"deals__declared_points_{side}", default=0),
            f"declarations_{side}": Count(
                "deals", filter=Q(**{f"deals__declared_points_{side}__gt": 0})
            ),
            f"sweeps_{side}": Count("deals", filter=Q(deals__kind__in=SWEEPS, deals__side=side)),
        }
    return list(
        Match.objects.filter(table=table, status=Status.FINISHED)
        .annotate(deal_count=Count("deals"), **per_side)
        # In the order they were played: a match reopened and ended again keeps its place.
        .order_by("started_at", "pk")
    )


def cached_table_stats(table: Table) -> dict:
    """The stats, drawn again only when the finished matches change.

    Every change bumps its match's revision, so the finished matches' ids, each with its
    revision, name the state the stats were drawn from: the cache key is their digest. (A
    count and a sum would not do: reopening one match and ending another can keep both.)
    Stats drawn while anything changed (the key, or the change log: a match ended and
    reopened again leaves the key as it was) are shown but not kept: they may belong to
    neither state.
    """
    key = _state_key(table)
    stats = cache.get(key)
    if stats is None:
        last_change = _last_change(table)
        stats = table_stats(table)
        if _state_key(table) == key and _last_change(table) == last_change:
            cache.set(key, stats, timeout=24 * 3600)
    # Matches the rules decide that nobody ended: they count in no stats until then.
    waiting = Match.objects.filter(
        table=table, status=Status.IN_PROGRESS, decided_for__isnull=False
    )
    return {**stats, "waiting": waiting.count()}


def _last_change(table: Table) -> int | None:
    return Change.objects.filter(match__table=table).aggregate(last=Max("pk"))["last"]


def _state_key(table: Table) -> str:
    state = Match.objects.filter(table=table, status=Status.FINISHED).order_by("pk")
    pairs = state.values_list("pk", "revision")
    digest = hashlib.blake2s(repr(list(pairs)).encode(), digest_size=12).hexdigest()
    return f"stats:{table.pk}:{digest}"


def table_stats(table: Table) -> dict:
    matches = _matches(table)
    sides = defaultdict(list)
    for side in Side.objects.filter(
        match__table=table, match__status=Status.FINISHED
    ).select_related("first_player", "second_player"):
        sides[side.match_id].append(side)
    players: dict[int, Record] = {}
    pairs: dict[frozenset[int], Record] = {}
    for match in matches:
        for side in sorted(sides[match.pk], key=lambda s: s.position):
            position = side.position
            members = side.players
            records = [players.setdefault(p.pk, Record(p.name, p.pk)) for p in members]
            if len(members) == 2:
                name = pair_name(sorted((p.name for p in members), key=sort_key))
                records.append(pairs.setdefault(frozenset(p.pk for p in members), Record(name)))
            for record in records:
                record.played += 1
                record.won += match.winner == position
                record.deals += match.deal_count
                record.points += getattr(match, f"total_{position}")
                record.declarations += getattr(match, f"declarations_{position}")
                record.declared_points += getattr(match, f"declared_{position}")
                record.sweeps += getattr(match, f"sweeps_{position}")
                record.results.append(match.winner == position)
    by_wins = lambda r: (-r.won, -r.win_rate, sort_key(r.name))  # noqa: E731
    longest = max(matches, key=lambda m: (m.deal_count, m.pk), default=None)
    player_list = sorted(players.values(), key=by_wins)
    return {
        "matches_played": len(matches),
        "players": player_list,
        "pairs": sorted(pairs.values(), key=by_wins),
        "longest": longest,
        "longest_sides": sorted(sides[longest.pk], key=lambda s: s.position) if longest else [],
        "chart": _bars(player_list),
    }


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
    """A horizontal bar per player: matches won, against the most anyone won.

    Names take the first `names` units, each bar starts there and its count follows it,
    `gap` units on: the longest bar leaves `count` units for the count.
    """
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
                "x": names,
                "width": length,
                "count_x": names + length + gap,
            }
        )
    return {"rows": rows, "height": max(len(rows) * (bar + 8), bar), "bar": bar, "width": width}
