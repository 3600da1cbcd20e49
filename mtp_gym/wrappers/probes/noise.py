"""Intra-game noise injection (paper sections 3.3, 3.5): irrelevant text, same evidence.

Seeded irrelevant natural-language sentences are inserted into the rules (appended after
sentences of the prose lines, never inside the lines that show an XML format), and
semantically vacuous or character-level fragments are put before or after every reply,
separated by a space. The reply itself (``<query_NAME>args</query_NAME>: VALUE``) is kept
whole and ``info["feedback"]`` is untouched, so the evidence is exactly the clean one. The
sentences and fragments hold no digits, no Yes/No and no tags, so they cannot be mistaken
for evidence or actions.
"""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym

from mtp_gym.core import TextPuzzleEnv, check_int
from mtp_gym.wrappers.probes.base import ProbeWrapper

__all__ = ["IntraGameNoise", "IRRELEVANT_SENTENCES", "VACUOUS_FRAGMENTS"]

IRRELEVANT_SENTENCES = (
    "The cafeteria on the second floor serves soup on rainy afternoons.",
    "Some people prefer to read the rules while drinking a cup of tea.",
    "The weather forecast mentions light wind along the coast later today.",
    "A gardener once planted tulips in long, neat rows behind the old library.",
    "Pencils were first mass produced in a small town in the Lake District.",
    "The museum downtown is closed for renovation until the end of the season.",
    "Many migrating birds travel thousands of kilometres every autumn.",
    "The office printer has been making a faint clicking sound all week.",
    "A local bakery is known for its bread with a thick, crunchy crust.",
    "Several chess clubs meet in the community hall on weekday evenings.",
    "Lighthouses were once tended by keepers who lived beside the lamp.",
    "The river in the valley tends to freeze over in the coldest winters.",
    "An orchestra usually tunes to the note played by the first oboe.",
    "Bamboo is among the fastest growing plants on the planet.",
    "The annual town fair features a pie contest and a small parade.",
    "Some deserts receive rain only a few times in a decade.",
    "The hallway carpet was recently replaced with a darker shade of blue.",
    "Honey stored in a sealed jar can stay edible for a very long time.",
    "A neighbour is learning to play the accordion on weekend mornings.",
    "The train to the coast passes through several long tunnels.",
    "Mountain climbers often start their ascent well before sunrise.",
    "The corner shop sells postcards showing the harbour at dusk.",
    "Owls can turn their heads much further than most other birds.",
    "The park's fountain is switched off during the winter months.",
    "Old maps sometimes marked unexplored regions with drawings of sea monsters.",
    "A cat has been seen sleeping on the warm roof of the tool shed.",
    "The school choir is rehearsing a new song for the spring concert.",
    "Glass is made mostly from sand heated to a very high temperature.",
    "The ferry timetable changes when the summer season begins.",
    "Painters in the city often gather near the bridge at sunset.",
)

VACUOUS_FRAGMENTS = (
    "...",
    "~~~",
    "[static]",
    "(no further remarks)",
    "-- signal fragment --",
    "#%&*",
    "hmm.",
    "[timestamp redacted]",
    "*crackle*",
    "(this note intentionally left blank)",
    "//",
    "[end of fragment]",
    "uh, anyway.",
    "^^^",
    "(background chatter)",
    "[log entry omitted]",
    "..--..",
    "(a pause)",
    "ok, so.",
    "[buffer flushed]",
)


class IntraGameNoise(ProbeWrapper):
    """Insert ``rule_sentences`` irrelevant sentences into the rules and ``reply_fragments``
    vacuous fragments around every reply (seeded by the reset seed and ``seed``).

    Works on any text puzzle env (``TextPuzzleEnv``), not only the query games.
    """

    probe = "noise"

    def __init__(self, env: gym.Env, rule_sentences: int = 3, reply_fragments: int = 1, seed: int = 0) -> None:
        super().__init__(env, seed=seed, rule_sentences=rule_sentences, reply_fragments=reply_fragments)
        check_int("rule_sentences", rule_sentences, 0)
        check_int("reply_fragments", reply_fragments, 0)
        self.rule_sentences = rule_sentences
        self.reply_fragments = reply_fragments

    def _check(self, env: gym.Env) -> TextPuzzleEnv:
        base = env.unwrapped
        if not isinstance(base, TextPuzzleEnv):
            raise ValueError(f"the 'noise' probe needs an mtp-gym text env, got {type(base).__name__}")
        return base

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self._reseed(seed)
        obs = noisy_rules(obs, self.rule_sentences, self.rng)
        self._set_last_message(obs)
        return obs, self._tag(info)

    def step(self, action: str):
        obs, reward, terminated, truncated, info = self.env.step(action)
        obs = noisy_reply(obs, self.reply_fragments, self.rng)
        self._set_last_message(obs)
        return obs, reward, terminated, truncated, self._tag(info)


def noisy_rules(text: str, count: int, rng: Any) -> str:
    """``text`` with ``count`` irrelevant sentences inserted after sentence ends of prose lines.

    An insertion point is the end of a sentence (``.``, ``?`` or ``!`` then a space or the
    line end) on a line without any ``<``, so a line showing an XML format is never touched;
    without any such point the sentences go on a new line at the end.
    """
    if count == 0:
        return text
    lines = text.split("\n")
    points = [(i, m.end()) for i, line in enumerate(lines) if "<" not in line for m in _SENTENCE_END.finditer(line)]
    picks = rng.choice(len(IRRELEVANT_SENTENCES), size=count, replace=count > len(IRRELEVANT_SENTENCES))
    inserts: dict[tuple[int, int], list[str]] = {}
    for k in picks:
        sentence = IRRELEVANT_SENTENCES[int(k)]
        key = points[int(rng.integers(len(points)))] if points else (len(lines), 0)
        inserts.setdefault(key, []).append(sentence)
    for (i, pos), sentences in sorted(inserts.items(), reverse=True):
        if i == len(lines):
            lines.append(" ".join(sentences))
        else:
            line = lines[i]
            lines[i] = f"{line[:pos]} {' '.join(sentences)}{line[pos:]}"
    return "\n".join(lines)


_SENTENCE_END = re.compile(r"[.?!](?= |$)")


def noisy_reply(text: str, count: int, rng: Any) -> str:
    """``text`` with ``count`` vacuous fragments, each put before or after it."""
    for _ in range(count):
        k = int(rng.random() * 2 * len(VACUOUS_FRAGMENTS))  # one draw: the fragment and its side
        fragment = VACUOUS_FRAGMENTS[k >> 1]
        text = f"{fragment} {text}" if k & 1 else f"{text} {fragment}"
    return text
