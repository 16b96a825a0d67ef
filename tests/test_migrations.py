"""The schema's one migration, and databases migrated before it was squashed."""

import ast
from pathlib import Path

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

SQUASHED = ("matches", "0001_squashed_0009_match_declarations_allowed")
MIGRATIONS = Path(__file__).resolve().parent.parent / "matches" / "migrations"


@pytest.mark.parametrize("path", sorted(MIGRATIONS.glob("0*.py")), ids=lambda path: path.name)
def test_a_migration_imports_no_app_code_but_the_models_module(path):
    """What a migration does must not change when the app's code does."""
    tree = ast.parse(path.read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}  # fmt: skip
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert {name for name in imported if name.startswith("matches")} <= {"matches.models"}


def test_the_schema_is_one_migration():
    assert [path.name for path in MIGRATIONS.glob("0*.py")] == [f"{SQUASHED[1]}.py"]


@pytest.mark.django_db(transaction=True)
def test_a_database_migrated_to_0009_before_the_squash_has_nothing_to_run():
    """Such a database records the migrations the squashed one replaces (the first squash
    and 0002 to 0009), not it."""
    recorder = MigrationRecorder(connection)
    replaced = MigrationExecutor(connection).loader.disk_migrations[SQUASHED].replaces
    recorder.record_unapplied(*SQUASHED)
    for app, name in replaced:
        recorder.record_applied(app, name)
    try:
        executor = MigrationExecutor(connection)
        assert SQUASHED in executor.loader.applied_migrations
        assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []
    finally:
        for app, name in replaced:
            recorder.record_unapplied(app, name)
        recorder.record_applied(*SQUASHED)
