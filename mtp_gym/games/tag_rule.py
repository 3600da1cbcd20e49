"""Tag Rule (set, inductive): infer a hidden conjunctive rule over tag sets from examples.

Concept learning from membership queries (Angluin's setting), on sets. {items} carry sets of
{tags} from the letters ``A, B, ...`` (``t`` letters). The env hides a {rule}: a set ``R`` of 2
or 3 {tags}, and an {item} fits the rule when its {tags} include every {tag} of ``R`` (a subset
relation, ``R <= tags``): "every {item} tagged both C and F fits". The agent makes up example
{items} and asks whether they fit (``fits(S)``: would an {item} carrying exactly the {tags}
``S`` fit? Yes/No), and must induce ``R`` from these labelled examples. Every rule has a
different extension (``fits(R)`` holds for ``R`` and for no smaller set), so the game is
well-posed; the hidden rule is uniform over the ``C(t, 2) + C(t, 3)`` rules.

Why examples made up by the player, not a fixed catalog: with a catalog, a scan of its
{items} one by one (keeping exact books) needs only a few more questions than a good player,
since random {items} split the rules about evenly. Here a scan of the possible examples in
their natural order (by size, then alphabetically: ``AB, AC, ..., ABC, ...``) must test the
candidate rules one at a time (a 2- or 3-{tag} example fits one rule at most), while an
example with half of the letters halves the candidates: about ``log2(rules)`` questions. From
level 2 the budget (the rule of ``mtp_gym/games/README.md``) covers well under a fifth of the
rules, so the scan loses most configurations.

Levels grow the letters ``t``: 5, 9, 10, 11, 12 (20, 120, 165, 220, 286 rules).
"""

from __future__ import annotations

import re
import string
from collections.abc import Hashable
from functools import cache
from itertools import combinations
from typing import Any

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec
from mtp_gym.games.domains import Story, nouns

Rule = tuple  # the rule's tag letters, sorted

#: Fewest and most tags in a rule.
MIN_TAGS, MAX_TAGS = 2, 3


def fits(rule: Rule, tags: str) -> bool:
    """Whether an {item} with the {tag} letters ``tags`` fits ``rule`` (has all its tags)."""
    return all(x in tags for x in rule)


@cache
def all_rules(t: int) -> tuple[Rule, ...]:
    """Every rule over the first ``t`` letters: 2 or 3 {tags}, by size then alphabetically."""
    letters = string.ascii_uppercase[:t]
    return tuple(r for size in range(MIN_TAGS, MAX_TAGS + 1) for r in combinations(letters, size))


@cache
def examples(t: int) -> tuple[str, ...]:
    """Every non-empty set of {tags} over the first ``t`` letters, as a sorted string, by size
    then alphabetically (the order a scan of the examples follows)."""
    letters = string.ascii_uppercase[:t]
    return tuple("".join(c) for size in range(1, t + 1) for c in combinations(letters, size))


class TagRule(Game):
    """Tag Rule (set, inductive): infer a hidden conjunctive rule over sets of letter tags.

    Hidden: a rule, a set of 2 or 3 tags among ``t`` letters; an item fits it when the item carries
    every tag of the rule. Query: ``fits(S)`` (would an item carrying exactly the tags ``S``, letters
    run together, fit?, Yes/No). Answer: the rule's tags. Levels ``t`` = 5, 9, 10, 11, 12 letters:
    20, 120, 165, 220 and 286 rules.
    """

    name = "TagRule"
    structure = "set"
    inference = "inductive"
    levels = tuple({"t": t} for t in (5, 9, 10, 11, 12))
    budgets = (14, 20, 21, 21, 22)
    queries = (
        QuerySpec(
            "fits",
            (str,),
            "would an {item} carrying exactly these {tags} fit the hidden {rule}? (write the letters together)",
        ),
    )
    vocabulary = {"item": "item", "items": "items", "tag": "tag", "tags": "tags", "rule": "rule"}
    rules_template = (
        "Each {item} carries a set of {tags}; every {tag} is one of the letters {letters}. I have "
        "chosen a hidden {rule}: a set of {min_tags} or {max_tags} {tags}. An {item} fits the {rule} when its {tags} "
        "include every {tag} of the {rule} (it may carry other {tags} too). Your goal is to find the "
        "{rule}; ask about {items} you make up, one per question. You may ask one question per turn using the "
        "following format:\n{query_formats}\n"
        "When you know the {rule}, submit its {tags} separated by commas, for example:\n"
        "{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>B, D</answer>"

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "item items tag tags rule",  # the rules say "an {item}"
        education={"item": "undergraduate", "items": "undergraduates"},
        healthcare={"item": "outpatient", "items": "outpatients"},
        transportation={"item": "airport", "items": "airports"},
        manufacturing={"item": "assembly robot", "items": "assembly robots"},
        law={"item": "offender", "items": "offenders"},
    )
    story = Story(
        setting="Every {item} carries some {tags}, and each {tag} is a letter among {letters}. Someone "
        "picked a secret {rule}, which is a set of {min_tags} or {max_tags} {tags}: it takes in exactly the "
        "{items} that carry all of those {tags}, whatever else they carry. Your task: name that {rule}. You "
        "may describe any {item} you like and ask whether the {rule} takes it in.",
        answer="the {tags} that make up the {rule}, with commas between them, for example",
        queries={"fits": "would the {rule} take in an {item} carrying just these {tags}? (letters run together)"},
    )

    def rules_fields(self) -> dict[str, Any]:
        return {
            "letters": ", ".join(string.ascii_uppercase[: self.params["t"]]),
            "min_tags": MIN_TAGS,
            "max_tags": MAX_TAGS,
        }

    def candidate_states(self) -> tuple[Rule, ...]:
        return all_rules(self.params["t"])

    def query_args(self, name: str) -> list[tuple]:
        return [(s,) for s in examples(self.params["t"])]

    def example_args(self, name: str) -> tuple:
        return ("ACD",)

    def parse_query(self, name: str, content: str) -> tuple:
        """``fits``: the letters in any order and case, with or without commas or spaces."""
        if name == "fits":
            letters = string.ascii_uppercase[: self.params["t"]]
            found = re.findall(r"[A-Za-z]", content)
            tags = "".join(sorted({x.upper() for x in found}))
            if not tags or re.search(r"[^A-Za-z,;\s]", content) or not all(x in letters for x in tags):
                raise InvalidAction(
                    f"query_fits takes a set of {self.vocab['tags']} among {', '.join(letters)}, written "
                    f"together as in <query_fits>ACD</query_fits>; got {content.strip()[:40]!r}."
                )
            return (tags,)
        return super().parse_query(name, content)

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        return fits(hidden, args[0])

    def parse_answer(self, text: str) -> Rule:
        letters = string.ascii_uppercase[: self.params["t"]]
        tokens = [x.upper() for x in re.findall(r"[A-Za-z]+", text)]
        if tokens and tokens[0] in ("ALL", "RULE", "TAGS"):
            tokens = tokens[1:]
        if len(tokens) == 1 and len(tokens[0]) > 1:  # "BD"
            tokens = list(tokens[0])
        rule = tuple(sorted(set(tokens)))
        if not MIN_TAGS <= len(rule) <= MAX_TAGS or len(rule) != len(tokens) or not all(x in letters for x in rule):
            raise InvalidAction(
                f"submit {MIN_TAGS} or {MAX_TAGS} different {self.vocab['tags']} among {', '.join(letters)}, "
                f"separated by commas, as {self.answer_format}."
            )
        return rule

    def format_answer(self, target: Rule) -> str:
        return ", ".join(target)
