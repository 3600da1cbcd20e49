"""What report.html costs for a large run: writing it, its size, opening it in a browser.

Run: ``python benchmarks/report_html.py [--episodes 10000]``. Plays a pool of real oracle
and random episodes (transcripts included) over several envs, repeats them under new
configuration / sample ids up to ``--episodes``, then prints: the time ``mtp-gym report``'s
HTML step takes (reading the logs with transcripts, compressing, writing), the page size
against the raw JSONL it holds, and, when Playwright and Debian's chromium are installed, the
time to open the page until its episode list is ready and to apply a filter.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from mtp_gym.eval.harness import AgentConfig, run_eval
from mtp_gym.eval.html import write_html
from mtp_gym.eval.log import read_episodes
from mtp_gym.eval.report import FIGURES, compute_rows, load_runs, write_report

ENVS = ["MTP/WordGuess-v0", "MTP/CircuitDecoding-v0", "MTP/TuringMachine-v0", "MTP/HiddenNumber-v0", "MTP/MovieRec-v0"]


def build(root: Path, episodes: int) -> Path:
    """Run dirs under ``root`` with ``episodes`` records in all (a real pool, repeated)."""
    for kind in ("oracle", "random"):
        run_eval(ENVS, AgentConfig(kind), root / "pool" / kind, split="10", progress=False)
    pool = [r for kind in ("oracle", "random") for r in read_episodes(root / "pool" / kind / "episodes.jsonl")[0]]
    per_agent = episodes // 2
    for kind in ("oracle", "random"):
        src = [r for r in pool if r["agent"] == kind]
        d = root / "big" / kind
        d.mkdir(parents=True)
        shutil.copy(root / "pool" / kind / "config.json", d / "config.json")
        with open(d / "episodes.jsonl", "w") as f:
            for i in range(per_agent):
                r = src[i % len(src)]
                f.write(json.dumps(r | {"sample": i // len(src)}) + "\n")
    return root / "big"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        big = build(root, args.episodes)
        jsonl = sum(p.stat().st_size for p in big.rglob("episodes.jsonl"))
        out = root / "report"
        t0 = time.perf_counter()
        rows = compute_rows(load_runs([big]))
        text = write_report(rows, out)
        t1 = time.perf_counter()
        stats = write_html(text, load_runs([big], slim=False), out / "report.html", [out / f for f in FIGURES])
        t2 = time.perf_counter()
        print(f"{stats['episodes']:,} episodes, {jsonl / 1e6:.1f} MB of JSONL")
        print(
            f"tables + figures: {t1 - t0:.2f} s; report.html: {t2 - t1:.2f} s to write, {stats['bytes'] / 1e6:.1f} MB"
        )
        print(f"page / JSONL size: {stats['bytes'] / jsonl:.3f}")
        browse(out / "report.html")


def browse(page_path: Path) -> None:
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("browser: playwright not installed, skipped")
        return
    if chromium is None:
        print("browser: no chromium, skipped")
        return
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        t0 = time.perf_counter()
        page.goto(page_path.as_uri())
        page.wait_for_selector("body[data-ready='1']", timeout=120_000)
        t1 = time.perf_counter()
        inflate = page.evaluate("document.body.dataset.loadMs")
        page.select_option("#f-agent", label="random")
        t2 = time.perf_counter()
        page.click("#list tbody tr")
        page.wait_for_selector("#episode .msg")
        t3 = time.perf_counter()
        print(
            f"browser: ready in {t1 - t0:.2f} s (inflating and indexing the episodes: {inflate} ms); "
            f"filter {1000 * (t2 - t1):.0f} ms; open an episode {1000 * (t3 - t2):.0f} ms; "
            f"{page.inner_text('#f-count')}"
        )
        browser.close()


if __name__ == "__main__":
    main()
