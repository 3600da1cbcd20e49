"""Rebuild the Twenty Questions lexicons shipped in ``assets/twenty_questions/``.

Reads real WordNet 3.0 through nltk's WordNet reader (Debian's ``wordnet-base`` and
``wordnet-sense-index`` database plus the shipped ``assets/wordnet/lexnames``, see
:mod:`mtp_gym.wordnet`; nothing is downloaded) and SCOWL (Debian's ``scowl``). Writes:

* ``twenty_questions/pool.json``: every noun that passes appendix A.3's per-word filters,
  ``word -> {synset, hypernyms}``:

  - the word is a SCOWL word (``english-words`` and ``american-words`` of sizes 10, 20, 35:
    common words, all lower-case ASCII letters) and a WordNet noun in base form (a lemma
    of a noun synset, no morphological reduction); its sense is the first noun synset
    that has the word as a lemma (WordNet's most frequent sense);
  - the word is predominantly a noun (our addition, so that "SCOWL nouns" reads as nouns):
    not an inflected form of a verb, adjective or adverb (``chased``) and no other part
    of speech has more SemCor-tagged uses in WordNet's counts (``crazy``, ``hire``, ``safe``);
  - its hypernyms are the display names (first lemma, ``_`` as space) of every synset in
    the transitive closure of ``hypernyms()`` over all paths, nearest first (breadth
    first, ties by synset name), names repeated by two synsets listed once;
  - at least 7 hypernyms, ``physical_entity.n.01`` among them, ``abstraction.n.06`` not,
    and the word is not among its own hypernyms' names;
  - not offensive (our addition): no noun sense of the word carries one of WordNet's usage
    domains :data:`~mtp_gym.envs.twenty_questions.OFFENSIVE_DOMAINS` (disparagement, ethnic
    slur, obscenity), and the word is not in the explicit ``BLOCKLIST``.

* ``twenty_questions/lexicons.json``: the 400 benchmark configurations, each a lexicon of
  80-100 pool words (size drawn uniformly) and a user-simulator seed. A lexicon is the
  pool in a seeded random order, each word kept unless it breaks a pairwise filter against
  one already kept (:func:`mtp_gym.envs.twenty_questions.sample_lexicon`): no two words with
  identical hypernym sets, no word a hypernym of another. "A hypernym of another" is
  checked on WordNet synsets (no word's synset in another's hypernym closure, checked here)
  and on names (no word, and no name of a word's synset, among another's hypernym names,
  checked by ``pair_conflict`` at sampling time).

* ``wordnet/WORDNET-LICENSE.txt``: WordNet's licence (from ``wordnet-base``'s copyright file).

Usage: ``python assets/scripts/build_twenty_questions.py [--wordnet-dir DIR] [--scowl-dir DIR]
[--out ASSETS_DIR]``. The output is deterministic; ``tests/test_twenty_questions.py``
rebuilds it and compares when WordNet and SCOWL are installed
(``apt-get install wordnet-base wordnet-sense-index scowl``).
"""

from __future__ import annotations

import argparse
import json
import re
import string
from pathlib import Path

import numpy as np

from mtp_gym.envs.twenty_questions import (
    BENCH_MAX_WORDS,
    BENCH_MIN_WORDS,
    BLOCKLIST,
    FORBIDDEN_HYPERNYM,
    N_BENCH_LEXICONS,
    OFFENSIVE_DOMAINS,
    REQUIRED_HYPERNYM,
    lexicon_violations,
    sample_lexicon,
    synset_label,
    word_violations,
)
from mtp_gym.wordnet import DEBIAN_WORDNET_DIR, load_wordnet

SCOWL_DIR = Path("/usr/share/dict/scowl")
WORDNET_COPYRIGHT = Path("/usr/share/doc/wordnet-base/copyright")
SCOWL_VARIANTS = ("english", "american")
SCOWL_SIZES = (10, 20, 35)
WORD_RE = re.compile(r"^[a-z]+$")
BUILD_SEED = 20250620
SAFE_CHARS = set(string.ascii_letters + string.digits + " -'.")


def scowl_words(scowl_dir: Path) -> list[str]:
    """All-lowercase ASCII words of SCOWL sizes 10-35 (english and american lists), sorted."""
    words: set[str] = set()
    for variant in SCOWL_VARIANTS:
        for size in SCOWL_SIZES:
            text = (scowl_dir / f"{variant}-words.{size}").read_text(encoding="utf-8")
            words.update(w for w in text.split() if WORD_RE.match(w))
    return sorted(words)


def label(synset) -> str:
    name = synset.lemma_names()[0].replace("_", " ")
    assert name.lower() == synset_label(synset.name()), synset
    return name


def tag_counts(wn) -> dict[str, int]:
    """SemCor tag count of every sense key (WordNet's ``cntlist.rev``, what ``Lemma.count()``
    reads one binary search at a time)."""
    with wn.open("cntlist.rev") as fp:
        return {key: int(count) for key, _, count in (line.split() for line in fp)}


def predominantly_noun(wn, word: str, counts: dict[str, int]) -> bool:
    """The word is not an inflected verb/adjective/adverb form (``chased``, ``greater``) and
    no other part of speech has more SemCor-tagged uses (``crazy``, ``hire`` go)."""
    if any(wn.morphy(word, pos) not in (None, word) for pos in ("v", "a", "r")):
        return False
    per_pos = {
        pos: sum(
            counts.get(lemma.key(), 0)
            for s in wn.synsets(word, pos)
            for lemma in s.lemmas()
            if lemma.name().lower() == word
        )
        for pos in ("n", "v", "a", "r")
    }
    return per_pos["n"] >= max(per_pos["v"], per_pos["a"], per_pos["r"])


def hypernym_closure(sense) -> list:
    """Every synset reachable by ``hypernyms()`` (all paths), ordered by distance, then name."""
    distance: dict = {}
    frontier = [sense]
    step = 0
    while frontier:
        step += 1
        nxt = []
        for s in frontier:
            for h in s.hypernyms():
                if h not in distance:
                    distance[h] = step
                    nxt.append(h)
        frontier = nxt
    return sorted(distance, key=lambda s: (distance[s], s.name()))


def offensive(word: str, senses: list) -> bool:
    """Whether any of the word's noun senses is marked offensive, or the word is blocklisted."""
    return word in BLOCKLIST or any(d.name() in OFFENSIVE_DOMAINS for s in senses for d in s.usage_domains())


def build_pool(wn, words: list[str]) -> tuple[dict[str, dict], dict[str, set[str]]]:
    """Per-word filters: ``word -> {synset, hypernyms}`` and each word's hypernym synsets."""
    physical = wn.synset("physical_entity.n.01")
    abstraction = wn.synset("abstraction.n.06")
    assert label(physical) == REQUIRED_HYPERNYM and label(abstraction) == FORBIDDEN_HYPERNYM
    counts = tag_counts(wn)
    pool: dict[str, dict] = {}
    closures: dict[str, set[str]] = {}
    for word in words:
        senses = [s for s in wn.synsets(word, "n") if word in s.lemma_names()]
        if not senses:
            continue  # not a WordNet noun in base form
        if offensive(word, senses):
            continue
        sense = senses[0]
        closure = hypernym_closure(sense)
        if physical not in closure or abstraction in closure or not predominantly_noun(wn, word, counts):
            continue
        hypernyms = list(dict.fromkeys(label(s) for s in closure))
        entry = {"synset": sense.name(), "hypernyms": hypernyms}
        if word_violations(word, entry):
            continue
        assert all(set(h) <= SAFE_CHARS for h in hypernyms), hypernyms  # safe in the prompt
        pool[word] = entry
        closures[word] = {s.name() for s in closure}
    return pool, closures


def build_lexicons(pool: dict[str, dict], closures: dict[str, set[str]]) -> list[dict]:
    rng = np.random.default_rng(BUILD_SEED)
    lexicons = []
    for _ in range(N_BENCH_LEXICONS):
        size = int(rng.integers(BENCH_MIN_WORDS, BENCH_MAX_WORDS + 1))
        words = sample_lexicon(rng, pool, size)
        assert not lexicon_violations(words, pool)
        synsets = {pool[w]["synset"] for w in words}
        for w in words:  # WordNet-level: no word's sense under another word's sense
            assert not (closures[w] & synsets), (w, closures[w] & synsets)
        lexicons.append({"words": list(words), "user_seed": int(rng.integers(2**31))})
    return lexicons


def _write(path: Path, head: dict, key: str, rows: dict | list) -> None:
    """JSON with one line per entry (reviewable diffs)."""
    lines = [json.dumps(head, indent=1)[:-2] + ",", f' "{key}": ' + ("{" if isinstance(rows, dict) else "[")]
    items = (
        [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in rows.items()]
        if isinstance(rows, dict)
        else [f"  {json.dumps(v)}" for v in rows]
    )
    lines.append(",\n".join(items))
    lines.append(" " + ("}" if isinstance(rows, dict) else "]") + "\n}\n")
    text = "\n".join(lines)
    json.loads(text)
    path.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wordnet-dir", type=Path, default=DEBIAN_WORDNET_DIR)
    parser.add_argument("--scowl-dir", type=Path, default=SCOWL_DIR)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()

    wn = load_wordnet(args.wordnet_dir)
    words = scowl_words(args.scowl_dir)
    pool, closures = build_pool(wn, words)
    lexicons = build_lexicons(pool, closures)

    out = args.out / "twenty_questions"
    out.mkdir(parents=True, exist_ok=True)
    notice = "WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved."
    licences = {"wordnet": "wordnet/WORDNET-LICENSE.txt", "scowl": "words/SCOWL-COPYRIGHT.txt"}
    _write(
        out / "pool.json",
        {
            "source": "WordNet 3.0 (Debian wordnet-base) via nltk's WordNet reader; SCOWL sizes 10, 20, 35 "
            "(Debian scowl), english-words and american-words",
            "copyright": notice,
            "license": licences,
            "filters": "SCOWL noun in base form, predominantly a noun, no sense marked offensive, not blocklisted; "
            "first noun sense; >= 7 hypernyms; has 'physical entity'; "
            "no 'abstraction'; not its own hypernym",
            "scowl_words": len(words),
        },
        "words",
        pool,
    )
    _write(
        out / "lexicons.json",
        {
            "source": "pool.json (WordNet 3.0 and SCOWL), fixed seed",
            "copyright": notice,
            "license": licences,
            "seed": BUILD_SEED,
            "filters": "pairwise: distinct hypernym sets; no word a hypernym of another (synsets and names)",
        },
        "lexicons",
        lexicons,
    )
    licence_dir = args.out / "wordnet"
    licence_dir.mkdir(parents=True, exist_ok=True)
    (licence_dir / "WORDNET-LICENSE.txt").write_text(WORDNET_COPYRIGHT.read_text(encoding="utf-8"), encoding="utf-8")
    sizes = [len(c["words"]) for c in lexicons]
    print(
        f"{len(words)} SCOWL words, {len(pool)} nouns in the pool; {len(lexicons)} lexicons of "
        f"{min(sizes)}-{max(sizes)} words (mean {sum(sizes) / len(sizes):.1f})"
    )


if __name__ == "__main__":
    main()
