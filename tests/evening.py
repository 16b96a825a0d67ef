"""An evening played through the services, for the tests of the evening's pages."""

from matches import rules, services
from matches.models import Match, Table

AC, BD = ["Alice", "Carla"], ["Beppe", "Dino"]
AB, CD = ["Alice", "Beppe"], ["Carla", "Dino"]


def won(side: int, how: str = "line") -> list[rules.DealEntry]:
    """The deals by which `side` wins a match to 21: two played out (10 + 3 against 1 each),
    or one sweep."""
    if how == "line":
        points, declared = ((10, 1), (3, 0)) if side == 0 else ((1, 10), (0, 3))
        return [rules.DealEntry(points, declared)] * 2
    return [rules.DealEntry((11, 0) if side == 0 else (0, 11), (0, 0), rules.DealKind(how), side)]


def play(table: Table, sides: list[list[str]], winner: int, how: str = "line", **start) -> Match:
    """A match of these sides, won by `winner` (by `how`) and ended."""
    match = services.start_match(table=table, players=sides, **start)
    for number, entry in enumerate(won(winner, how), start=1):
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    return services.end_match(match=match)
