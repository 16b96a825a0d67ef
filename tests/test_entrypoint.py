"""bin/entrypoint, which both the Docker image and `make serve` run, outside Docker."""

import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import closing
from http.cookies import SimpleCookie
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.skipif("DATABASE_URL" in os.environ, reason="checks the SQLite default")
def test_the_entrypoint_migrates_and_serves_under_granian_with_access_logs(tmp_path):
    port = free_port()
    data = tmp_path / "data"  # made by the app, as on a fresh volume
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
        "DJANGO_SECRET_KEY": "entrypoint-test-secret-" + "k" * 40,
        "DJANGO_VAR_DIR": str(data),
        "DJANGO_CACHE_DIR": str(tmp_path / "cache"),  # not a folder in /dev/shm left behind
        "PORT": str(port),
        "PYTHON": sys.executable,
        "WEB_CONCURRENCY": "1",
    }
    server = subprocess.Popen(
        ["bin/entrypoint"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        status = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and status is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    status = r.status
            except OSError:
                time.sleep(0.3)
        assert status == 200
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as home:
            assert b"Tressette" in home.read()
        # A table's link in a request is a secret: the log keeps only its first characters.
        for path in ("/t/SeCrEtViewerToken123/", "/join/SeCrEtScorerToken456/"):
            with pytest.raises(urllib.error.HTTPError):
                urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5)
        # A client gone mid-body: refused in words, nothing stored (granian would pass the body
        # on as if it had ended).
        assert _cut_short_post(port, "/tables/new", b"name=Bar").startswith(b"HTTP/1.1 400 ")
        assert (data / "db.sqlite3").exists()  # migrated at start, on the volume
        assert (data / "db.sqlite3").stat().st_mode & 0o077 == 0  # this user's only
        assert data.stat().st_mode & 0o077 == 0
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0].decode()
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
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as home:
        cookies = SimpleCookie("\n".join(home.headers.get_all("Set-Cookie")))
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', home.read().decode())[1]
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Cookie: sessionid={cookies['sessionid'].value}\r\nX-CSRFToken: {token}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            "Content-Length: 1000\r\n\r\n")  # fmt: skip
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
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
        results = [(run.wait(timeout=120), run.stdout.read().decode()) for run in runs]
        assert [code for code, _ in results] == [0, 0, 0], results
    finally:
        if fresh:
            with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {fresh} WITH (FORCE)")
