"""Rebuild the SCOWL-derived word lists shipped in ``assets/``.

Needs Debian's ``scowl`` package (``apt-get install scowl``), which installs the raw lists
under ``/usr/share/dict/scowl/``. Writes:

* ``assets/words/scowl-35.txt``: every all-lowercase ASCII word of 3-10 letters in SCOWL's
  ``english-words`` and ``american-words`` lists of sizes 10, 20 and 35 (the common words;
  proper names, abbreviations and contractions live in other SCOWL files and are left out).
  Generated (non-benchmark) Word Guess vocabularies are drawn from it.
* ``assets/word_guess/vocabularies.json``: the Word Guess benchmark, 10 disjoint
  vocabularies of 40 five-letter words drawn with a fixed seed from the sizes 10 and 20
  (the most common words) of the same lists.
* ``assets/words/SCOWL-COPYRIGHT.txt``: SCOWL's copyright and permission notice.

Usage: ``python assets/scripts/build_word_lists.py [--scowl-dir DIR] [--out ASSETS_DIR]``.
The output is deterministic; ``tests/test_assets.py`` rebuilds it and compares when SCOWL is
installed.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

import numpy as np

SCOWL_DIR = Path("/usr/share/dict/scowl")
SCOWL_COPYRIGHT = Path("/usr/share/doc/scowl/copyright")
VARIANTS = ("english", "american")
WORD_RE = re.compile(r"^[a-z]{3,10}$")
BENCH_SIZES = (10, 20)
POOL_SIZES = (10, 20, 35)
BENCH_SEED = 20250601
N_VOCABS, VOCAB_SIZE, WORD_LENGTH = 10, 40, 5


def read_scowl(scowl_dir: Path, sizes: tuple[int, ...]) -> list[str]:
    """All-lowercase ASCII words of 3-10 letters from the given SCOWL sizes, sorted."""
    words: set[str] = set()
    for variant in VARIANTS:
        for size in sizes:
            path = scowl_dir / f"{variant}-words.{size}"
            text = path.read_text(encoding="utf-8", errors="strict")
            words.update(w for w in text.split() if WORD_RE.match(w))
    return sorted(words)


def benchmark_vocabularies(common: list[str]) -> list[list[str]]:
    """10 disjoint vocabularies of 40 five-letter words, drawn with a fixed seed."""
    pool = [w for w in common if len(w) == WORD_LENGTH]
    rng = np.random.default_rng(BENCH_SEED)
    picked = rng.choice(len(pool), size=N_VOCABS * VOCAB_SIZE, replace=False)
    words = [pool[i].upper() for i in picked]
    return [sorted(words[i * VOCAB_SIZE : (i + 1) * VOCAB_SIZE]) for i in range(N_VOCABS)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scowl-dir", type=Path, default=SCOWL_DIR)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()

    words_dir = args.out / "words"
    words_dir.mkdir(parents=True, exist_ok=True)
    pool = read_scowl(args.scowl_dir, POOL_SIZES)
    (words_dir / "scowl-35.txt").write_text("\n".join(pool) + "\n", encoding="utf-8")
    shutil.copyfile(SCOWL_COPYRIGHT, words_dir / "SCOWL-COPYRIGHT.txt")

    vocabs = benchmark_vocabularies(read_scowl(args.scowl_dir, BENCH_SIZES))
    meta = {
        "source": "SCOWL (Debian package scowl), english-words and american-words, sizes 10 and 20",
        "license": "words/SCOWL-COPYRIGHT.txt",
        "seed": BENCH_SEED,
        "word_length": WORD_LENGTH,
        "vocabularies": vocabs,
    }
    out = args.out / "word_guess" / "vocabularies.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(f"{len(pool)} words in scowl-35.txt; {len(vocabs)} vocabularies written to {out}")


if __name__ == "__main__":
    main()
