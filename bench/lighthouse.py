"""Lighthouse (npm's `lighthouse`, mobile) on the scorer's and the viewer's sheet, against the
real server, in Debian's Chromium: the scores and the two figures a phone feels (CLS, LCP).

One run's performance score moves by ten points on this machine (its Total Blocking Time is
the main thread's long tasks, timed as the machine happens to run them), so each page is run
several times (an odd number) and the run with the median performance score is its figure, as
Lighthouse's own guide to variability advises (docs/variability.md in its repository); every
run's score is kept beside it."""

import json
import os
import subprocess
from pathlib import Path

from client import Phone

LIGHTHOUSE = Path(__file__).resolve().parent.parent / "var" / "lighthouse"
BINARY = LIGHTHOUSE / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = "performance,accessibility,best-practices"  # SEO: a table's pages are not indexed


def _run(url: str, headers: dict[str, str], out: Path) -> dict:
    command = [
        str(BINARY), url, "--quiet", "--output=json", f"--output-path={out}",
        f"--only-categories={CATEGORIES}", "--form-factor=mobile",
        "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
        f"--extra-headers={json.dumps(headers)}",
    ]  # fmt: skip
    env = {**os.environ, "CHROME_PATH": "/usr/bin/chromium"}
    for _attempt in range(3):  # a trace Chromium failed to record is run again
        subprocess.run(command, env=env, timeout=300, check=False, capture_output=True)
        report = json.loads(out.read_text()) if out.exists() else {}
        scores = {k: v["score"] for k, v in report.get("categories", {}).items()}
        if scores and None not in scores.values():
            audits = report["audits"]
            return {
                "scores": {k: round(100 * v) for k, v in scores.items()},
                "cls": audits["cumulative-layout-shift"]["numericValue"],
                "lcp_ms": audits["largest-contentful-paint"]["numericValue"],
            }
    raise RuntimeError(f"Lighthouse gave no scores for {url}")


def run(port: int, seeded: dict, work: Path, runs: int) -> dict:
    if not BINARY.exists():
        raise RuntimeError(f"{BINARY} is missing: make bench installs it with npm")
    phone = Phone(port, language="")
    phone.join(seeded["club"]["scorer"])
    club = seeded["club"]
    sheet = f"http://127.0.0.1:{port}/t/{club['viewer']}/m/{club['sheet']}/"
    pages = {"scorer": {"Cookie": phone.cookie_header()}, "viewer": {}}
    return {
        who: _median(sheet, sent, work / f"lighthouse-{who}.json", runs)
        for who, sent in pages.items()
    }


def _median(url: str, headers: dict[str, str], out: Path, times: int) -> dict:
    """The run with the median performance score of `times` (odd), and every score."""
    runs = sorted(
        (_run(url, headers, out) for _ in range(times)),
        key=lambda run: run["scores"]["performance"],
    )
    scores = [run["scores"]["performance"] for run in runs]
    return {**runs[len(runs) // 2], "performance_runs": scores}
