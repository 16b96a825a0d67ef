"""Phones at tables: each polls its table's sheet and now and then saves a deal.

A phone opens the sheet, then polls it every POLL_EVERY seconds with the ETag of its last
answer (an unchanged sheet answers 304) and saves a deal about every SAVE_EVERY seconds with a
fresh idempotency key and the deal number it last saw. Another phone may have saved that deal
first: the answer says so, and the phone moves on with the number it is shown. One save in ten
is sent again with the same key once answered, as a retry would. When the rules decide the
match, a phone that sees it taps End match and every phone moves on to the table's next match.
"""

import random
import re
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from client import Answer, Phone

POLL_EVERY = 5.0
SAVE_EVERY = 30.0
RETRY = 0.1
NUMBER = re.compile(r'id="deal-number" value="(\d+)"')
SAVED = 'id="saved"'
CONFLICT = "was just entered on another phone"
DECIDED = "already decided"
REFUSAL = re.compile(r'(?:class="errorlist"[^>]*>\s*<li>|class="notice error"[^>]*>)([^<]+)')
DECLARED = [(0, 0)] * 8 + [(3, 0), (0, 3), (4, 0)]


@dataclass
class Tally:
    """What all the phones saw, in one place."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    seconds: dict[str, list[float]] = field(default_factory=dict)
    outcomes: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    saves: list[dict] = field(default_factory=list)  # acknowledged: key, match, number
    sent: list[str] = field(default_factory=list)

    def answer(self, kind: str, answer: Answer, expected: tuple[int, ...] = (200,)) -> bool:
        with self.lock:
            self.seconds.setdefault(kind, []).append(answer.seconds)
            if answer.status not in expected:
                self.errors.append(f"{kind}: HTTP {answer.status}")
                return False
        return True

    def count(self, outcome: str) -> None:
        with self.lock:
            self.outcomes[outcome] += 1

    def error(self, message: str) -> None:
        with self.lock:
            self.errors.append(message)

    def send(self, key: str) -> None:
        with self.lock:
            self.sent.append(key)

    def acknowledge(self, key: str, match: int, number: int) -> None:
        with self.lock:
            self.saves.append({"key": key, "match": match, "number": number})


@dataclass
class Seat:
    """One phone at one table, working through the table's matches in order."""

    phone: Phone
    viewer: str
    matches: list[int]
    tally: Tally
    rng: random.Random
    index: int = 0
    number: int | None = None
    etag: str = ""

    @property
    def sheet(self) -> str:
        return f"/t/{self.viewer}/m/{self.matches[self.index]}/"

    def call(
        self, kind: str, method: str, path: str, form: dict | None = None, expected=(200,)
    ) -> Answer | None:
        """One request of this phone; None when it failed (and was counted as an error)."""
        headers = {"HX-Request": "true"} if kind != "open" else {}
        if kind == "poll" and self.etag:
            headers["If-None-Match"] = self.etag
        try:
            answer = self.phone.request(method, path, headers=headers, form=form)
        except OSError as error:
            self.tally.error(f"{kind}: {error!r}")
            return None
        return answer if self.tally.answer(kind, answer, expected) else None

    def read(self, answer: Answer) -> None:
        """Take the next deal number from a sheet; a decided match is ended and left."""
        found = NUMBER.search(answer.text)
        if 'id="deal-form"' in answer.text and found:
            self.number = int(found.group(1))
            return
        if 'id="end-match"' in answer.text:
            self.call("end", "POST", self.sheet + "end")
            self.tally.count("End match tapped")
        self.next_match()

    def next_match(self) -> None:
        self.index, self.number, self.etag = self.index + 1, None, ""
        if self.index >= len(self.matches):
            self.tally.count("phone out of matches")
            return
        self.open()

    def open(self) -> None:
        answer = self.call("open", "GET", self.sheet)
        if answer is not None:
            self.read(answer)

    def poll(self) -> None:
        path = f"{self.sheet}?poll=1&number={self.number}&typing=0"
        answer = self.call("poll", "GET", path, expected=(200, 304))
        if answer is None or answer.status == 304:
            return
        self.etag = answer.headers.get("etag", "")
        self.read(answer)

    def save(self) -> None:
        assert self.number is not None
        key = f"phone-{uuid.uuid4().hex}"
        first = self.rng.randint(2, 9)
        declared = self.rng.choice(DECLARED)
        form = {
            "number": self.number,
            "key": key,
            "kind": "normal",
            "card_points_0": first,
            "card_points_1": 11 - first,
            "declared_points_0": declared[0],
            "declared_points_1": declared[1],
            "typing": "0",
        }
        self.tally.send(key)
        answer = self.call("save", "POST", self.sheet + "deals", form)
        if answer is None:
            return
        if SAVED in answer.text:
            outcome = "saved"
            self.tally.acknowledge(key, self.matches[self.index], self.number)
        elif CONFLICT in answer.text:
            outcome = "conflict"
        elif DECIDED in answer.text or 'id="deal-form"' not in answer.text:
            # Another phone decided or ended the match first (the answer shows it, no form).
            outcome = "refused, match already decided or ended"
        else:
            found = REFUSAL.search(answer.text)
            outcome = f"refused: {found.group(1).strip() if found else 'no message found'}"
        self.tally.count(f"save {outcome}")
        if self.rng.random() < RETRY:
            again = self.call("save", "POST", self.sheet + "deals", form)
            if again is not None:
                self.tally.count("save sent again")
        self.read(answer)

    def run(self, start: float, until: float) -> None:
        next_poll = start + self.rng.uniform(0, POLL_EVERY)
        next_save = start + self.rng.uniform(POLL_EVERY, SAVE_EVERY)
        time.sleep(max(0.0, next_poll - time.monotonic()))
        self.open()
        next_poll += POLL_EVERY
        while self.index < len(self.matches):
            event = min(next_poll, next_save)
            if event >= until:
                return
            time.sleep(max(0.0, event - time.monotonic()))
            if event == next_save:
                if self.number is not None:
                    self.save()
                next_save += self.rng.uniform(SAVE_EVERY - 5, SAVE_EVERY + 5)
            else:
                self.poll()
                next_poll += POLL_EVERY


def run(port: int, tables: list[dict], per_table: int, seconds: float) -> Tally:
    """Join every phone to its table (not timed), then let them play for `seconds`."""
    tally = Tally()
    rng = random.Random(7)
    seats = [
        Seat(Phone(port), table["viewer"], table["matches"], tally, random.Random(rng.random()))
        for table in tables
        for _ in range(per_table)
    ]
    scorer = {table["viewer"]: table["scorer"] for table in tables}
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda seat: seat.phone.join(scorer[seat.viewer]), seats))
    start = time.monotonic()
    threads = [
        threading.Thread(target=seat.run, args=(start, start + seconds), daemon=True)
        for seat in seats
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 60)
    return tally
