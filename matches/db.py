"""How a service opens its write transaction: `@atomic`.

On SQLite one writer at a time holds the database; the others poll its lock with growing
sleeps (1, 2, 5 ... 100 ms), so under load a save can wait most of a second for a lock freed
long before. Here writers queue instead: on a thread lock within a process and on an flock
of a file beside the database between processes, so the next writer goes in the moment the
last one commits. PostgreSQL takes row locks (see services._lock) and needs none of this.

Only services queue here. Any other write transaction (a management command outside the
services, a shell) waits for SQLite's lock the old way: keep such transactions short.

`insert` and `update` write one row of plain values as Model.save and QuerySet.update do,
without their compiler: a save writes three rows, which through the ORM cost it 2.2 ms of
Python in process, and so 0.8 ms (their SQL about 0.3 ms).

`migration_lock` makes processes migrating at once (replicas starting together) take turns.
`checkpoint_in_background` keeps SQLite's checkpoints out of the writers' turns, in the server.
"""

import fcntl
import functools
import logging
import os
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, models, transaction
from django.db.backends.signals import connection_created

logger = logging.getLogger(__name__)

_in_process = threading.RLock()
_held = 0  # how deep the thread holding _in_process is in nested services
_lock_files: dict[tuple[int, str], object] = {}  # by process and database


def sqlite_file(settings_dict: dict) -> str | None:
    """The file a SQLite database lives in; None for another database, or one in memory
    (which lives in one process)."""
    name = str(settings_dict["NAME"])
    if "sqlite3" not in settings_dict["ENGINE"] or name == ":memory:" or "mode=memory" in name:
        return None
    return name.removeprefix("file:").split("?", 1)[0]


def _lock_path() -> Path | None:
    path = sqlite_file(connection.settings_dict)
    return None if path is None else Path(f"{path}.writers.lock")


def _lock_file():
    """This process's handle on the lock file beside its SQLite database (a forked worker
    opens its own), opened once: finding it again costs a save 10 µs."""
    key = (os.getpid(), str(connection.settings_dict["NAME"]))
    if key not in _lock_files:
        path = _lock_path()
        _lock_files[key] = None if path is None else open(path, "a")  # noqa: SIM115 (kept open)
    return _lock_files[key]


@contextmanager
def one_writer():
    """Wait for this process's and then the other processes' writers, on SQLite only."""
    global _held
    if connection.vendor != "sqlite":
        yield
        return
    with _in_process:
        file = _lock_file() if _held == 0 else None
        if file is not None:
            fcntl.flock(file, fcntl.LOCK_EX)
        _held += 1
        try:
            yield
        finally:
            _held -= 1
            if file is not None:
                fcntl.flock(file, fcntl.LOCK_UN)


def insert(row: models.Model) -> None:
    """`row.save(force_insert=True)` of a new row of plain values, with the values the ORM
    gives (`get_db_prep_save`) and no signal sent (the app has no receiver); its id is set."""
    if row.pk is not None:
        raise ValueError(f"{row!r} has an id: insert writes new rows only")
    database = connections[DEFAULT_DB_ALIAS]
    statement, fields = _insert_statement(type(row), database.vendor)
    values = [_prepared(database, field, field.pre_save(row, True), as_is)
              for field, as_is in fields]  # fmt: skip
    with database.cursor() as cursor:
        cursor.execute(statement, values)
        row.pk = cursor.fetchone()[0]
    row._state.adding, row._state.db = False, database.alias


def update(model: type[models.Model], where: dict, values: dict) -> int:
    """`model.objects.filter(**where).update(**values)` of plain values, `where` equalities
    to values other than None: the number of rows changed."""
    if not where or None in where.values():
        raise ValueError("update matches rows by equalities to values other than None")
    database = connections[DEFAULT_DB_ALIAS]
    statement, sets, matched = _update_statement(model, tuple(values), tuple(where),
                                                 database.vendor)  # fmt: skip
    params = [_prepared(database, field, value, as_is)
              for (field, as_is), value in zip(sets, values.values(), strict=True)]  # fmt: skip
    for (field, _), value in zip(matched, where.values(), strict=True):
        params.append(field.get_db_prep_value(value, database))
    with database.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.rowcount


# Each statement is built once per model and names (and database, which quotes them), with
# its columns' fields, each paired with the type of value it takes as it is (see _AS_IS). The
# values are prepared with the thread's connection itself: through `django.db.connection`, a
# proxy, each field's every look at it (`connection.ops`) costs a context-local lookup.

type Columns = list[tuple[models.Field, type | None]]


@functools.cache
def _insert_statement(model: type[models.Model], vendor: str) -> tuple[str, Columns]:
    meta, quote = model._meta, connection.ops.quote_name
    fields = [field for field in meta.local_concrete_fields if field is not meta.auto_field]
    statement = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)})"
        f" VALUES ({', '.join(['%s'] * len(fields))}) RETURNING {quote(meta.pk.column)}"
    )
    return statement, _columns(fields)


@functools.cache
def _update_statement(
    model: type[models.Model], names: tuple[str, ...], where: tuple[str, ...], vendor: str
) -> tuple[str, Columns, Columns]:
    meta, quote = model._meta, connection.ops.quote_name
    sets, matched = [_field(meta, name) for name in names], [_field(meta, name) for name in where]
    statement = (
        f"UPDATE {quote(meta.db_table)}"
        f" SET {', '.join(f'{quote(field.column)} = %s' for field in sets)}"
        f" WHERE {' AND '.join(f'{quote(field.column)} = %s' for field in matched)}"
    )
    return statement, _columns(sets), _columns(matched)


def _field(meta, name: str) -> models.Field:
    return meta.pk if name == "pk" else meta.get_field(name)


# The type of value each kind of column takes as it is: the ORM prepares an int for an integer
# column, a str for a text one and None for either into the value itself, at some cost (a
# save's 30 values through `get_db_prep_save` took 0.08 ms of its 1.36 ms in process).
_INTEGERS = ("AutoField", "BigAutoField", "IntegerField", "BigIntegerField",
             "SmallIntegerField", "PositiveIntegerField", "PositiveSmallIntegerField",
             "PositiveBigIntegerField")  # fmt: skip
_AS_IS = {**dict.fromkeys(_INTEGERS, int), "CharField": str, "TextField": str}


def _columns(fields: list[models.Field]) -> Columns:
    """Each field with the type it takes as it is; a key's, its target's (the related id)."""
    return [(field, _AS_IS.get((field.target_field if field.is_relation else field)
                               .get_internal_type())) for field in fields]  # fmt: skip


def _prepared(database, field: models.Field, value, as_is: type | None):
    """The value as the ORM writes it; a row stands for its key, as the ORM checks it."""
    if type(value) is as_is or (value is None and as_is is not None):
        return value
    if hasattr(value, "resolve_expression"):
        raise TypeError(f"{field.name}: {value!r} is an expression, not a plain value")
    if isinstance(value, models.Model):
        value = value.prepare_database_save(field)
    return field.get_db_prep_save(value, database)


# pg_advisory_lock's key for migrations: any number no other code here locks.
_MIGRATING = 20_261_130


@contextmanager
def migration_lock(alias: str = "default"):
    """One process migrates the database at a time; the others wait, then find nothing to do.

    Every app server migrates as it starts (bin/entrypoint): replicas starting together would
    otherwise create the same tables at once, and all but one fail. PostgreSQL takes an
    advisory lock; SQLite, whose processes share one machine, a flock beside the file.
    """
    database = connections[alias]
    if database.vendor == "postgresql":
        with database.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [_MIGRATING])
        try:
            yield
        finally:
            with database.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [_MIGRATING])
        return
    path = sqlite_file(database.settings_dict)
    if path is None:
        yield
        return
    with open(f"{path}.migrate.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield


def atomic(service):
    """`transaction.atomic`, entered once it is this writer's turn."""

    @functools.wraps(service)
    def run(*args, **kwargs):
        with one_writer(), transaction.atomic():
            return service(*args, **kwargs)

    return run


CHECKPOINT_EVERY = 1.0  # seconds


def checkpoint_in_background(path: str | None = None, every: float = CHECKPOINT_EVERY):
    """On a SQLite file, copy the write-ahead log into the database from a thread of this
    process, every `every` seconds, and never on a commit. Returns what stops it (the tests').

    SQLite checkpoints (with an fsync) on the commit that takes the log past 1,000 pages:
    within that writer's turn, so every save queued behind it waited. Measured with the stress
    mix at 1,000 phones on the benchmark's database: p99 155 ms so, 62 ms from a thread. The
    server calls this as each process starts (scoresheet/wsgi.py); a management command or a
    test process checkpoints the usual way."""
    path = path or sqlite_file(settings.DATABASES["default"])
    if path is None:
        return None
    connection_created.connect(_no_checkpoint_on_commit, dispatch_uid="no-checkpoint")
    stopped = threading.Event()
    thread = threading.Thread(target=_checkpoints, args=(path, every, stopped), daemon=True)
    thread.start()

    def stop() -> None:
        connection_created.disconnect(dispatch_uid="no-checkpoint")
        stopped.set()
        thread.join()

    return stop


def _no_checkpoint_on_commit(sender, connection, **kwargs) -> None:
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA wal_autocheckpoint=0")


def _checkpoints(path: str, every: float, stopped: threading.Event) -> None:
    """PASSIVE: as much of the log as no reader still needs, waiting for no one (the log is
    reused from its start once all of it is in the database)."""
    database = sqlite3.connect(path, timeout=5, isolation_level=None)
    while not stopped.wait(every):
        try:
            database.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error:
            logger.warning("SQLite checkpoint failed; tried again in a moment", exc_info=True)
    database.close()
