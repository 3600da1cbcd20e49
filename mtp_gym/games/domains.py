"""The five domains of the isomorphic-perturbation probe (paper section 3.3), shared by every game.

A query game's rules are symbolic; the probe retells them in one of :data:`DOMAINS`. Each game
carries its own telling, next to its rules: ``Game.domains`` (domain -> a noun for EVERY key of
``Game.vocabulary``, built with :func:`nouns` or :func:`tree_nouns` from the shared word lists
below plus the game's overrides: a noun that reads better in that game, or an article its text
needs, "an {edge}") and ``Game.story`` (a :class:`Story`: the game's own sentences for the
puzzle, the answer and each query). This module holds what the games share: the domains, the
word lists, each domain's FRAME (who asks, how the answer is handed in, the turn budget) and
:meth:`Story.wording`, which sets a story in a frame.

Nothing of the problem changes under the probe: a story has the same ``str.format`` fields as
the game's template, in the same order, and no digits of its own (every number comes from a
field), so a transcript maps 1:1 onto the clean one (``tests/test_probes.py`` checks it, and
that the text differs by more than the nouns). Nouns are ASCII only: observations are printable
ASCII.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["DOMAINS", "FRAMES", "LEXICON", "TREE_LEXICON", "Story", "nouns", "tree_nouns"]

DOMAINS = ("education", "healthcare", "transportation", "manufacturing", "law")

#: Shared nouns per domain, by vocabulary key (ASCII only: observations are printable ASCII).
LEXICON: dict[str, dict[str, str]] = {
    "education": {
        "number": "student number",
        "numbers": "student numbers",
        "item": "student",
        "items": "students",
        "element": "student",
        "elements": "students",
        "collection": "study group",
        "set": "study group",
        "node": "student",
        "nodes": "students",
        "edge": "friendship",
        "edges": "friendships",
        "link": "friendship",
        "links": "friendships",
        "graph": "friendship network",
        "network": "school friendship network",
        "group": "classroom",
        "groups": "classrooms",
        "tag": "course",
        "tags": "courses",
        "rule": "enrolment rule",
        "rules": "enrolment rules",
        "examples": "sample enrolments",
    },
    "healthcare": {
        "number": "patient number",
        "numbers": "patient numbers",
        "item": "patient",
        "items": "patients",
        "element": "patient",
        "elements": "patients",
        "collection": "quarantine group",
        "set": "quarantine group",
        "node": "patient",
        "nodes": "patients",
        "edge": "contact",
        "edges": "contacts",
        "link": "contact",
        "links": "contacts",
        "graph": "contact network",
        "network": "contact-tracing network",
        "group": "ward",
        "groups": "wards",
        "tag": "symptom",
        "tags": "symptoms",
        "rule": "triage rule",
        "rules": "triage rules",
        "examples": "sample cases",
    },
    "transportation": {
        "number": "bus number",
        "numbers": "bus numbers",
        "item": "station",
        "items": "stations",
        "element": "station",
        "elements": "stations",
        "collection": "express route",
        "set": "express route",
        "node": "station",
        "nodes": "stations",
        "edge": "rail line",
        "edges": "rail lines",
        "link": "rail line",
        "links": "rail lines",
        "graph": "rail network",
        "network": "regional rail network",
        "group": "fare zone",
        "groups": "fare zones",
        "tag": "amenity",
        "tags": "amenities",
        "rule": "routing rule",
        "rules": "routing rules",
        "examples": "sample trips",
    },
    "manufacturing": {
        "number": "batch number",
        "numbers": "batch numbers",
        "item": "machine",
        "items": "machines",
        "element": "machine",
        "elements": "machines",
        "collection": "maintenance batch",
        "set": "maintenance batch",
        "node": "machine",
        "nodes": "machines",
        "edge": "conveyor",
        "edges": "conveyors",
        "link": "conveyor",
        "links": "conveyors",
        "graph": "conveyor layout",
        "network": "factory conveyor network",
        "group": "production shift",
        "groups": "production shifts",
        "tag": "feature",
        "tags": "features",
        "rule": "inspection rule",
        "rules": "inspection rules",
        "examples": "sample batches",
    },
    "law": {
        "number": "case number",
        "numbers": "case numbers",
        "item": "witness",
        "items": "witnesses",
        "element": "witness",
        "elements": "witnesses",
        "collection": "witness list",
        "set": "witness list",
        "node": "defendant",
        "nodes": "defendants",
        "edge": "business tie",
        "edges": "business ties",
        "link": "business tie",
        "links": "business ties",
        "graph": "network of business ties",
        "network": "network of business ties",
        "group": "trial chamber",
        "groups": "trial chambers",
        "tag": "charge",
        "tags": "charges",
        "rule": "sentencing rule",
        "rules": "sentencing rules",
        "examples": "precedents",
    },
}


def nouns(keys: str, **overrides: dict[str, str]) -> dict[str, dict[str, str]]:
    """A game's ``domains``: domain -> {key: noun} for the space-separated vocabulary ``keys``,
    from :data:`LEXICON`; ``overrides[domain]`` wins."""
    out = {}
    for domain in DOMAINS:
        extra = overrides.get(domain, {})
        out[domain] = {k: extra[k] if k in extra else LEXICON[domain][k] for k in keys.split()}
    return out


#: Nouns of the tree games (a numbered rooted tree: a hierarchy in each domain); "link" is a
#: tree edge here (the games write "{link}s"), "value" a number attached to a node.
TREE_LEXICON: dict[str, dict[str, str]] = {
    "education": {
        "tree": "school organisation chart",
        "node": "staff member",
        "nodes": "staff members",
        "root": "head teacher",
        "parent": "supervisor",
        "children": "direct reports",
        "leaf": "classroom teacher",
        "leaves": "classroom teachers",
        "subtree": "team",
        "link": "reporting line",
        "marked": "certified",
        "value": "budget",
    },
    "healthcare": {
        "tree": "referral tree",
        "node": "clinic",
        "nodes": "clinics",
        "root": "central hospital",
        "parent": "referring clinic",
        "children": "referral clinics",
        "leaf": "local practice",
        "leaves": "local practices",
        "subtree": "catchment",
        "link": "referral route",
        "marked": "accredited",
        "value": "patient load",
    },
    "transportation": {
        "tree": "distribution network",
        "node": "depot",
        "nodes": "depots",
        "root": "central hub",
        "parent": "supplying depot",
        "children": "feeder depots",
        "leaf": "terminal stop",
        "leaves": "terminal stops",
        "subtree": "service area",
        "link": "delivery route",
        "marked": "electrified",
        "value": "daily load",
    },
    "manufacturing": {
        "tree": "bill of materials",
        "node": "component",
        "nodes": "components",
        "root": "final product",
        "parent": "parent part",
        "children": "subcomponents",
        "leaf": "raw part",
        "leaves": "raw parts",
        "subtree": "sub-assembly",
        "link": "assembly link",
        "marked": "inspected",
        "value": "cost",
    },
    "law": {
        "tree": "court hierarchy",
        "node": "court",
        "nodes": "courts",
        "root": "supreme court",
        "parent": "appellate court",
        "children": "lower courts",
        "leaf": "local court",
        "leaves": "local courts",
        "subtree": "jurisdiction",
        "link": "appeal route",
        "marked": "specialised",
        "value": "caseload",
    },
}


def tree_nouns(keys: str, **extra: dict[str, str]) -> dict[str, dict[str, str]]:
    """A tree game's ``domains``: :data:`TREE_LEXICON` nouns, then ``extra[domain]``."""
    return nouns(keys, **{d: {**TREE_LEXICON[d], **extra.get(d, {})} for d in DOMAINS})


#: Per domain: the opening line, how a query is asked, how the answer is handed in, the budget.
FRAMES: dict[str, dict[str, str]] = {
    "education": {
        "opening": "The school office has a records puzzle for you.",
        "ask": "Each turn you may send the office one request, written exactly like this:",
        "submit": "Once the replies settle it, hand in",
        "turns": "The office reads {budget} messages from you at most, requests and the final one together.",
    },
    "healthcare": {
        "opening": "The hospital's quality team needs your help with a case.",
        "ask": "Each turn you may put one question to the records desk, in exactly this form:",
        "submit": "When the replies leave no doubt, file",
        "turns": "The desk takes {budget} turns from you in all, the final filing included.",
    },
    "transportation": {
        "opening": "The network control room has a question for you.",
        "ask": "Each turn you may radio one query to control, typed exactly as:",
        "submit": "When you are certain, radio in",
        "turns": "Control accepts {budget} turns from you in all, your final report included.",
    },
    "manufacturing": {
        "opening": "The plant's quality office has an open investigation.",
        "ask": "Each turn you may run one check on the plant's system, entered exactly as:",
        "submit": "When the checks settle it, log",
        "turns": "The system allows {budget} turns in all, the final log entry included.",
    },
    "law": {
        "opening": "The court has asked you to settle a question of record.",
        "ask": "Each turn you may file one inquiry with the clerk, worded exactly as:",
        "submit": "When the record settles it, enter",
        "turns": "The clerk accepts {budget} filings from you in all, your finding included.",
    },
}


@dataclass(frozen=True)
class Story:
    """A game's rules told as a story: ``setting`` (the puzzle, before the query list), an
    optional ``note`` (a line after the query list), ``answer`` (what is handed in, before the
    answer format) and ``queries`` (a help line per query name); the same ``str.format`` fields
    as the game's ``rules_template`` and query helps."""

    setting: str
    answer: str
    queries: dict[str, str]
    note: str = ""

    def wording(self, domain: str) -> dict[str, Any]:
        """The ``wording`` (see ``Game.check_wording``) that tells the story in ``domain``'s frame."""
        frame = FRAMES[domain]
        note = f"{self.note}\n" if self.note else ""
        rules = (
            f"{frame['opening']} {self.setting} {frame['ask']}\n{{query_formats}}\n{note}"
            f"{frame['submit']} {self.answer}:\n{{answer_format}}\n{frame['turns']}"
        )
        return {"rules": rules, "queries": dict(self.queries)}
