"""bin/entrypoint, which both the Docker image and `make serve` run, outside Docker.

Each test starts it on a free port and waits for what the server says (its workers started,
its process ended), never for a number of seconds."""

import http.client
import os
import queue
import re
import signal
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
from urllib.parse import urlencode

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

    def kill(self, pid: int) -> None:
        """Kills a worker of this server as the kernel's out-of-memory killer would."""
        parent = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
        assert int(parent) == self.process.pid, "not this server's worker"
        os.kill(pid, signal.SIGKILL)

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


class Phone:
    """A phone at the server as a browser is: its session cookie, and the token its page gave
    sent with each form. Each request on a connection of its own."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie = ""
        page = self.send("GET", "/")[2].decode()
        self.token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]

    def send(self, method: str, path: str, form: dict | None = None) -> tuple[int, str, bytes]:
        """The answer's status, where it redirects to, and its body."""
        headers = {"Cookie": self.cookie, "Connection": "close"}
        body = None
        if form is not None:
            body = urlencode(form)
            headers.update({"Content-Type": "application/x-www-form-urlencoded",
                            "X-CSRFToken": self.token})  # fmt: skip
        client = http.client.HTTPConnection("127.0.0.1", self.port, timeout=HANG_GUARD)
        try:
            client.request(method, path, body, headers)
            answer = client.getresponse()
            content = answer.read()
        finally:
            client.close()
        for cookie in answer.headers.get_all("Set-Cookie") or ():
            self.cookie = f"sessionid={SimpleCookie(cookie)['sessionid'].value}"
        return answer.status, answer.getheader("Location", ""), content

    def start_match(self) -> str:
        """A table of its own and a match in it, line 101; where its deals are saved."""
        status, table, _ = self.send("POST", "/tables/new", {"name": "Bar"})
        assert status == 302, table
        new_match = {"players_per_side": "1", "player_0": "Ann", "player_1": "Bo", "line": "101",
                     "tie_rule": "higher_total", "first_dealer": "1"}  # fmt: skip
        status, match, _ = self.send("POST", table.split("?")[0] + "matches/new", new_match)
        assert status == 302, match
        return match + "deals"

    def save(self, url: str, number: int) -> tuple[int, str]:
        """Deal `number` sent until an answer comes back, as the sheet's script sends it again
        after a connection lost: under the same idempotency key."""
        deal = {"number": number, "key": deal_key(url, number), "kind": "normal",
                "card_points_0": 5 + number % 2, "card_points_1": 6 - number % 2,
                "declared_points_0": 0, "declared_points_1": 0}  # fmt: skip
        for _try in range(20):
            try:
                return self.send("POST", url, deal)[:2]
            except (OSError, http.client.HTTPException):
                continue  # the worker answering it was killed
        raise AssertionError(f"deal {number}: no answer in 20 tries")


def deal_key(url: str, number: int) -> str:
    return f"deal-{number}-of-match-{match_id(url)}"


def match_id(url: str) -> int:
    return int(re.search(r"/m/(\d+)/", url)[1])


@pytest.mark.skipif("DATABASE_URL" in os.environ, reason="reads the SQLite file")
def test_a_worker_killed_during_saves_is_replaced_and_every_acknowledged_save_is_stored_once(
    tmp_path,
):
    saves = 12  # each phone's; at line 101 no side reaches it
    server = Server(tmp_path, workers=2)
    try:
        workers = server.ready()
        phones = [Phone(server.port) for _ in range(2)]
        urls = [phone.start_match() for phone in phones]
        answers: list[list[tuple[int, str]]] = [[], []]
        failures: list[BaseException] = []
        some_saved = threading.Event()

        def keep_saving(phone: Phone, url: str, answered: list) -> None:
            try:
                for number in range(1, saves + 1):
                    answered.append(phone.save(url, number))
                    if sum(map(len, answers)) >= 4:
                        some_saved.set()
            except BaseException as error:
                failures.append(error)
                some_saved.set()

        savers = [
            threading.Thread(target=keep_saving, args=(phone, url, answered))
            for phone, url, answered in zip(phones, urls, answers, strict=True)
        ]
        for saver in savers:
            saver.start()
        assert some_saved.wait(timeout=HANG_GUARD)
        server.kill(workers[1])  # while the phones go on saving
        server.wait_for(r"Unexpected exit from worker-1")
        replaced = int(server.wait_for(r"Spawning worker-1 with PID: (\d+)")[1])
        server.wait_for(r"Started worker-1")
        for saver in savers:
            saver.join(timeout=HANG_GUARD)
        assert failures == []
        assert replaced != workers[1]
        healthz = f"http://127.0.0.1:{server.port}/healthz"
        with urllib.request.urlopen(healthz, timeout=HANG_GUARD) as health:
            assert health.status == 200
        assert server.process.poll() is None
    finally:
        log = server.stop()
    stored = {}
    with closing(sqlite3.connect(server.data / "db.sqlite3")) as db:
        for match, number, key, cards in db.execute(
            "SELECT match_id, number, idempotency_key, card_points ->> 0 FROM matches_deal"
        ):
            stored.setdefault(match, []).append((number, key, cards))
    for url, answered in zip(urls, answers, strict=True):
        assert len(answered) == saves
        sheet = re.escape(url.removesuffix("deals"))
        for number, (status, location) in enumerate(answered, start=1):
            assert status == 302 and re.fullmatch(rf"{sheet}\?saved={number}(&at=\d+)?", location)
        sent = [(n, deal_key(url, n), 5 + n % 2) for n in range(1, saves + 1)]
        assert sorted(stored.pop(match_id(url))) == sent, log  # each once, as sent
    assert stored == {}
    assert "Worker crash loop" not in log


def test_a_worker_that_dies_again_once_replaced_stops_the_server_saying_so(tmp_path):
    """A crash loop: the server exits with a failure, for the container to be started again."""
    server = Server(tmp_path, workers=2)
    try:
        server.kill(server.ready()[1])
        for _kill in range(10):  # each new worker-1 killed as it is spawned, until granian stops
            spawned = server.wait_for(r"Spawning worker-1 with PID: (\d+)|crash loop detected")
            if spawned[1] is None:
                break
            server.kill(int(spawned[1]))
        status = server.process.wait(timeout=HANG_GUARD)
    finally:
        log = server.stop()
    assert status == 1
    assert "[ERROR] Worker crash loop detected, exiting" in log
