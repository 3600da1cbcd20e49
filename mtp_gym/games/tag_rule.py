"""Tag Rule (set, inductive): infer a hidden rule over tag sets from labelled items.

A Bongard-style concept-learning task on sets. The configuration shows a public catalog of
``m`` {items}, each carrying a set of {tags} from the letters ``A, B, ...`` (``t`` letters).
The env hides a {rule} about an {item}'s {tag} set; the agent asks whether single {items}
fit it (``fits(i)``, Yes/No) and must induce the rule. Rule forms:

==================  ==========================================================
``has X``           the {tag} set contains X
``lacks X``         the {tag} set does not contain X
``all X Y``         contains both X and Y (a subset relation: {X, Y} is a subset)
``any X Y``         contains X or Y or both (a non-empty intersection with {X, Y})
``but X Y``         contains X but not Y (a set difference)
``atleast k``       has at least k {tags} (a cardinality constraint)
``atmost k``        has at most k {tags}
==================  ==========================================================

A rule must be fitted by at least 2 {items} of the catalog and missed by at least 2. Rules
fitting exactly the same {items} of the catalog are one hidden state (the first in the table
order): any submitted rule with the hidden rule's extension on the catalog is right. Asking
``fits`` on every {item} determines that extension, so the game is well-posed.

Levels grow the letters and the catalog, ``(t, m)``: (3, 6), (4, 8), (5, 10), (6, 12),
(7, 14), i.e. about 13, 25, 40, 65, 90 distinct rules; the catalog is ``m`` distinct random {tag} sets.
"""

from __future__ import annotations

import re
import string
from collections.abc import Hashable
from functools import lru_cache
from itertools import combinations, permutations
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec

#: Form -> (argument kinds: "t" a tag letter, "k" an int), help line.
FORMS: dict[str, tuple[str, str]] = {
    "has": ("t", "has X: the {item}'s {tags} include X"),
    "lacks": ("t", "lacks X: the {item}'s {tags} do not include X"),
    "all": ("tt", "all X Y: the {item}'s {tags} include both X and Y"),
    "any": ("tt", "any X Y: the {item}'s {tags} include X or Y (or both)"),
    "but": ("tt", "but X Y: the {item}'s {tags} include X but not Y"),
    "atleast": ("k", "atleast k: the {item} has at least k {tags}"),
    "atmost": ("k", "atmost k: the {item} has at most k {tags}"),
}

Rule = tuple  # (form, *letters or ints)


def fits(rule: Rule, tags: str) -> bool:
    """Whether an {item} with the {tag} letters ``tags`` fits ``rule``."""
    form, *p = rule
    if form == "has":
        return p[0] in tags
    if form == "lacks":
        return p[0] not in tags
    if form == "all":
        return p[0] in tags and p[1] in tags
    if form == "any":
        return p[0] in tags or p[1] in tags
    if form == "but":
        return p[0] in tags and p[1] not in tags
    if form == "atleast":
        return len(tags) >= p[0]
    if form == "atmost":
        return len(tags) <= p[0]
    raise ValueError(f"unknown rule form {form!r}")


def extension(rule: Rule, catalog: tuple[str, ...]) -> tuple[int, ...]:
    """The (1-based) {items} of ``catalog`` that fit ``rule``."""
    return tuple(i for i, tags in enumerate(catalog, 1) if fits(rule, tags))


def all_rules(t: int) -> list[Rule]:
    letters = string.ascii_uppercase[:t]
    rules: list[Rule] = [("has", x) for x in letters] + [("lacks", x) for x in letters]
    rules += [("all", x, y) for x, y in combinations(letters, 2)]
    rules += [("any", x, y) for x, y in combinations(letters, 2)]
    rules += [("but", x, y) for x, y in permutations(letters, 2)]
    rules += [("atleast", k) for k in range(1, t + 1)] + [("atmost", k) for k in range(t)]
    return rules


@lru_cache(maxsize=1024)  # bounded: generated configs bring new keys forever
def level_rules(t: int, catalog: tuple[str, ...]) -> dict[tuple[int, ...], Rule]:
    """Extension -> the first rule with it, for every rule fitting >= 2 and missing >= 2 {items}."""
    out: dict[tuple[int, ...], Rule] = {}
    for rule in all_rules(t):
        ext = extension(rule, catalog)
        if 2 <= len(ext) <= len(catalog) - 2 and ext not in out:
            out[ext] = rule
    return out


class TagRule(Game):
    name = "TagRule"
    structure = "set"
    inference = "inductive"
    levels = tuple({"t": t, "m": m} for t, m in ((3, 6), (4, 8), (5, 10), (6, 12), (7, 14)))
    budgets = (10, 12, 13, 14, 16)
    queries = (QuerySpec("fits", (int,), "does this {item} fit the hidden {rule}?"),)
    vocabulary = {"item": "item", "items": "items", "tag": "tag", "tags": "tags", "rule": "rule"}
    rules_template = (
        "There are {m} {items}, each with a set of {tags} (each {tag} is one of the letters "
        "{letters}):\n{catalog_lines}\n"
        "I have chosen a hidden {rule} about an {item}'s {tags}; at least 2 {items} fit it and at "
        "least 2 do not. Your goal is to find the {rule}. It has one of these forms:\n{form_lines}\n"
        "Any {rule} of these forms that fits exactly the same {items} above counts as the same "
        "{rule}. You may ask one question per turn using the following format:\n{query_formats}\n"
        "When you know the {rule}, submit it in one of the forms above, for example:\n"
        "{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>but A C</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        t, m = cls.levels[level - 1]["t"], cls.levels[level - 1]["m"]
        letters = string.ascii_uppercase[:t]
        while True:
            picks = rng.choice(2**t, size=m, replace=False)
            catalog = tuple("".join(x for b, x in enumerate(letters) if (int(p) >> b) & 1) for p in picks)
            # every letter must tell items apart, or "has X" would be a trivial rule
            if all(0 < sum(x in tags for tags in catalog) < m for x in letters):
                return {"catalog": catalog}

    def rules_fields(self) -> dict[str, Any]:
        lines = [
            f"  {self.vocab['item']} {i}: {', '.join(tags) if tags else '(no ' + self.vocab['tags'] + ')'}"
            for i, tags in enumerate(self.public["catalog"], 1)
        ]
        forms = [f"  {help_}".format(**self.vocab) for _, help_ in FORMS.values()]
        return {
            "catalog_lines": "\n".join(lines),
            "form_lines": "\n".join(forms),
            "letters": ", ".join(string.ascii_uppercase[: self.params["t"]]),
        }

    def _rules(self) -> dict[tuple[int, ...], Rule]:
        return level_rules(self.params["t"], tuple(self.public["catalog"]))

    def candidate_states(self) -> tuple[Rule, ...]:
        return tuple(self._rules().values())

    def query_args(self, name: str) -> list[tuple]:
        return [(i,) for i in range(1, self.params["m"] + 1)]

    def example_args(self, name: str) -> tuple:
        return (2,)

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        return fits(hidden, self.public["catalog"][args[0] - 1])

    def parse_answer(self, text: str) -> Rule:
        tokens = re.findall(r"[a-z]+|(?:(?<![0-9a-z])-)?\d+", text.lower())
        if not tokens or tokens[0] not in FORMS:
            raise InvalidAction(
                f"the answer {text[:60]!r} does not start with a rule form ({', '.join(FORMS)}); "
                f"submit as {self.answer_format}."
            )
        kinds, help_ = FORMS[tokens[0]]
        params, letters = tokens[1:], string.ascii_lowercase[: self.params["t"]]
        ok = len(params) == len(kinds) and all(
            (p.isdigit() if k == "k" else len(p) == 1 and p in letters) for p, k in zip(params, kinds)
        )
        if not ok:
            raise InvalidAction(
                f"the form {tokens[0]!r} is written {help_.split(':')[0]!r} with X, Y among "
                f"{', '.join(letters.upper())} and k a number."
            )
        rule: Rule = (tokens[0], *(int(p) if k == "k" else p.upper() for p, k in zip(params, kinds)))
        return self._rules().get(extension(rule, tuple(self.public["catalog"])), rule)

    def format_answer(self, target: Hashable) -> str:
        return " ".join(str(x) for x in target)
