"""The schema's migrations: the squashed one and those made since; and databases migrated
before the squash."""

import ast
import importlib
from pathlib import Path

import pytest
from django.apps import apps as django_apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder
from django.utils import timezone

from matches.models import Change, Match
from tests.factories import MatchFactory

SQUASHED = ("matches", "0001_squashed_0009_match_declarations_allowed")
SINCE = [
    "0010_match_in_progress_revision",
    "0011_evening_and_sweeps_by_one",
    "0012_match_deletions",
    "0013_count_deletions",
    "0014_match_table_started",
    "0015_per_side_lists",
    "0016_terziglio",
    "0017_a_perdere",
    "0018_deal_games",
    "0019_deal_checks_by_game",
]
MIGRATIONS = Path(__file__).resolve().parent.parent / "matches" / "migrations"


@pytest.mark.parametrize("path", sorted(MIGRATIONS.glob("0*.py")), ids=lambda path: path.name)
def test_a_migration_imports_no_app_code_but_the_models_module(path):
    """What a migration does must not change when the app's code does."""
    tree = ast.parse(path.read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}  # fmt: skip
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert {name for name in imported if name.startswith("matches")} <= {"matches.models"}


def test_the_schema_is_the_squashed_migration_and_those_made_since():
    assert sorted(path.stem for path in MIGRATIONS.glob("0*.py")) == [SQUASHED[1], *SINCE]


@pytest.mark.django_db(transaction=True)
def test_a_database_migrated_to_0009_before_the_squash_runs_only_those_made_since():
    """Such a database records the migrations the squashed one replaces (the first squash
    and 0002 to 0009), not it, and none made since."""
    recorder = MigrationRecorder(connection)
    replaced = MigrationExecutor(connection).loader.disk_migrations[SQUASHED].replaces
    found = set(recorder.applied_migrations())  # given back as found, for the tests after
    recorder.record_unapplied(*SQUASHED)
    for name in SINCE:
        recorder.record_unapplied(SQUASHED[0], name)
    for app, name in replaced:
        recorder.record_applied(app, name)
    try:
        executor = MigrationExecutor(connection)
        assert SQUASHED in executor.loader.applied_migrations
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
        assert [migration.name for migration, _ in plan] == SINCE
    finally:
        now = set(recorder.applied_migrations())
        for app, name in now - found:
            recorder.record_unapplied(app, name)
        for app, name in found - now:
            recorder.record_applied(app, name)


@pytest.mark.django_db
def test_a_match_migrated_counts_the_deletions_its_log_holds():
    """A late retry of a deal deleted before 0013 is still told it was deleted: the save
    looks among a match's deletions only if it counts some."""
    migration = importlib.import_module("matches.migrations.0013_count_deletions")
    twice, never = MatchFactory(), MatchFactory()
    for action in ("deal_recorded", "deal_deleted", "deal_recorded", "deal_deleted"):
        Change.objects.create(match=twice, action=action, deal_number=1, idempotency_key="k")
    Change.objects.create(match=never, action="deal_recorded", deal_number=1)
    Match.objects.update(deletions=0)  # as 0012 left every match
    migration.count_deletions(django_apps, None)
    counted = dict(Match.objects.values_list("pk", "deletions"))
    assert counted == {twice.pk: 2, never.pk: 0}


@pytest.mark.django_db(transaction=True)
def test_a_database_of_two_sides_in_columns_keeps_every_number_in_lists_and_back():
    """0015: what a match and a deal kept in a column per side, each in a list of the sides'
    numbers in order; migrated back, in the columns again."""
    before, after = ("matches", "0014_match_table_started"), ("matches", "0015_per_side_lists")
    executor = MigrationExecutor(connection)
    executor.migrate([before])
    old = executor.loader.project_state([before]).apps
    table = old.get_model("matches", "Table").objects.create(name="Bar", scorer_token="s",
                                                             viewer_token="v")  # fmt: skip
    columns = {"total_0": 30, "total_1": 12, "declarations_0": 2, "declarations_1": 1,
               "declared_0": 6, "declared_1": 3, "sweeps_0": 1, "sweeps_1": 0}  # fmt: skip
    match = old.get_model("matches", "Match").objects.create(table=table, deal_count=2,
                                                             **columns)  # fmt: skip
    deals = [
        {"card_points_0": 8, "card_points_1": 3, "declared_points_0": 3, "declared_points_1": 0,
         "points_0": 11, "points_1": 3},
        {"card_points_0": 0, "card_points_1": 11, "declared_points_0": 0, "declared_points_1": 3,
         "points_0": 0, "points_1": 14},
    ]  # fmt: skip
    for number, deal in enumerate(deals, start=1):
        old.get_model("matches", "Deal").objects.create(match=match, number=number, **deal)
    try:
        executor = MigrationExecutor(connection)
        executor.migrate([after])
        new = executor.loader.project_state([after]).apps
        moved = new.get_model("matches", "Match").objects.get(pk=match.pk)
        assert (moved.totals, moved.declarations, moved.declared, moved.sweeps) == (
            (30, 12),
            (2, 1),
            (6, 3),
            (1, 0),
        )
        kept = new.get_model("matches", "Deal").objects.filter(match=match.pk).order_by("number")
        assert [(d.card_points, d.declared_points, d.points) for d in kept] == [
            ((8, 3), (3, 0), (11, 3)),
            ((0, 11), (0, 3), (0, 14)),
        ]
        executor = MigrationExecutor(connection)
        executor.migrate([before])
        back = old.get_model("matches", "Match").objects.get(pk=match.pk)
        assert {name: getattr(back, name) for name in columns} == columns
        again = old.get_model("matches", "Deal").objects.filter(match=match.pk).order_by("number")
        assert [{name: getattr(d, name) for name in deals[0]} for d in again] == deals
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_a_database_of_tressette_matches_plays_tressette_after_0016_and_back():
    """0016: every match held before is a match of Tressette, its deals bid nothing, and
    every new check holds for them (a finished match, a sweep, a claim); migrated back, the
    same rows."""
    before, after = ("matches", "0015_per_side_lists"), ("matches", "0016_terziglio")
    executor = MigrationExecutor(connection)
    executor.migrate([before])
    old = executor.loader.project_state([before]).apps
    table = old.get_model("matches", "Table").objects.create(name="Bar", scorer_token="s",
                                                             viewer_token="v")  # fmt: skip
    match = old.get_model("matches", "Match").objects.create(
        table=table, deal_count=2, totals=[21, 14], status="finished", winner=0,
        end_reason="cappotto", finished_at=timezone.now(), declared=[0, 3],
        declarations=[0, 1], sweeps=[1, 0],
    )  # fmt: skip
    deal = old.get_model("matches", "Deal").objects
    deal.create(match=match, number=1, card_points=[0, 11], declared_points=[0, 3],
                points=[0, 14])  # fmt: skip
    deal.create(match=match, number=2, kind="cappotto", side=0, card_points=[11, 0],
                declared_points=[0, 0], points=[21, 0])  # fmt: skip
    try:
        executor = MigrationExecutor(connection)
        executor.migrate([after])
        new = executor.loader.project_state([after]).apps
        moved = new.get_model("matches", "Match").objects.get(pk=match.pk)
        assert (moved.game, moved.payment, moved.ends, moved.deals_agreed) == (
            "tressette",
            "",
            "",
            None,
        )
        bids = new.get_model("matches", "Deal").objects.filter(match=match.pk)
        assert sorted(bids.values_list("number", "bid")) == [(1, ""), (2, "")]
        executor = MigrationExecutor(connection)
        executor.migrate([before])
        back = old.get_model("matches", "Match").objects.get(pk=match.pk)
        assert (back.totals, back.winner, back.end_reason) == ((21, 14), 0, "cappotto")
        assert old.get_model("matches", "Deal").objects.filter(match=match.pk).count() == 2
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_a_database_of_tressette_and_terziglio_deals_keeps_each_deals_game_after_0019():
    """0017-0019: a deal keeps its match's game (its checks depend on it): those that name a bid
    are Terziglio's, the others Tressette's; every match plays as before, no one out."""
    before, after = ("matches", "0016_terziglio"), ("matches", "0019_deal_checks_by_game")
    executor = MigrationExecutor(connection)
    executor.migrate([before])
    old = executor.loader.project_state([before]).apps
    table = old.get_model("matches", "Table").objects.create(name="Bar", scorer_token="s",
                                                             viewer_token="v")  # fmt: skip
    matches, deals = old.get_model("matches", "Match").objects, old.get_model("matches", "Deal")
    four = matches.create(table=table, deal_count=1, totals=[6, 5])
    three = matches.create(table=table, game="terziglio", players_per_side=1, payment="difference",
                           ends="line", deal_count=2, totals=[2, -1, -1])  # fmt: skip
    deals.objects.create(match=four, number=1, card_points=[6, 5], declared_points=[0, 0],
                         points=[6, 5])  # fmt: skip
    deals.objects.create(match=three, number=1, bid="chiamo", side=0, card_points=[7],
                         declared_points=[], points=[2, -1, -1])  # fmt: skip
    deals.objects.create(match=three, number=2, bid="a_monte", card_points=[],
                         declared_points=[], points=[0, 0, 0])  # fmt: skip
    try:
        executor = MigrationExecutor(connection)
        executor.migrate([after])
        new = executor.loader.project_state([after]).apps
        games = new.get_model("matches", "Deal").objects.order_by("match", "number")
        assert list(games.values_list("match", "number", "game")) == [
            (four.pk, 1, "tressette"),
            (three.pk, 1, "terziglio"),
            (three.pk, 2, "terziglio"),
        ]
        kept = new.get_model("matches", "Match").objects.order_by("pk")
        assert list(kept.values_list("game", "fractions", "reversed_sweep", "out_after")) == [
            ("tressette", "", False, ()), ("terziglio", "", False, ())]  # fmt: skip
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
