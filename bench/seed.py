"""The benchmark's data, scored by `matches.rules` and written in bulk.

Every total, winner and point below comes from `rules.evaluate`; this module only picks the
entries a table might type. Rows satisfy the database's constraints and hold what the services
would have written, the change log included (through the services' own field mappings).
"""

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import batched

from django.db import connection, transaction
from django.db.models import Model
from django.utils import timezone

from matches import rules, services
from matches.models import (
    Action,
    Change,
    Deal,
    Match,
    Player,
    Side,
    Table,
    deal_document,
    outcome_fields,
)
from matches.names import pair_name
from matches.rules import Status

SHEET_LINE = 101
EVENING_LINE = 21
BATCH = 2000
NAMES = ["Alice", "Beppe", "Carla", "Dino", "Elena", "Franco"]
# Mostly nothing declared; now and then the common totals (every pair is one a deck allows).
DECLARATIONS = [(0, 0)] * 14 + [(3, 0), (0, 3), (4, 0), (0, 4), (3, 3), (7, 0), (0, 6)]


@dataclass(frozen=True)
class Plan:
    """One match to store: its seats, settings and what the rules made of its deals."""

    sides: tuple[tuple[Player, Player], tuple[Player, Player]]
    line: int
    first_dealer: int
    started_at: datetime
    outcome: rules.Outcome


def random_entry(rng: random.Random) -> rules.DealEntry:
    if rng.random() < 0.02:
        side = rng.randrange(2)
        cards = (11, 0) if side == 0 else (0, 11)
        return rules.DealEntry(cards, (0, 0), kind=rules.DealKind.CAPPOTTO, side=side)
    first = rng.randint(2, 9)
    return rules.DealEntry((first, 11 - first), rng.choice(DECLARATIONS))


def level_deals(count: int) -> list[rules.DealEntry]:
    """6 to 5, then 5 to 6, and so on: 18 of them make 99 to 99 at line 101."""
    return [rules.DealEntry((6, 5) if n % 2 else (5, 6), (0, 0)) for n in range(1, count + 1)]


def tied_deals(count: int) -> list[rules.DealEntry]:
    """7 + 0 against 4 + 3: both sides score 7, so sides level past the line stay level."""
    return [rules.DealEntry((7, 4), (0, 3)) for _ in range(count)]


def score(line: int, entries: list[rules.DealEntry], first_dealer: int = 0) -> rules.Outcome:
    return rules.evaluate(rules.MatchRules(line=line), entries, first_dealer=first_dealer)


def played_out(rng: random.Random, line: int) -> list[rules.DealEntry]:
    """Random deals up to the one that decides the match, as the rules see it."""
    entries: list[rules.DealEntry] = []
    while True:
        entries += [random_entry(rng) for _ in range(line // 4)]
        try:
            score(line, entries)
        except rules.DealInvalid as invalid:
            if invalid.codes != ["match_decided"]:
                raise
            return entries[: invalid.errors[0].deal_number - 1]


class Seeder:
    def __init__(self, seed: int = 2024) -> None:
        self.rng = random.Random(seed)
        self.start = timezone.now() - timedelta(days=400)

    def table(self, name: str, players: list[str] = NAMES) -> tuple[Table, list[Player]]:
        table = services.create_table(name=name)
        return table, Player.objects.bulk_create(Player(table=table, name=n) for n in players)

    def plan(self, players: list[Player], line: int, entries: list[rules.DealEntry]) -> Plan:
        a, b, c, d = self.rng.sample(players, 4)
        first_dealer = self.rng.randrange(4)
        self.start += timedelta(minutes=15)
        outcome = score(line, entries, first_dealer)
        return Plan(((a, c), (b, d)), line, first_dealer, self.start, outcome)

    def finished(self, players: list[Player], count: int) -> Iterator[Plan]:
        for _ in range(count):
            line = self.rng.choice([21, 21, 31, 41, SHEET_LINE])
            yield self.plan(players, line, played_out(self.rng, line))

    def in_progress(
        self, players: list[Player], entries: list[rules.DealEntry], line: int = SHEET_LINE
    ) -> Plan:
        plan = self.plan(players, line, entries)
        assert not plan.outcome.decided, "an in-progress match must be undecided"
        return plan


def _match(table: Table, plan: Plan) -> Match:
    outcome, finished = plan.outcome, plan.outcome.decided
    at = plan.started_at + timedelta(minutes=3 * len(outcome.deals))
    return Match(
        table=table,
        line=plan.line,
        first_dealer=plan.first_dealer,
        status=Status.FINISHED if finished else Status.IN_PROGRESS,
        winner=outcome.winner if finished else None,
        end_reason=outcome.reason.value if finished else "",
        started_at=plan.started_at,
        finished_at=at if finished else None,
        revision=1 + len(outcome.deals) + finished,
        **outcome_fields(outcome),
    )


def _rows(match: Match, plan: Plan) -> tuple[list[dict], list[dict]]:
    """A match's deals and its change log, as the services would have written them."""
    deals: list[dict] = []
    started = match.settings.as_dict()
    changes = [_change(match, plan.started_at, Action.MATCH_STARTED, started)]
    at = plan.started_at
    for scored in plan.outcome.deals:
        at += timedelta(minutes=3)
        row = Deal(match_id=match.pk, number=scored.number, created_at=at)
        row.set_scored(scored)
        deals.append({field: getattr(row, field) for field in _DEAL_FIELDS})
        values = deal_document(scored.number, scored.entry, scored.points)
        changes.append(_change(match, at, Action.DEAL_RECORDED, values, scored.number))
    if match.status == Status.FINISHED:
        result = {"winner": match.winner, "reason": match.end_reason}
        result["totals"] = list(plan.outcome.totals)
        changes.append(_change(match, at, Action.MATCH_ENDED, result))
    return deals, changes


_DEAL_FIELDS = ["match_id", "number", "created_at", "kind", "side", "card_points",
                "declared_points", "points"]  # fmt: skip


def _change(match: Match, at: datetime, action: str, new: dict, number: int | None = None):
    return {"match_id": match.pk, "at": at, "action": action, "deal_number": number, "new": new}


def insert(model: type[Model], rows: Iterable[dict]) -> None:
    """bulk_create for the two big tables, without a model instance and compiled SQL for each
    row (that took minutes for a quarter of a million rows): COPY on PostgreSQL, multi-row
    INSERTs on SQLite. A field a row leaves out takes its default; only dates and JSON need
    converting for the database."""
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    convert = [field.get_internal_type() in ("DateTimeField", "JSONField") for field in fields]

    def values(row: dict) -> list:
        found = [row[f.attname] if f.attname in row else f.get_default() for f in fields]
        return [
            field.get_db_prep_save(value, connection) if converted else value
            for field, converted, value in zip(fields, convert, found, strict=True)
        ]

    quote = connection.ops.quote_name
    columns = f"{quote(model._meta.db_table)} ({', '.join(quote(f.column) for f in fields)})"
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {columns} FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(values(row))
            return
        one = f"({', '.join(['%s'] * len(fields))})"
        size = min(BATCH, connection.ops.bulk_batch_size(fields, [None] * BATCH))
        for batch in batched(rows, size, strict=False):
            sql = f"INSERT INTO {columns} VALUES {', '.join([one] * len(batch))}"
            cursor.execute(sql, [value for row in batch for value in values(row)])


@transaction.atomic
def store(table: Table, plans: Iterable[Plan]) -> list[Match]:
    """Write the matches, their sides, deals and change log; a few bulk queries per batch."""
    stored: list[Match] = []
    for batch in batched(plans, BATCH, strict=False):
        matches = Match.objects.bulk_create(_match(table, plan) for plan in batch)
        Side.objects.bulk_create(
            Side(
                match=match,
                position=position,
                name=pair_name([p.name for p in players]),
                first_player=players[0],
                second_player=players[1],
            )
            for match, plan in zip(matches, batch, strict=True)
            for position, players in enumerate(plan.sides)
        )
        rows = [_rows(match, plan) for match, plan in zip(matches, batch, strict=True)]
        insert(Deal, (deal for deals, _ in rows for deal in deals))
        insert(Change, (change for _, changes in rows for change in changes))
        stored += matches
    return stored


def links(table: Table) -> dict:
    return {"id": table.pk, "viewer": table.viewer_token, "scorer": table.scorer_token}


def settle() -> dict:
    """The seeded database as a long-lived one is. On PostgreSQL, vacuumed, analyzed and
    checkpointed, as autovacuum would have left it, so that no autovacuum of the seeded rows,
    nor the writing out of their pages, runs into a measurement. SQLite is left as the app
    leaves it: nothing runs ANALYZE there."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
            cursor.execute("CHECKPOINT")
    return {}


def tonight_at(table: Table, *, matches: int) -> None:
    """Tonight at `table`: its last `matches` matches, first to 2 with the old stakes, as a
    table that plays an evening sets it; its sheets and page show tonight's tally."""
    tonight = Match.objects.filter(table=table).order_by("-started_at")[matches - 1].started_at
    Match.objects.filter(table=table, started_at__gte=tonight).update(stakes=True)
    Table.objects.filter(pk=table.pk).update(
        evening=rules.Evening.FIRST_TO_2, stakes=True, evening_started_at=tonight
    )


def seed(
    *,
    finished: int,
    export_deals: int,
    save_pool: int,
    phone_tables: int,
    evening_tables: int,
    neighbour_pool: int,
) -> dict:
    """Everything the benchmark reads; returns the ids and links it needs."""
    seeder = Seeder()

    # The table under test: many finished matches and one long match in progress.
    club, players = seeder.table("Bar Sport")
    store(club, seeder.finished(players, finished))
    # At line 101 the rules decide a match by about deal 19: every deal adds 11 card points.
    # Only level sides past the line play on, so a 40-deal sheet is 18 level deals to 99-99,
    # then 22 deals of 7 to 7 (106-106 ... 253-253), every one of them "play another deal".
    long_deals = level_deals(18) + tied_deals(22)
    (sheet,) = store(club, [seeder.in_progress(players, long_deals)])
    tonight_at(club, matches=5)

    # The same pages at a small size, for the query counts; also the tiny export.
    small, small_players = seeder.table("Small")
    store(small, seeder.finished(small_players, 2))
    (small_sheet,) = store(small, [seeder.in_progress(small_players, level_deals(1))])
    tonight_at(small, matches=3)  # as the club: the pages at both sizes draw tonight alike

    # Saving a deal: each request writes deal 18 into its own match of 17 level deals.
    pool, pool_players = seeder.table("Save pool")
    pool_matches = store(
        pool, (seeder.in_progress(pool_players, level_deals(17)) for _ in range(save_pool))
    )

    # Saves while a large file is imported (bench/importing.py): deal 18 of a match each.
    neighbour, neighbour_players = seeder.table("Neighbour")
    neighbour_matches = store(
        neighbour,
        (seeder.in_progress(neighbour_players, level_deals(17)) for _ in range(neighbour_pool)),
    )

    # The stress mix: tables of 4 phones, a match under way, then fresh ones to move on to.
    phones = []
    for number in range(1, phone_tables + 1):
        table, four = seeder.table(f"Phones {number}", NAMES[:4])
        under_way = seeder.rng.randint(8, 14)
        first = seeder.in_progress(four, level_deals(under_way))
        fresh = [seeder.in_progress(four, []) for _ in range(4)]
        phones.append({**links(table), "matches": [m.pk for m in store(table, [first, *fresh])]})

    # The evening: tables of 4 phones, each playing a match to 21 begun earlier (rematches are
    # started by the phones).
    evening = []
    for number in range(1, evening_tables + 1):
        table, four = seeder.table(f"Evening {number}", NAMES[:4])
        deals = played_out(seeder.rng, EVENING_LINE)
        begun = seeder.in_progress(four, deals[: seeder.rng.randrange(len(deals))], EVENING_LINE)
        evening.append({**links(table), "matches": [m.pk for m in store(table, [begun])]})

    # The export: finished matches up to `export_deals` deals, the last one cut short.
    archive, archive_players = seeder.table("Archive")
    plans, deals = [], 0
    for plan in seeder.finished(archive_players, export_deals):
        room = export_deals - deals
        if len(plan.outcome.deals) > room:
            entries = [scored.entry for scored in plan.outcome.deals[:room]]
            plan = seeder.in_progress(archive_players, entries, plan.line)
        plans.append(plan)
        deals += len(plan.outcome.deals)
        if deals == export_deals:
            break
    store(archive, plans)

    return {
        "club": {**links(club), "sheet": sheet.pk, "sheet_deals": len(long_deals)},
        "small": {**links(small), "sheet": small_sheet.pk, "sheet_deals": 1},
        "pool": {
            **links(pool),
            "matches": [m.pk for m in pool_matches],
            "number": 18,
            "shown": pool_matches[0].revision,  # as every phone was shown the sheet
        },
        "phones": phones,
        "evening": evening,
        "neighbour": {
            **links(neighbour),
            "matches": [m.pk for m in neighbour_matches],
            "number": 18,
        },
        "archive": {**links(archive), "deals": Deal.objects.filter(match__table=archive).count()},
    }
