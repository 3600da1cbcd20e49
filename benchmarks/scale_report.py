"""What ``mtp-gym report`` costs at 10k, 100k and 1M episodes, and what the page costs to open.

Run: ``python benchmarks/scale_report.py [--sizes 10000,100000,1000000] [--browser-sizes 100000,1000000]``
(``--sizes 10000 --browser-sizes 10000`` for a quick run; 1M takes several minutes and about
3.5 GB of disk under ``--tmp``).

Plays a pool of real episodes (oracle and random on Word Guess and Hidden Number, split 20,
transcripts included), then writes synthetic logs of N episodes shaped like them (ids varied:
configuration and sample; scores of the episodes that did not succeed varied; one transcript
carries a unique word for the search). For each size it runs the report (the streamed
pipeline, :func:`mtp_gym.eval.pipeline.build_report` with ``records=None``, no baselines) in a
child process and prints its CPU seconds and peak RSS (the child's own ``rusage`` through
``os.wait4``, i.e. ``RUSAGE_CHILDREN`` of that one child) in total and per episode, beside a child
that only imports the same modules (the fixed cost). For the browser sizes it opens the page
from ``file://`` in headless Chromium (Debian's ``chromium`` through Playwright, offline) and
prints the time until the index is loaded and the list shown (ready), to apply a filter, to open
an episode from the last block, and to search every conversation for the unique word.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mtp_gym.eval.harness import AgentConfig, run_eval
from mtp_gym.eval.log import read_episodes

ENVS = ["MTP/WordGuess-v0", "MTP/HiddenNumber-v0"]
AGENTS = ("oracle", "random")
SPLIT = 20
NEEDLE = "zebraquokka"

REPORT = """
import sys
from pathlib import Path
from mtp_gym.eval.pipeline import build_report
dirs = [Path(p) for p in sys.argv[2:]]
build_report(None, dirs, Path(sys.argv[1]), {}, baselines=False, warn=lambda m: None)
"""
IMPORTS = """
import matplotlib.pyplot, numpy
import mtp_gym.eval.pipeline, mtp_gym.eval.html, mtp_gym.eval.report, mtp_gym.eval.report.stream
"""


def pool(root: Path) -> dict[str, tuple[Path, list[dict]]]:
    """Real records per agent (transcripts included) and the run's config.json."""
    out = {}
    for kind in AGENTS:
        d = root / "pool" / kind
        run_eval(ENVS, AgentConfig(kind), d, split=str(SPLIT), progress=False)
        out[kind] = (d / "config.json", read_episodes(d / "episodes.jsonl")[0])
    return out


def synthesize(root: Path, n: int, records: dict[str, tuple[Path, list[dict]]]) -> list[Path]:
    """Run dirs with ``n`` episodes in all, half per agent; one transcript holds :data:`NEEDLE`."""
    rng = random.Random(n)
    dirs = []
    needle_at = (n // len(AGENTS)) * 9 // 10
    for kind, (config, src) in records.items():
        d = root / f"n{n}" / kind
        d.mkdir(parents=True)
        shutil.copy(config, d / "config.json")
        stride = 1 + max(r["config_id"] for r in src)
        with open(d / "episodes.jsonl", "w") as f:
            for i in range(n // len(AGENTS)):
                r = dict(src[i % len(src)])
                rep = i // len(src)
                r["config_id"] = r["config_id"] + stride * (rep % 1000)  # vary ids: configuration, sample
                r["sample"] = rep // 1000
                if r["outcome"] != "success":
                    r["score"] = round(rng.uniform(0.0, 0.9), 3)
                if kind == AGENTS[-1] and i == needle_at:
                    t = [dict(m) for m in r["transcript"]]
                    t[-1]["content"] = f"{t[-1]['content']} {NEEDLE}"
                    r["transcript"] = t
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
        dirs.append(d)
    return dirs


def child(code: str, *args: str) -> tuple[float, int]:
    """CPU seconds and peak RSS (bytes) of ``python -c code args`` (its own rusage)."""
    proc = subprocess.Popen([sys.executable, "-c", code, *args])
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"the child failed ({proc.returncode})")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def browse(page_path: Path, n: int, search: bool) -> str:
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "browser: playwright not installed, skipped"
    if chromium is None:
        return "browser: no chromium, skipped"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        t0 = time.perf_counter()
        page.goto(page_path.as_uri(), timeout=600_000)
        page.wait_for_selector("body[data-ready='1']", timeout=600_000)
        ready = time.perf_counter() - t0
        index_ms = page.evaluate("document.body.dataset.indexMs")
        listed = page.inner_text("#f-count")
        t1 = time.perf_counter()
        page.select_option("#f-agent", label=AGENTS[-1])
        page.select_option("#f-outcome", "failure")
        filtered = time.perf_counter() - t1
        shown = page.inner_text("#f-count")
        t2 = time.perf_counter()
        page.evaluate("show(state.rows[state.rows.length - 1])")
        last = page.evaluate("String(state.rows[state.rows.length - 1])")
        page.wait_for_selector(f"#episode[data-index='{last}'] .msg", timeout=120_000)
        opened = time.perf_counter() - t2
        line = (
            f"browser {n:>9,}: ready {ready:6.2f} s (index {index_ms} ms; {listed}); "
            f"filter {1000 * filtered:6.0f} ms ({shown}); open an episode of the last block {1000 * opened:6.0f} ms"
        )
        if search:
            page.select_option("#f-agent", value="")
            page.select_option("#f-outcome", value="")
            t3 = time.perf_counter()
            page.fill("#f-text", NEEDLE)
            page.click("#search-go")
            page.wait_for_function(f"document.body.dataset.searched === '{NEEDLE}'", timeout=3_600_000)
            line += f"; search every conversation {time.perf_counter() - t3:6.1f} s ({page.inner_text('#f-count')})"
        browser.close()
        return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000", help="episodes per synthetic log (comma-separated)")
    parser.add_argument("--browser-sizes", default="100000,1000000", help="sizes whose page is opened in Chromium")
    parser.add_argument("--no-search", action="store_true", help="skip the full-text search timing")
    parser.add_argument("--tmp", default=None, help="where to write the logs (default: the system's temp dir)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    in_browser = {int(s) for s in args.browser_sizes.split(",") if s}
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        root = Path(tmp)
        records = pool(root)
        base_cpu, base_rss = child(IMPORTS)
        print(f"fixed cost (imports only): {base_cpu:.2f} s CPU, {base_rss / 2**20:.0f} MiB peak RSS")
        print(
            f"{'episodes':>10} {'log MB':>8} {'CPU s':>8} {'CPU ms/ep':>10} {'RSS MiB':>8} {'RSS B/ep':>9} {'(RSS-fixed) B/ep':>17}"
        )
        lines = []
        for n in sizes:
            dirs = synthesize(root, n, records)
            log = sum((d / "episodes.jsonl").stat().st_size for d in dirs)
            out = root / f"n{n}" / "report"
            cpu, rss = child(REPORT, str(out), *map(str, dirs))
            print(
                f"{n:>10,} {log / 1e6:>8.0f} {cpu:>8.1f} {1000 * cpu / n:>10.3f} {rss / 2**20:>8.0f} "
                f"{rss / n:>9.0f} {(rss - base_rss) / n:>17.0f}",
                flush=True,
            )
            if n in in_browser:
                blocks = len(list((out / "report_episodes").iterdir()))
                size = (out / "report.html").stat().st_size
                lines.append(f"page {n:,}: report.html {size / 1e6:.1f} MB, {blocks} block files")
                lines.append(browse(out / "report.html", n, not args.no_search))
                print("\n".join(lines[-2:]), flush=True)
            for d in dirs:
                (d / "episodes.jsonl").unlink()  # disk: the next size's log is larger
            shutil.rmtree(out / "report_episodes", ignore_errors=True)


if __name__ == "__main__":
    main()
