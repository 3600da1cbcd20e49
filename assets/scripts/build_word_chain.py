"""Rebuild the Word Chaining benchmark split shipped in ``assets/word_chain/games.json.gz``.

Each of the 400 games is a lexicon of 500 words drawn without replacement from the shipped
SCOWL list ``assets/words/scowl-35.txt`` (SCOWL sizes 10, 20 and 35, english + american,
all-lowercase ASCII words of 3-10 letters; 33,777 words, built from Debian's ``scowl``
package by ``build_word_lists.py``), the player who moves first (0 = the agent seat /
``player_0``, 1 = the opponent / ``player_1``, drawn fairly) and, when the opponent moves
first, its opening word in the single-agent view (drawn among the lexicon words that leave
at least one legal reply, so no episode can be over before the agent's first move).

Usage: ``python assets/scripts/build_word_chain.py [--out ASSETS_DIR]``. The output is
deterministic (fixed seed); ``tests/test_word_chain.py`` rebuilds it and compares the
decompressed JSON (gzip bytes may differ between zlib versions).
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from pathlib import Path

import numpy as np

ASSETS = Path(__file__).resolve().parents[1]
SEED = 20250605
N_GAMES, LEXICON_SIZE = 400, 500


def build_games(pool: list[str], seed: int = SEED) -> list[dict]:
    """The benchmark games: sorted lexicon, first player, opener (None if the agent starts)."""
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(N_GAMES):
        lexicon = sorted(pool[i] for i in rng.choice(len(pool), size=LEXICON_SIZE, replace=False))
        first = int(rng.integers(2))
        opener = None
        if first == 1:
            starts = Counter(w[0] for w in lexicon)
            # a reply needs another word that starts with the opener's last letter
            openers = [w for w in lexicon if starts[w[-1]] - (w[0] == w[-1]) > 0]
            opener = openers[int(rng.integers(len(openers)))]
        games.append({"first": first, "opener": opener, "lexicon": lexicon})
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ASSETS)
    args = parser.parse_args()
    pool = (ASSETS / "words" / "scowl-35.txt").read_text(encoding="utf-8").split()
    meta = {
        "source": "assets/words/scowl-35.txt (SCOWL sizes 10, 20, 35; english + american; 3-10 letters)",
        "license": "words/SCOWL-COPYRIGHT.txt",
        "seed": SEED,
        "lexicon_size": LEXICON_SIZE,
        "games": build_games(pool),
    }
    out = args.out / "word_chain" / "games.json.gz"
    out.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(meta, separators=(",", ":")) + "\n").encode("utf-8")
    out.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    print(f"{len(meta['games'])} games written to {out}")


if __name__ == "__main__":
    main()
