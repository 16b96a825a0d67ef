"""bin/entrypoint, which both the Docker image and `make serve` run, outside Docker.

Each test starts it on a free port and waits for what the server says (its workers started,
its process ended), never for a number of seconds."""

import os
import queue
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from contextlib import closing
from http.cookies import SimpleCookie
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Only a server that hangs meets it: a busy machine starts one in far less.
HANG_GUARD = 300  # seconds


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """bin/entrypoint serving a folder of its own on a free port, its output read as it comes."""

    def __init__(self, tmp_path: Path, *, workers: int) -> None:
        self.port = free_port()
        self.workers = workers
        self.data = tmp_path / "data"  # made by the app, as on a fresh volume
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
            "DJANGO_SECRET_KEY": "entrypoint-test-secret-" + "k" * 40,
            "DJANGO_VAR_DIR": str(self.data),
            "DJANGO_CACHE_DIR": str(tmp_path / "cache"),  # not a folder in /dev/shm left behind
            "PORT": str(self.port),
            "PYTHON": sys.executable,
            "WEB_CONCURRENCY": str(workers),
        }
        self.process = subprocess.Popen(
            ["bin/entrypoint"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._output: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self._output.append(line)
            self._lines.put(line)
        self._lines.put(None)

    @property
    def log(self) -> str:
        return "".join(self._output)

    def next_line(self) -> str:
        """The next line the server writes, once it writes it."""
        try:
            line = self._lines.get(timeout=HANG_GUARD)
        except queue.Empty:
            raise AssertionError(f"The server hangs:\n{self.log}") from None
        if line is None:
            self._lines.put(None)
            raise AssertionError(f"The server ended ({self.process.wait()}):\n{self.log}")
        return line

    def wait_for(self, pattern: str) -> re.Match:
        while not (found := re.search(pattern, self.next_line())):
            pass
        return found

    def ready(self) -> dict[int, int]:
        """Once every worker has started (the app loaded, taking requests): their process ids,
        by number."""
        pids, started = {}, set()
        while len(started) < self.workers:
            line = self.next_line()
            if spawned := re.search(r"Spawning worker-(\d+) with PID: (\d+)", line):
                pids[int(spawned[1])] = int(spawned[2])
            elif begun := re.search(r"Started worker-(\d+)", line):
                started.add(begun[1])
        return pids

    def stop(self) -> str:
        """Stops the server (if it still runs); all it wrote."""
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(timeout=HANG_GUARD)
        self._reader.join(timeout=HANG_GUARD)
        return self.log


@pytest.mark.skipif("DATABASE_URL" in os.environ, reason="checks the SQLite default")
def test_the_entrypoint_migrates_and_serves_under_granian_with_access_logs(tmp_path):
    server = Server(tmp_path, workers=1)
    port, data = server.port, server.data
    try:
        server.ready()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=HANG_GUARD) as r:
            assert r.status == 200
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=HANG_GUARD) as home:
            assert b"Tressette" in home.read()
        # A table's link in a request is a secret: the log keeps only its first characters.
        for path in ("/t/SeCrEtViewerToken123/", "/join/SeCrEtScorerToken456/"):
            with pytest.raises(urllib.error.HTTPError):
                urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=HANG_GUARD)
        # A client gone mid-body: refused in words, nothing stored (granian would pass the body
        # on as if it had ended).
        assert _cut_short_post(port, "/tables/new", b"name=Bar").startswith(b"HTTP/1.1 400 ")
        assert (data / "db.sqlite3").exists()  # migrated at start, on the volume
        assert (data / "db.sqlite3").stat().st_mode & 0o077 == 0  # this user's only
        assert data.stat().st_mode & 0o077 == 0
    finally:
        output = server.stop()
    assert '"GET /healthz HTTP/1.1" 200' in output
    assert "ms" in output.split('"GET / HTTP/1.1" 200', 1)[1].splitlines()[0]
    # Each request's line says when, with its offset, as every other line does.
    home_line = next(line for line in output.splitlines() if '"GET / HTTP/1.1" 200' in line)
    assert re.match(r"\[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\] ", home_line)
    assert "entrypoint-test-secret" not in output
    assert '"GET /t/SeCr…/ HTTP/1.1" 404' in output
    assert '"GET /join/SeCr…/ HTTP/1.1" 404' in output
    assert "ViewerToken" not in output and "ScorerToken" not in output
    with closing(sqlite3.connect(data / "db.sqlite3")) as db:
        assert db.execute("SELECT count(*) FROM matches_table").fetchone() == (0,)


def _cut_short_post(port: int, path: str, sent: bytes) -> bytes:
    """A form POST saying 1,000 bytes whose sender stops after `sent` and waits for the answer,
    sent as a page's script sends it: the session cookie, and the page's token in a header."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=HANG_GUARD) as home:
        cookies = SimpleCookie("\n".join(home.headers.get_all("Set-Cookie")))
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', home.read().decode())[1]
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Cookie: sessionid={cookies['sessionid'].value}\r\nX-CSRFToken: {token}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            "Content-Length: 1000\r\n\r\n")  # fmt: skip
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as client:
        client.sendall(head.encode() + sent)
        client.shutdown(socket.SHUT_WR)
        return client.recv(100)


def test_servers_starting_together_migrate_in_turn(tmp_path):
    # bin/entrypoint migrates on every start: three replicas at once must all come up.
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
        "DJANGO_SECRET_KEY": "migrate-test-secret-" + "k" * 40,
        "DJANGO_VAR_DIR": str(tmp_path),
        "DJANGO_CACHE_DIR": str(tmp_path / "cache"),
    }
    fresh = None
    if "DATABASE_URL" in os.environ:
        import psycopg

        fresh = f"migrate_race_{os.getpid()}"
        with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {fresh}")
            admin.execute(f"CREATE DATABASE {fresh}")
        env["DATABASE_URL"] = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/" + fresh
    try:
        runs = [
            subprocess.Popen(
                [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            for _ in range(3)
        ]
        results = [(run.wait(timeout=HANG_GUARD), run.stdout.read().decode()) for run in runs]
        assert [code for code, _ in results] == [0, 0, 0], results
    finally:
        if fresh:
            with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {fresh} WITH (FORCE)")
