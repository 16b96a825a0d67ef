"""docs/performance.md, and the summary printed at the end of `make bench`."""

import textwrap
import time

WIDTH = 96


def _table(head: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _ms(value: float) -> str:
    return f"{value:.2f}"


def _reflow(text: str) -> str:
    """Prose filled to WIDTH again once its figures are in: each paragraph and list item."""
    blocks = []
    for block in text.strip().split("\n\n"):
        if block.startswith("#"):
            blocks.append(block)
            continue
        bullet = "- " if block.startswith("- ") else ""
        items = block.removeprefix("- ").split("\n- ")
        indent = " " * len(bullet)
        filled = (textwrap.fill(" ".join(item.split()), WIDTH, initial_indent=bullet,
                                subsequent_indent=indent) for item in items)  # fmt: skip
        blocks.append("\n".join(filled))
    return "\n\n".join(blocks) + "\n"


def _verdict(passed: bool | None) -> str:
    return "reported" if passed is None else "pass" if passed else "**MISSED**"


def _checks(found, what: str) -> str:
    rows = [[c.backend, c.what, c.detail, _verdict(c.passed)] for c in found]
    return _table(["database", what, "measured", ""], rows)


def _latency(results: list[dict], guard: float) -> str:
    head = ["database", "view", "what", "p50 / floor", "every round", "p50 ms", "p99 ms"]
    head += ["floor p50 ms", "requests/s", "server CPU ms/request"]
    rows = [
        [
            result["backend"],
            r["name"],
            r["shows"],
            f"{r['ratio']:.2f}x" + (" **over the guard**" if r["ratio"] > guard else ""),
            " ".join(f"{ratio:.2f}x" for ratio in r.get("ratios", [])),
            _ms(r["p50_ms"]),
            _ms(r["p99_ms"]),
            _ms(r["floor_p50_ms"]),
            f"{r['per_second']:,.0f}",
            f"{r['server_cpu_ms']:.2f}" if "server_cpu_ms" in r else "",
        ]
        for result in results
        for r in result["latency"]
    ]
    return _table(head, rows)


def _spreads(kinds: dict[str, dict], every: dict) -> str:
    rows = [[kind, s["requests"], _ms(s["p50_ms"]), _ms(s["p99_ms"]), _ms(s["max_ms"])]
            for kind, s in [*kinds.items(), ("**all**", every)]]  # fmt: skip
    return _table(["request", "count", "p50 ms", "p99 ms", "max ms"], rows)


def _app_cpu(kinds: dict[str, tuple[int, float]]) -> str:
    total = sum(ms for _, ms in kinds.values()) or 1.0
    rows = [[kind, count, f"{ms / max(1, count):.2f}", f"{100 * ms / total:.0f}%"]
            for kind, (count, ms) in kinds.items()]  # fmt: skip
    return _table(["request", "count", "app CPU ms/request", "share of the app's CPU"], rows)


def _phones(name: str, played: dict) -> str:
    run, kept = played["run"], played["kept"]
    head = ["phones", "seconds", "requests", "p50 ms", "p99 ms", "max ms", "errors"]
    head += ["server CPU ms/request", "server cores busy", "server CPU s per phone-hour"]
    head.append("load generator CPU s")
    row = [
        f"{run['phones']:,}",
        f"{run['seconds']:.0f}",
        f"{run['requests']:,}",
        _ms(run["p50_ms"]),
        _ms(run["p99_ms"]),
        _ms(run["max_ms"]),
        len(run["errors"]),
        f"{run['server_cpu_ms']:.2f}",
        f"{run['server_cores']:.2f}",
        f"{run['cpu_per_phone_hour']:.2f}",
        f"{run['client_cpu']:.1f}",
    ]
    outcomes = ", ".join(f"{what}: {count}" for what, count in run["outcomes"].items())
    errors = run["errors"]
    shown = "; ".join(errors[:10]) + (" ..." if len(errors) > 10 else "")
    wrong = len(kept["missing"]) + len(kept["elsewhere"])
    return "\n\n".join(
        [
            f"#### {name.capitalize()}",
            _table(head, [row]),
            "By request:",
            _spreads(run["kinds"], run),
            "The app's CPU by request (each answer's Server-Timing: the thread's CPU until its "
            "headers; the server's own share is the rest of the CPU per request above):",
            _app_cpu(run.get("app_cpu", {})),
            f"What happened: {outcomes or 'nothing'}.",
            f"Errors (5xx, other unexpected statuses, connection errors): {len(errors)}"
            + (f": {shown}" if errors else "."),
            f"Acknowledged saves: {kept['acknowledged']}; in the database exactly once, as the "
            f"deal acknowledged: {kept['acknowledged'] - wrong}. Missing: "
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


def _appendix(result: dict) -> str:
    return "\n\n".join(
        [
            f"### {result['backend']}",
            f"Seeded in {result['seed_seconds']:.0f} s. Load average before the run: "
            f"{result['load_before']:.2f}.",
            "#### Phones at tables",
            *(_phones(name, played) for name, played in result["phones"].items()),
            "#### Queries per request",
            _queries(result["queries"]),
            "#### Lighthouse (mobile)",
            _lighthouse(result),
            "#### The sheet's first load",
            _weight(result["weight"]),
            "#### Imports",
            _imports(result["imports"]),
            "#### Export (`manage.py export_table`)",
            _exports(result),
        ]
    )


def render(results: list[dict], found, setup: dict) -> str:
    played = setup["phones"]
    arrivals, least = played["arrivals"]
    counts, p99 = played["counts"], played["p99_ms"]
    arrival = max(least, counts["evening"] / arrivals)
    view_s, floor_s, warm_s = setup["seconds"]
    guard = setup["floor_guard"]
    method = f"""\
# Performance

Written by `{setup["command"]}` (bench/run.py) on {time.strftime("%Y-%m-%d %H:%M %Z")}; the
whole run took {setup["minutes"]:.1f} minutes on {setup["machine"]}, Python
{setup["python"]}. To reproduce: `{setup["command"]}` (it installs wrk from Debian and
Lighthouse from npm when they are missing). `BENCH_QUICK=1 {setup["command"]}` is a quick run
for development: a few phones for a few seconds, its figures meaningless, written to
var/performance-quick.md, never here.

## How it is measured

- **Server**: `bin/entrypoint` (granian, as `make serve` starts it) with {setup["server"]},
  production settings, on a free port on 127.0.0.1; its database SQLite in a temporary
  directory, then a PostgreSQL database the benchmark creates and drops. The load generators
  run on the same cores.
- **Phones** (bench/phones.py): phones on one asyncio loop, each keeping its connection while
  the server keeps it open, as a browser does; each request timed from its first byte to its
  answer's last. They join (not timed), open their sheets {arrivals} a second (at least
  {least:.0f} s: {arrival:.0f} s for {counts["evening"]:,} phones) and play
  {played["settle"]:.0f} s more before the measured {played["seconds"]} s. The **evening**
  ({counts["evening"]:,} phones, p99 < {p99["evening"]} ms): tables of 4, each phone polling
  every 3 s with the ETag it holds; about every 2 minutes a phone of the table enters the next
  deal; a decided match is ended and a rematch opened; now and then a phone leaves and another
  joins. The **stress** mix ({counts["stress"]:,} phones, p99 < {p99["stress"]} ms): each
  phone polls every 5 s and saves a deal about every 30 s. Every save carries a fresh
  idempotency key; one in ten is sent again once answered, as a retry. Afterwards every
  acknowledged save's key is looked up in the database: stored once, as acknowledged.
- **CPU per phone-hour**: the CPU seconds of the server's processes (user and system, from
  /proc) over the evening's measured window, divided by the phones times the window in hours.
- **Queries**: each page in Django's test client against the seeded database, on a small
  table (2 finished matches, a 1-deal sheet) and a big one ({setup["finished"]:,} finished
  matches, a 40-deal sheet): the counts must be equal. The benchmark checks this itself
  (bench/probe.py); tests in tests/ count some pages' queries as well.
- **Lighthouse**: npm's `lighthouse` 12, mobile, in Debian's Chromium, on the 40-deal sheet as
  a scorer and as a viewer; of each page's runs ({setup["lighthouse_runs"]}), the one with the
  median performance score gives all its figures.
- **First load**: the sheet and every file its HTML and CSS name, as the server sends them
  (`Accept-Encoding: gzip, br`). What the service worker fetches after load is not counted.
- **Each view beside the floor** (a diagnostic): `wrk {setup["wrk"]}`, one request at a time
  (each view's own time; the phones' runs above measure requests queued at an evening's load),
  a new connection per request, as a scorer who joined; after {warm_s} s of warm-up, {floor_s} s
  of the floor (`GET /floor`, a constant answer through the whole middleware stack) then
  {view_s} s of the view, whose p50 is divided by that floor's. The poll answers 304; the save
  writes deal 18 into a match of its own. Held to one guard: no view above {guard:.0f}x the
  floor. A view over it in its round runs {setup["rounds"]} rounds, and the round with the
  median ratio is kept.
- **Also checked**: a hostile 2 MB import answered in words, a 20 MB import while another table
  saves, the exports' memory (`manage.py export_table`, VmHWM from /proc).
"""
    method = _reflow(method)
    notes = "".join(f"\n**Note:** {note}\n" for note in setup["notes"])
    budgets = [check for check in found if check.budget]
    others = [check for check in found if not check.budget]
    return (
        "\n\n".join(
            [
                method + notes,
                "## Budgets",
                _checks(budgets, "budget"),
                "### Also checked",
                _checks(others, "check"),
                "## Each view's p50 as a multiple of the floor (diagnostic)",
                _latency(results, guard),
                "## Appendix",
                *(_appendix(result) for result in results),
            ]
        )
        + "\n"
    )


def summary(results: list[dict], found, setup: dict, written: object) -> str:
    lines = [f"\nbench ({setup['plan']}): {setup['minutes']:.1f} minutes; figures in {written}\n"]
    for result in results:
        lines.append(f"{result['backend']}:")
        for r in result["latency"]:
            lines.append(
                f"  {r['name']:<9} {r['per_second']:8,.0f} req/s  p50 {r['p50_ms']:8.2f} ms"
                f"  p99 {r['p99_ms']:8.2f} ms  {r['ratio']:6.2f}x floor"
            )
        for name, played in result["phones"].items():
            run = played["run"]
            lines.append(
                f"  {name} {run['phones']:>5} phones  p50 {run['p50_ms']:.2f} ms"
                f"  p99 {run['p99_ms']:.2f} ms  errors {len(run['errors'])}"
                f"  server {run['cpu_per_phone_hour']:.2f} CPU s/phone-hour"
            )
    lines.append("")
    for c in found:
        verdict = {None: "report", True: "ok    ", False: "MISSED"}[c.passed]
        lines.append(f"{verdict} [{c.backend}] {c.what}: {c.detail}")
    return "\n".join(lines)
