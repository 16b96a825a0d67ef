"""docs/performance.md, and the summary printed at the end of `make bench`."""

import time


def _table(head: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _ms(value: float) -> str:
    return f"{value:.2f}"


def _budgets(found) -> str:
    rows = [[c.backend, c.what, c.detail, "pass" if c.passed else "**MISSED**"] for c in found]
    return _table(["database", "budget", "measured", ""], rows)


def _latency(rows: list[dict]) -> str:
    head = ["view", "what", "requests/s", "p50 ms", "p99 ms", "floor p50 ms", "p50 / floor"]
    head += ["every round", "budget", "server CPU ms/request"]
    return _table(
        head,
        [
            [
                r["name"],
                r["shows"],
                f"{r['per_second']:,.0f}",
                _ms(r["p50_ms"]),
                _ms(r["p99_ms"]),
                _ms(r["floor_p50_ms"]),
                f"{r['ratio']:.2f}x",
                " ".join(f"{ratio:.2f}x" for ratio in r.get("ratios", [])),
                f"<= {r['budget']}x" if r["budget"] else "",
                f"{r['server_cpu_ms']:.2f}" if "server_cpu_ms" in r else "",
            ]
            for r in rows
        ],
    )


def _spreads(kinds: dict[str, dict], every: dict) -> str:
    rows = [[kind, s["requests"], _ms(s["p50_ms"]), _ms(s["p99_ms"]), _ms(s["max_ms"])]
            for kind, s in [*kinds.items(), ("**all**", every)]]  # fmt: skip
    return _table(["request", "count", "p50 ms", "p99 ms", "max ms"], rows)


def _app_cpu(kinds: dict[str, tuple[int, float]]) -> str:
    total = sum(ms for _, ms in kinds.values()) or 1.0
    rows = [[kind, count, f"{ms / max(1, count):.2f}", f"{100 * ms / total:.0f}%"]
            for kind, (count, ms) in kinds.items()]  # fmt: skip
    return _table(["request", "count", "app CPU ms/request", "share of the app's CPU"], rows)


def _knee(runs: list[dict], knee_ms: float) -> str:
    below = [run["phones"] for run in runs if run["p99_ms"] < knee_ms]
    above = [run["phones"] for run in runs if run["p99_ms"] >= knee_ms]
    if not above:
        return f"p99 stays under {knee_ms} ms up to {max(below):,} phones, the most run."
    if not below:
        return f"p99 is {knee_ms} ms or more from {min(above):,} phones, the fewest run."
    return (f"p99 crosses {knee_ms} ms between {max(p for p in below if p < min(above)):,} "
            f"and {min(above):,} phones.")  # fmt: skip


def _phones(name: str, played: dict, budget: int, knee_ms: float) -> str:
    head = ["phones", "seconds", "requests", "p50 ms", "p99 ms", "max ms", "errors"]
    head += ["server CPU ms/request", "server cores busy", "load generator CPU s"]
    rows = [
        [
            f"{r['phones']:,}",
            r["seconds"],
            f"{r['requests']:,}",
            _ms(r["p50_ms"]),
            _ms(r["p99_ms"]),
            _ms(r["max_ms"]),
            len(r["errors"]),
            f"{r['server_cpu_ms']:.2f}",
            f"{r['server_cores']:.2f}",
            f"{r['client_cpu']:.1f}",
        ]
        for r in played["runs"]
    ]
    run = next((r for r in played["runs"] if r["phones"] == budget), played["runs"][-1])
    kept = played["kept"]
    outcomes = ", ".join(f"{what}: {count}" for what, count in run["outcomes"].items())
    errors = [error for r in played["runs"] for error in r["errors"]]
    shown = "; ".join(errors[:10]) + (" ..." if len(errors) > 10 else "")
    wrong = len(kept["missing"]) + len(kept["elsewhere"])
    return "\n\n".join(
        [
            f"#### {name.capitalize()}",
            _table(head, rows),
            _knee(played["runs"], knee_ms),
            f"At {run['phones']:,} phones, by request:",
            _spreads(run["kinds"], run),
            f"The app's CPU at {run['phones']:,} phones, by request (each answer's Server-Timing: "
            "the thread's CPU until its headers; the server's own share is the rest of the "
            "CPU per request above):",
            _app_cpu(run.get("app_cpu", {})),
            f"What happened at {run['phones']:,} phones: {outcomes or 'nothing'}.",
            f"Errors at any size (5xx, other unexpected statuses, connection errors): "
            f"{len(errors)}" + (f": {shown}" if errors else "."),
            f"Acknowledged saves at every size: {kept['acknowledged']}; in the database exactly "
            f"once, as the deal acknowledged: {kept['acknowledged'] - wrong}. Missing: "
            f"{len(kept['missing'])}; stored twice: {len(kept['duplicated'])}; under another "
            f"match or number: {len(kept['elsewhere'])}; keys never sent: "
            f"{len(kept['never_sent'])}.",
        ]
    )


def _queries(counts: dict[str, list[int]]) -> str:
    rows = [
        [page, small, big, "yes" if small == big else "**no**"]
        for page, (small, big) in counts.items()
    ]
    return _table(["page", "small table", "big table", "same"], rows)


def _weight(load: dict) -> str:
    rows = [
        [
            f["url"],
            f["why"],
            f["status"],
            f["encoding"],
            f"{f['bytes']:,}",
            "yes" if f["counted"] else "no",
        ]
        for f in load["files"]
    ]
    rows.append(["**counted**", "", "", "", f"**{load['total']:,}**", ""])
    foreign = ", ".join(load["foreign"]) or "none"
    return (
        _table(["file", "why it is fetched", "status", "encoding", "bytes", "counted"], rows)
        + f"\n\nCounted: {load['total'] / 1024:.1f} KB; with what the service worker fetches "
        f"after load: {load['with_worker'] / 1024:.1f} KB. URLs to another host in the HTML: "
        f"{foreign}. The HTML is {load['html_bytes']:,} bytes before compression "
        f"({load['files'][0]['encoding']} as sent)."
    )


def _exports(result: dict) -> str:
    if "exports_error" in result:
        return f"**{result['exports_error']}**"
    rows = []
    for row in result["exports"]:
        sizes = (("2 matches", row["tiny"]), (f"{result['export_deals']:,} deals", row["big"]))
        for label, run in sizes:
            rows.append(
                [
                    row["format"],
                    label,
                    f"{run['seconds']:.1f}",
                    f"{run['peak_mb']:.1f}",
                    f"{run['size_mb']:.1f}",
                ]
            )
        rows.append([row["format"], "**growth**", "", f"**{row['growth_mb']:.1f}**", ""])
    return _table(["format", "table", "seconds", "peak RSS MB", "file MB"], rows)


def _imports(imports: dict) -> str:
    hostile, large = imports["hostile"], imports["large"]
    saves = sorted(large["saves"])
    p99 = saves[min(len(saves) - 1, int(0.99 * len(saves)))] if saves else 0.0
    p50 = saves[len(saves) // 2] if saves else 0.0
    rows = [
        [
            f'hostile: {hostile["bytes"] / 2**20:.1f} MB of `"matches": [0, 0, …]`',
            f"{hostile['seconds']:.2f}",
            hostile["status"],
            "in words" if hostile["in_words"] else "**not in words**",
        ],
        [
            f"valid: {large['bytes'] / 2**20:.1f} MB, {large['matches']:,} matches",
            f"{large['seconds']:.1f}",
            large["status"],
            f"meanwhile {len(saves)} saves on another table: p50 {_ms(1000 * p50)} ms, "
            f"p99 {_ms(1000 * p99)} ms, max {_ms(1000 * (saves[-1] if saves else 0.0))} ms",
        ],
    ]
    return _table(["file", "seconds", "HTTP", "answer"], rows)


def _lighthouse(result: dict) -> str:
    if "lighthouse_error" in result:
        return f"**{result['lighthouse_error']}**"
    rows = [
        [
            who,
            run["scores"]["performance"],
            run["scores"]["accessibility"],
            run["scores"]["best-practices"],
            f"{run['cls']:.3f}",
            f"{run['lcp_ms']:.0f}",
            ", ".join(map(str, run["performance_runs"])),
        ]
        for who, run in result["lighthouse"].items()
    ]
    head = ["sheet of", "performance", "accessibility", "best practices", "CLS", "LCP ms"]
    head.append("performance of every run")
    idle = f"The cores were {result['idle_before_lighthouse']:.0%} idle in the second before."
    return f"{_table(head, rows)}\n\n{idle}"


def _backend(result: dict, setup: dict) -> str:
    budgets, knee_ms = setup["phones"]["budgets"], setup["phones"]["seconds"][2]
    return "\n\n".join(
        [
            f"## {result['backend']}",
            f"Seeded in {result['seed_seconds']:.0f} s. Load average before the run: "
            f"{result['load_before']:.2f}.",
            "### Latency under load (wrk)",
            _latency(result["latency"]),
            "### Phones at tables",
            *(
                _phones(name, played, budgets[name][0], knee_ms)
                for name, played in result["phones"].items()
            ),
            "### Queries per request",
            _queries(result["queries"]),
            "### Lighthouse (mobile)",
            _lighthouse(result),
            "### Imports",
            _imports(result["imports"]),
            "### The sheet's first load",
            _weight(result["weight"]),
            "### Export (`manage.py export_table`)",
            _exports(result),
        ]
    )


def render(results: list[dict], found, setup: dict) -> str:
    seconds, knee_seconds, knee_ms = setup["phones"]["seconds"]
    arrivals, least = setup["phones"]["arrivals"]
    arrival_2000 = max(least, 2000 / arrivals)
    settle = setup["phones"]["settle"]
    (evening, evening_ms), (stress, stress_ms) = setup["phones"]["budgets"].values()
    view_s, floor_s, warm_s, rounds = setup["seconds"]
    method = f"""\
# Performance

Written by `{setup["command"]}` (bench/run.py) on {time.strftime("%Y-%m-%d %H:%M %Z")}.
The whole run took {setup["minutes"]:.1f} minutes. To reproduce: `{setup["command"]}` (it
installs wrk from Debian and Lighthouse from npm when they are missing). Machine:
{setup["machine"]}, Python {setup["python"]}. On a shared machine absolute times vary from run
to run, by half or more: compare each view with the floor measured just before it.

## How it is measured

- **Server**: `bin/entrypoint` (granian, as `make serve` starts it) with
  {setup["server"]}, production settings (`DJANGO_DEBUG=0`) and a free port
  on 127.0.0.1, started and stopped by the benchmark. Its database is SQLite in a temporary
  directory, then a PostgreSQL database on 127.0.0.1 that the benchmark creates and drops.
  Nothing else is contacted.
- **Data**: a table with {setup["finished"]:,} finished matches (lines 21, 31, 41 and 101,
  random deals scored by `matches.rules`) and a match in progress with 40 deals at line 101.
  At line 101 a match is normally decided by about deal 19, since every deal puts 11 card
  points on the sheet; it goes on past that only while both sides stand level past the line
  (equal totals play another deal). So the 40 deals are 18 deals of 6-5 and 5-6 (99 to 99),
  then 22 deals that give both sides 7 (card points 7 and 4, declarations 0 and 3): 106 to
  106, ..., 253 to 253. Legal, and the heaviest sheet a table can have, not a usual one.
- **Latency**: `wrk {setup["wrk"]}`, a closed loop with as many connections as the server
  has threads, one view at a time, as a scorer who joined the table (Italian, the default
  language). Every request comes on a new connection (`Connection: close`), the costlier case
  (wrk's few connections kept alive would stay with whichever workers accepted them, and p50
  would follow that draw); the server's CPU per request is read from /proc. Requests/s, p50 and
  p99 are wrk's. The **floor** is `GET /floor`, a constant answer through the whole
  middleware stack. Each view runs {rounds} rounds after {warm_s} s of
  warm-up; a round is {floor_s} s of the floor then {view_s} s of the view, and the view's p50
  is divided by that floor's p50, so that a busy moment on the machine weighs on both alike.
  The round with the median ratio is the view's figure ("every round" lists all of them).
  The poll sends `HX-Request: true` and the ETag of an earlier identical request in
  `If-None-Match`; every answer must be 304. **Saving a deal** posts a valid new deal from a
  sheet's entry form drawn blank, as HTMX does, and every answer must say it was saved: each
  request writes deal 18 into a match of its own that holds 17 deals (a seeded pool), so no
  save conflicts with another. The answer is a redirect to the sheet, whose address says the
  deal was saved; the GET that HTMX then makes (the parts a save changes: the notice, the
  totals, the row added and the chart, the next deal's number) is not part of this figure:
  the phones' mixes below make it after every save and time it ("sheet after a save").
  On PostgreSQL the save's budget is 2x the bare save's ratio to the floor (every statement
  is a round trip there); on SQLite, 5x the floor.
  The **bare save** (bench/bare.py) is measured the same way on a second server that mounts
  it at the save's address: only what no save can do without, in plain SQL (the links
  checked, the match locked, its deals read, the deal and its log entry inserted, the
  revision bumped), no form, no rule, a constant answer. It has no budget: no save can be
  faster, so its ratio is the part of the save's budget the machine itself takes.
- **Phones** (bench/phones.py): thousands of phones on one asyncio loop in the benchmark's
  process; each phone keeps its connection while the server keeps it open (5 s, longer than
  a poll's 3 s), as a browser does, and each request is timed from its first byte (a new
  connection's, when one is opened) to its answer's last; a phone's cookies and CSRF token
  travel with it. The phones join first (not timed), then open their sheets, {arrivals} a
  second (not timed: {arrival_2000:.0f} s for 2,000 phones), and play {settle:.0f} s more (not
  timed: the ramp-up's backlog drains) before the measured run. Two
  mixes, each at growing numbers of phones: its budget's size for {seconds} s, the others for
  {knee_seconds} s, going on past the budget's
  size until p99 reaches {knee_ms} ms (the knee). The **evening** ({evening:,} phones: p99 <
  {evening_ms} ms): tables of 4 phones, each polling every 3 s as the page does
  (`?poll=1&number=N&typing=0` with `If-None-Match`: the ETag the page names, then the last
  answer's); about every 2 minutes one phone of the
  table enters its next deal; when the rules decide a match, a phone that sees it taps End
  match, then Rematch, and the others open the rematch from their sheet; now and then (about
  every 2 minutes a table) a phone leaves and another joins with the scorer link. Each table
  plays a match to 21 begun earlier. The **stress** mix ({stress:,} phones: p99 <
  {stress_ms} ms): each phone polls every 5 s and saves a deal about every 30 s, so every
  table changes every 7.5 s; a decided match is ended and the phones move on to the table's
  next seeded match (line 101). In both, saves carry a fresh idempotency key and the deal
  number last seen; if another phone saved that deal first, the answer says "was just entered
  on another phone" and the phone goes on with the number it is shown; one save in ten is
  sent again with the same key once answered, as a retry. Afterwards each acknowledged
  save's key is looked up in the database. The server's CPU is read from /proc for its
  processes; the load generator's (this process) from getrusage: both share the 2 cores.
- **Queries**: Django's test client in-process against the seeded database, each request in
  `CaptureQueriesContext` (a save is rolled back), on a small table (2 finished matches, a
  1-deal sheet) and on the big one.
- **Page weight**: the sheet fetched from the server with `Accept-Encoding: gzip, br`, then
  every file its HTML names and every `url()` in its CSS, each as the server sends it
  (whitenoise's compressed files). What the service worker fetches after load is listed,
  not counted.
- **Lighthouse**: npm's `lighthouse` 12, mobile form factor and throttling, in Debian's
  Chromium, on the 40-deal sheet as a scorer (its cookie sent) and as a viewer; performance,
  accessibility and best practices (SEO left out: a table's pages are not to be indexed).
  Each page is run several times (`bench/lighthouse.RUNS`) and the run with the median
  performance score gives all its figures (Lighthouse's guide to variability: one run's
  score moves by ten points here); every run's score is listed.
- **Imports**: uploaded through the home page's form. Hostile: 2 MB of
  `"matches": [0, 0, …]`, timed to its answer in words. Valid: the archive's JSON export, its
  matches repeated to just under the 20 MB cap, while one phone saves deal 18 into one match
  after another of another table, each save timed, until the import is answered.
- **Exports**: `manage.py export_table` in a fresh process for each run; its peak RSS is
  VmHWM, read from /proc every 20 ms while it runs; growth is the peak for
  {setup["export_deals"]:,} deals minus the peak for a 2-match table.
"""
    notes = "".join(f"\n**Note:** {note}\n" for note in setup["notes"])
    backends = [_backend(result, setup) for result in results]
    return "\n\n".join([method + notes, "## Budgets", _budgets(found), *backends]) + "\n"


def summary(results: list[dict], found, setup: dict) -> str:
    lines = [f"\nbench: {setup['minutes']:.1f} minutes; figures in docs/performance.md\n"]
    for result in results:
        lines.append(f"{result['backend']}:")
        for r in result["latency"]:
            lines.append(
                f"  {r['name']:<9} {r['per_second']:8,.0f} req/s  p50 {r['p50_ms']:8.2f} ms"
                f"  p99 {r['p99_ms']:8.2f} ms  {r['ratio']:6.2f}x floor"
            )
        for name, played in result["phones"].items():
            for run in played["runs"]:
                lines.append(
                    f"  {name} {run['phones']:>5} phones  p50 {run['p50_ms']:.2f} ms"
                    f"  p99 {run['p99_ms']:.2f} ms  errors {len(run['errors'])}"
                    f"  server {run['server_cpu_ms']:.2f} ms/request"
                )
    lines.append("")
    for c in found:
        lines.append(f"{'ok    ' if c.passed else 'MISSED'} [{c.backend}] {c.what}: {c.detail}")
    return "\n".join(lines)
