"""On SQLite, writers queue for their turn instead of polling the database's lock."""

import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from django.db import connection, connections

from matches import db

pytestmark = pytest.mark.skipif(
    connection.vendor != "sqlite", reason="PostgreSQL writers lock rows instead"
)


def test_a_second_thread_waits_until_the_first_writer_is_done():
    order: list[str] = []
    inside, trying, release, entered = (threading.Event() for _ in range(4))

    def first():
        with db.one_writer():
            order.append("first in")
            inside.set()
            release.wait()
            order.append("first out")

    def second():
        inside.wait()
        trying.set()
        with db.one_writer():
            order.append("second in")
            entered.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    try:
        trying.wait()
        # A check that nothing happens: a busy machine can only make it pass, never fail.
        assert not entered.wait(0.2)
    finally:
        release.set()
        for thread in threads:
            thread.join()
    assert order == ["first in", "first out", "second in"]


def test_a_writer_in_another_process_is_waited_for():
    holder = (
        "import fcntl, sys\n"
        "f = open(sys.argv[1], 'a')\n"
        "fcntl.flock(f, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "sys.stdin.readline()\n"  # held until the test says so
    )
    other = subprocess.Popen(
        [sys.executable, "-c", holder, str(db._lock_path())],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    entered = threading.Event()

    def write():
        with db.one_writer():
            entered.set()

    writer = threading.Thread(target=write)
    try:
        assert other.stdout.readline().strip() == "held"
        writer.start()
        assert not entered.wait(0.2)  # a check that nothing happens, as above
        other.stdin.write("done\n")
        other.stdin.flush()
        writer.join()
        assert entered.is_set()
    finally:
        other.stdin.close()
        other.wait()


def _another_process_can_write() -> bool:
    """Whether another process could take the writers' lock right now (without waiting)."""
    probe = (
        "import fcntl, sys\n"
        "f = open(sys.argv[1], 'a')\n"
        "try:\n"
        "    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
        "except BlockingIOError:\n"
        "    sys.exit(1)\n"
    )
    return subprocess.run([sys.executable, "-c", probe, str(db._lock_path())]).returncode == 0


def test_a_nested_service_keeps_the_outer_writers_turn():
    with db.one_writer():
        with db.one_writer():  # rematch calls start_match, say: it must not wait for itself
            pass
        assert not _another_process_can_write()  # the outer service still holds its turn
    assert _another_process_can_write()


@pytest.mark.django_db
def test_the_servers_checkpoints_run_beside_the_writers_not_on_their_commits(tmp_path):
    """A connection made while the checkpointer runs never checkpoints on a commit; the log a
    writer leaves is copied into the database by the checkpointer's thread."""
    path = tmp_path / "db.sqlite3"
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE pages (page BLOB)")
    empty = path.stat().st_size
    stop = db.checkpoint_in_background(str(path), every=0.01)
    made = connections.create_connection("default")
    try:
        with made.cursor() as cursor:
            cursor.execute("PRAGMA wal_autocheckpoint")
            assert cursor.fetchone() == (0,)
        writer.executemany("INSERT INTO pages VALUES (?)", [(bytes(4000),)] * 50)
        deadline = time.monotonic() + 60  # the checkpointer wakes every 10 ms: ample, busy too
        while path.stat().st_size < empty + 50 * 4000 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert path.stat().st_size >= empty + 50 * 4000  # the 50 rows are in the database
    finally:
        made.close()
        stop()
        writer.close()
    after = connections.create_connection("default")
    with after.cursor() as cursor:
        cursor.execute("PRAGMA wal_autocheckpoint")
        assert cursor.fetchone() == (1000,)  # stopped: connections checkpoint as SQLite does
    after.close()
