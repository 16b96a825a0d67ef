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

from matches.models import Change, Match
from tests.factories import MatchFactory

SQUASHED = ("matches", "0001_squashed_0009_match_declarations_allowed")
SINCE = [
    "0010_match_in_progress_revision",
    "0011_evening_and_sweeps_by_one",
    "0012_match_deletions",
    "0013_count_deletions",
    "0014_match_table_started",
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
        for app, name in replaced:
            recorder.record_unapplied(app, name)
        recorder.record_applied(*SQUASHED)
        for name in SINCE:
            recorder.record_applied(SQUASHED[0], name)


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
