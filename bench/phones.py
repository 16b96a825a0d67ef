"""Phones at tables, on one asyncio loop: thousands of them from one process (no thread waits
for the GIL), each keeping its connection while the server keeps it open, as a browser does;
each request timed from its first byte (a new connection's, if one is opened) to its answer's
last.

Two mixes (MIXES):
- the **evening**: 4 phones a table, each polling as the page does (every 3 s); about every
  2 minutes one of them enters the table's next deal; when the rules decide a match, a phone
  that sees it taps End match, then Rematch, and the others open the rematch from their sheet;
  now and then a phone leaves and another joins the table with its scorer link.
- the **stress** mix: each phone polls every 5 s and saves a deal about every 30 s, so every
  table changes every 7.5 s; a decided match is ended and the phones move on to the table's next
  seeded match.

Every save carries a fresh idempotency key and the deal number the phone last saw. Another
phone may have saved that deal first: the answer says so, and the phone goes on with the number
it is shown. One save in ten is sent again with the same key once answered, as a retry would.
"""

import asyncio
import html
import random
import re
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import urlencode, urlsplit

from client import token_in

HOST = "127.0.0.1"
RETRY = 0.1
TIMEOUT = 30.0  # seconds a request may take: then it counts as an error
# Phones a second that open their sheets before the measured run (over MIN_ARRIVAL seconds at
# least): an evening's tables do not all sit down in the same few seconds, and 2,000 sheets
# opened in 10 s would be 200 pages a second on two cores, not an evening.
ARRIVALS, MIN_ARRIVAL = 100, 10.0
# Seconds the phones play after the last one sat down, before the measured run: a load test's
# ramp-up, so that what is measured is the evening under way, not the backlog of 2,000 sheets
# opened in 20 s (which a real evening, its tables sitting down over an hour, never sees).
SETTLE = 10.0
NUMBER = re.compile(r'id="deal-number" value="(\d+)"')
SHOWN = re.compile(r'name="shown" value="(\d+)"')
ETAG = re.compile(r'data-etag="([^"]+)"')  # the page's, for its first poll (sheet.js)
APP_CPU = re.compile(r"\bapp;dur=([0-9.]+)")  # Server-Timing (settings.SERVER_TIMING)
REMATCH = re.compile(r'id="open-rematch" href="[^"]*/m/(\d+)/"')
SAVED = 'id="saved"'
CONFLICT = "was just entered on another phone"
DECIDED = "already decided"
REFUSAL = re.compile(r'(?:class="errorlist"[^>]*>\s*<li>|class="notice error"[^>]*>)([^<]+)')
DECLARED = [(0, 0)] * 8 + [(3, 0), (0, 3), (4, 0)]


@dataclass(frozen=True)
class Mix:
    name: str
    poll_every: float  # seconds between one phone's polls
    deal_every: float  # seconds between deals: a table's (evening) or each phone's (stress)
    per_table: bool  # one deal a table at a time (evening), or each phone saving (stress)
    rematch: bool  # a decided match is followed by a rematch, else the next seeded match
    leave_every: float = 0.0  # seconds between one phone leaving and another joining a table


MIXES = {
    "evening": Mix("evening", 3.0, 120.0, True, True, leave_every=120.0),
    "stress": Mix("stress", 5.0, 30.0, False, False),
}


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]  # lower-case names; Set-Cookie lines joined by "\n"
    body: bytes
    seconds: float

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


async def _body(reader: asyncio.StreamReader, status: int, headers: dict[str, str]) -> bytes:
    """The answer's body, read to its end as its headers give it (not to the connection's
    close, which a server may leave for its keep-alive timeout)."""
    if status in (204, 304) or 100 <= status < 200:
        return b""
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    if headers.get("transfer-encoding") != "chunked":
        return await reader.read(-1)
    body = bytearray()
    while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
        body += await reader.readexactly(size)
        await reader.readexactly(2)
    await reader.readuntil(b"\r\n")  # no trailers are sent
    return bytes(body)


class Closed(ConnectionError):
    """A kept connection the server had closed before this request: sent again on a new one."""


@dataclass
class Connection:
    """One phone's connection, kept while the server keeps it open (its keep-alive), as a
    browser keeps one: every request after the first finds it open if sent soon enough."""

    port: int
    streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
    busy: bool = False

    async def request(self, method: str, path: str, headers: dict[str, str], body: bytes):
        """Timed from the request's first byte (a new connection's, if one is opened) to the
        answer's last; a TimeoutError after TIMEOUT seconds."""
        start, self.busy = time.perf_counter(), True
        try:
            async with asyncio.timeout(TIMEOUT):
                try:
                    status, found, content = await self._exchange(method, path, headers, body)
                except Closed:
                    status, found, content = await self._exchange(method, path, headers, body)
        except BaseException:
            self.close()
            raise
        finally:
            self.busy = False
        if found.get("connection", "").lower() == "close":
            self.close()
        return Answer(status, found, content, time.perf_counter() - start)

    async def _exchange(self, method, path, headers, body):
        reused = self.streams is not None
        if self.streams is None:
            self.streams = await asyncio.open_connection(HOST, self.port)
        reader, writer = self.streams
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        try:
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
            await writer.drain()
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        except (ConnectionError, asyncio.IncompleteReadError) as error:
            self.close()
            nothing = not isinstance(error, asyncio.IncompleteReadError) or not error.partial
            if reused and nothing:
                raise Closed from error
            raise
        status_line, *header_lines = head.rstrip("\r\n").split("\r\n")
        status, found = int(status_line.split()[1]), {}
        for line in header_lines:
            name, _, value = line.partition(":")
            name, value = name.strip().lower(), value.strip()
            found[name] = f"{found[name]}\n{value}" if name in found else value
        return status, found, await _body(reader, status, found)

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


@dataclass
class Tally:
    """What all the phones saw, in one place (one loop: no lock needed)."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    outcomes: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    saves: list[dict] = field(default_factory=list)  # acknowledged: key, match, number
    sent: list[str] = field(default_factory=list)
    measured_from: float = float("inf")  # the warm-up's end: requests are timed from then
    cpu: list[tuple[float, float]] = field(default_factory=list)  # (when, the server's CPU s)
    late: list[asyncio.Task] = field(default_factory=list)  # phones that joined while playing
    lag: list[float] = field(default_factory=list)  # the loop's delays: the client's own share
    # The app's CPU ms for each answer (its Server-Timing), by kind; a poll's by its status too.
    app_cpu: dict[str, list[float]] = field(default_factory=dict)


@dataclass
class Table:
    """What the phones of one table know together: its links and the match being played."""

    viewer: str
    scorer: str
    matches: list[int]  # seeded, in order (the stress mix moves on through them)
    rematch: bool = True  # a decided match is followed by a rematch, else the next seeded
    index: int = 0
    phones: list["Seat"] = field(default_factory=list)

    @property
    def match(self) -> int | None:
        return self.matches[self.index] if self.index < len(self.matches) else None

    def move_to(self, match: int) -> None:
        if match not in self.matches:
            self.matches.append(match)
        self.index = max(self.index, self.matches.index(match))

    def leave(self, match: int | None) -> None:
        """Move on from `match` to the next seeded one (once, whichever phone sees it first)."""
        if match == self.match:
            self.index += 1


@dataclass
class Seat:
    """One phone at one table."""

    port: int
    table: Table
    tally: Tally
    rng: random.Random
    cookies: dict[str, str] = field(default_factory=dict)
    token: str = ""  # the CSRF token a page drew (its secret is in the session cookie)
    connection: Connection = field(init=False)
    match: int | None = None
    number: int | None = None
    shown: str = ""  # the revision the entry form was drawn at
    etag: str = ""
    leaving: bool = False

    def __post_init__(self) -> None:
        self.connection = Connection(self.port)

    @property
    def sheet(self) -> str:
        return f"/t/{self.table.viewer}/m/{self.match}/"

    async def call(self, kind: str, method: str, path: str, form=None, expected=(200,)):
        """One request of this phone, timed under `kind`; None when it failed (and was counted
        as an error). Not timed: None as `kind` (joining)."""
        headers = {"Accept-Language": "en"}
        if kind not in ("open", None):
            headers["HX-Request"] = "true"
        if kind == "poll" and self.etag:
            headers["If-None-Match"] = self.etag
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = b""
        if form is not None:
            body = urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if method == "POST":
            headers["X-CSRFToken"] = self.token
        # A second request while one is under way (the table's deal during a poll) goes on a
        # connection of its own, as a browser's would.
        connection = self.connection if not self.connection.busy else Connection(self.port)
        try:
            answer = await connection.request(method, path, headers, body)
        except (OSError, EOFError, ValueError, asyncio.LimitOverrunError) as error:
            self.tally.errors.append(f"{kind}: {error!r}")
            return None
        finally:
            if connection is not self.connection:
                connection.close()
        for line in answer.headers.get("set-cookie", "").split("\n"):
            for name, morsel in SimpleCookie(line).items():
                self.cookies[name] = morsel.value
        if kind in ("open", None) and (token := token_in(answer.text)):  # a whole page
            self.token = token
        if kind is not None and time.monotonic() - answer.seconds >= self.tally.measured_from:
            self.tally.seconds.setdefault(kind, []).append(answer.seconds)
            if found := APP_CPU.search(answer.headers.get("server-timing", "")):
                named = f"{kind} {answer.status}" if kind == "poll" else kind
                self.tally.app_cpu.setdefault(named, []).append(float(found[1]))
        if answer.status not in expected:
            self.tally.errors.append(f"{kind or 'join'}: HTTP {answer.status} {method} {path}")
            return None
        return answer

    async def join(self) -> bool:
        """Join the table through its scorer link, as a person does: open it, then confirm."""
        path = f"/join/{self.table.scorer}/"
        page = await self.call(None, "GET", path)
        done = page and await self.call(None, "POST", path, {"label": "bench"}, expected=(302,))
        return done is not None

    async def open(self) -> None:
        self.match, self.number, self.etag = self.table.match, None, ""
        if self.match is not None and (answer := await self.call("open", "GET", self.sheet)):
            found = ETAG.search(answer.text)
            self.etag = html.unescape(found.group(1)) if found else ""
            await self.read(answer)

    async def read(self, answer: Answer) -> None:
        """Take the next deal number from the sheet. A decided match is ended, then followed
        by a rematch (evening) or the table's next seeded match (stress)."""
        text = answer.text
        if (found := NUMBER.search(text)) is not None:  # the form of the next deal, or its number
            self.number = int(found.group(1))
            self.shown = shown.group(1) if (shown := SHOWN.search(text)) else ""
            return
        self.number = None
        if (rematch := REMATCH.search(text)) is not None:  # ended, and a rematch started
            self.table.move_to(int(rematch.group(1)))
        elif 'id="end-match"' in text:
            await self.call("end", "POST", self.sheet + "end")
            self.tally.outcomes["End match tapped"] += 1
            if self.table.rematch:
                await self.rematch()
            else:
                self.table.leave(self.match)
        elif not self.table.rematch:  # ended on another phone
            self.table.leave(self.match)
        if self.table.match != self.match:
            await self.open()

    async def rematch(self) -> None:
        answer = await self.call("rematch", "POST", self.sheet + "rematch", expected=(200, 302))
        where = answer and (answer.headers.get("hx-redirect") or answer.headers.get("location"))
        if where:
            self.tally.outcomes["Rematch tapped"] += 1
            self.table.move_to(int(urlsplit(where).path.rstrip("/").rsplit("/", 1)[1]))

    async def poll(self) -> None:
        if self.match != self.table.match:  # another phone opened the rematch: follow it
            await self.open()
            return
        path = f"{self.sheet}?poll=1&shown={self.shown}&number={self.number}&typing=0"
        answer = await self.call("poll", "GET", path, expected=(200, 304))
        if answer is None or answer.status == 304:
            return
        self.etag = answer.headers.get("etag", "")
        await self.read(answer)

    async def save(self) -> None:
        if self.number is None or self.match != self.table.match:
            return
        key = f"phone-{uuid.uuid4().hex}"
        first, declared = self.rng.randint(2, 9), self.rng.choice(DECLARED)
        form = {"number": self.number, "key": key, "kind": "normal", "card_points_0": first,
                "card_points_1": 11 - first, "declared_points_0": declared[0],
                "declared_points_1": declared[1], "typing": "0", "shown": self.shown,
                "drawn_blank": "1"}  # fmt: skip
        self.tally.sent.append(key)
        match, number = self.match, self.number
        answer = await self.call("save", "POST", self.sheet + "deals", form, expected=(200, 302))
        if answer is not None and answer.status == 302:  # saved: HTMX draws the sheet it names
            answer = await self.call("sheet after a save", "GET", answer.headers["location"])
        if answer is None:
            return
        text = answer.text
        if SAVED in text:
            outcome = "saved"
            self.tally.saves.append({"key": key, "match": match, "number": number})
        elif CONFLICT in text:
            outcome = "conflict"
        elif DECIDED in text or 'id="deal-form"' not in text:
            outcome = "refused, match already decided or ended"  # another phone was first
        else:
            found = REFUSAL.search(text)
            outcome = f"refused: {found.group(1).strip() if found else 'no message found'}"
        self.tally.outcomes[f"save {outcome}"] += 1
        if found := ETAG.search(text):  # the sheet drawn afresh: its polls name it (sheet.js)
            self.etag = html.unescape(found.group(1))
        if self.rng.random() < RETRY:
            again = await self.call("save", "POST", self.sheet + "deals", form, expected=(200, 302))
            if again is not None:
                self.tally.outcomes["save sent again"] += 1
        await self.read(answer)

    async def play(self, mix: Mix, until: float, arrive: float = 0.0) -> None:
        """Open the sheet within `arrive` seconds, then poll until `until` (or until this phone
        leaves); in the stress mix, save too."""
        try:
            await self._play(mix, until, arrive)
        finally:
            self.connection.close()

    async def _play(self, mix: Mix, until: float, arrive: float) -> None:
        now = time.monotonic()
        next_poll = now + self.rng.uniform(0, max(arrive, mix.poll_every))
        next_save = next_poll + self.rng.uniform(mix.poll_every, mix.deal_every)
        await asyncio.sleep(max(0.0, next_poll - time.monotonic()))
        await self.open()
        next_poll += mix.poll_every
        while not self.leaving and self.table.match is not None:
            event = next_poll if mix.per_table else min(next_poll, next_save)
            if event >= until:
                return
            await asyncio.sleep(max(0.0, event - time.monotonic()))
            if self.leaving:
                return
            if event == next_poll:
                await self.poll()
                next_poll += mix.poll_every
            else:
                await self.save()
                next_save += self.rng.uniform(mix.deal_every - 5, mix.deal_every + 5)


async def _dealer(table: Table, mix: Mix, rng: random.Random, until: float) -> None:
    """The evening's scorer: about every `deal_every` seconds a phone of the table enters the
    next deal."""
    next_deal = time.monotonic() + rng.uniform(0, mix.deal_every)
    while next_deal < until and table.match is not None:
        await asyncio.sleep(max(0.0, next_deal - time.monotonic()))
        present = [seat for seat in table.phones if not seat.leaving and seat.number]
        if present:
            await rng.choice(present).save()
        next_deal += rng.uniform(0.75 * mix.deal_every, 1.25 * mix.deal_every)


async def _churn(table: Table, mix: Mix, rng: random.Random, tally: Tally, until: float, port):
    """Now and then a phone leaves the table and another joins it."""
    while True:
        await asyncio.sleep(rng.expovariate(1 / mix.leave_every))
        if time.monotonic() >= until:
            return
        leaving = rng.choice([seat for seat in table.phones if not seat.leaving])
        leaving.leaving = True
        tally.outcomes["phone left"] += 1
        seat = Seat(port, table, tally, random.Random(rng.random()))
        if await seat.join():
            tally.outcomes["phone joined"] += 1
            table.phones.append(seat)
            tally.late.append(asyncio.get_running_loop().create_task(seat.play(mix, until)))


async def _watch_loop(tally: Tally, until: float) -> None:
    """How late the loop wakes a task that sleeps 10 ms: a request's time includes as much."""
    while (now := time.monotonic()) < until:
        await asyncio.sleep(0.01)
        if now >= tally.measured_from:
            tally.lag.append(time.monotonic() - now - 0.01)


async def _join_all(seats: list[Seat]) -> None:
    limit = asyncio.Semaphore(16)

    async def one(seat: Seat) -> None:
        async with limit:
            if not await seat.join():
                raise RuntimeError(f"a phone could not join: {seat.tally.errors[-1:]}")

    await asyncio.gather(*(one(seat) for seat in seats))


def tables_of(seeded: list[dict]) -> list[Table]:
    return [Table(t["viewer"], t["scorer"], list(t["matches"])) for t in seeded]


def run(
    port: int,
    tables: list[Table],
    per_table: int,
    seconds: float,
    mix: Mix,
    *,
    cpu: Callable[[], float] = lambda: 0.0,
) -> Tally:
    """Join `per_table` phones to each table (not timed); they arrive at their tables,
    ARRIVALS a second (not timed either), then play for `seconds`, timed. The same Table
    objects may be played again (a longer evening): they know their match. `cpu` reads the
    server's CPU seconds."""
    tally, rng = Tally(), random.Random(7)

    async def evening() -> None:
        for table in tables:
            table.rematch = mix.rematch
            table.phones = [
                Seat(port, table, tally, random.Random(rng.random())) for _ in range(per_table)
            ]
        seats = [seat for table in tables for seat in table.phones]
        await _join_all(seats)
        warm = max(MIN_ARRIVAL, len(seats) / ARRIVALS)
        loop = asyncio.get_running_loop()
        tally.measured_from = time.monotonic() + warm + SETTLE
        until = tally.measured_from + seconds
        loop.call_at(tally.measured_from, lambda: tally.cpu.append((time.monotonic(), cpu())))
        tasks = [seat.play(mix, until, warm) for table in tables for seat in table.phones]
        tasks.append(_watch_loop(tally, until))
        if mix.per_table:
            tasks += [_dealer(table, mix, random.Random(rng.random()), until) for table in tables]
        churn = []
        if mix.leave_every:
            churn = [loop.create_task(_churn(t, mix, random.Random(rng.random()), tally, until,
                                             port)) for t in tables]  # fmt: skip
        await asyncio.gather(*tasks)
        tally.cpu.append((time.monotonic(), cpu()))
        for task in churn:
            task.cancel()
        await asyncio.gather(*tally.late)

    asyncio.run(evening())
    return tally
