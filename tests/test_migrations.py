"""The schema's migrations: the squashed one and those made since; and databases migrated
before the squash."""

import ast
from pathlib import Path

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

SQUASHED = ("matches", "0001_squashed_0009_match_declarations_allowed")
SINCE = ["0010_match_in_progress_revision", "0011_evening_and_sweeps_by_one"]
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
