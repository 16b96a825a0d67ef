"""How a service opens its write transaction: `@atomic`.

On SQLite one writer at a time holds the database; the others poll its lock with growing
sleeps, so under load a save can wait long for a lock freed long before. Here writers queue
instead: on a thread lock within a process and on an flock of a file beside the database
between processes, so the next writer goes in the moment the last one commits. PostgreSQL
takes row locks (see services._lock) and needs none of this.

Only services queue here. Any other write transaction (a management command outside the
services, a shell) waits for SQLite's lock the old way: keep such transactions short.

Everything else the app reads and writes goes through the ORM; this module holds only what
Django has no word for (advisory locks, flocks, PRAGMAs, checkpoints).

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
from django.db import connection, connections, transaction
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
    opens its own), opened once and kept."""
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
    within that writer's turn, so every save queued behind it waited (docs/performance.md has
    the figures). The server calls this as each process starts (scoresheet/wsgi.py); a
    management command or a test process checkpoints the usual way."""
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
