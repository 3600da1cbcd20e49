"""Domain templates of the isomorphic-perturbation probe: game -> domain -> vocabulary.

Each game's template maps EVERY key of its ``Game.vocabulary`` to a noun of one of the five
domains of the paper (education, healthcare, transportation, manufacturing, law); the
rules are re-rendered with them, nothing else changes. A template is built from the
shared per-domain lexicon below plus per-game overrides (a noun that reads better in that
game, or an article the game's text needs: "an {edge}"). To add a game: one line in
``TEMPLATES`` naming its vocabulary keys (and overrides); ``tests/test_probes.py`` checks that
the keys match the game's ``vocabulary`` exactly.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DOMAINS", "LEXICON", "TEMPLATES", "domain_template"]

DOMAINS = ("education", "healthcare", "transportation", "manufacturing", "law")

#: Shared nouns per domain, by vocabulary key (ASCII only: observations are printable ASCII).
LEXICON: dict[str, dict[str, str]] = {
    "education": {
        "number": "student number", "numbers": "student numbers",
        "item": "student", "items": "students", "element": "student", "elements": "students",
        "collection": "study group", "set": "study group",
        "node": "student", "nodes": "students",
        "edge": "friendship", "edges": "friendships", "link": "friendship", "links": "friendships",
        "graph": "friendship network", "network": "school friendship network",
        "group": "classroom", "groups": "classrooms",
        "tag": "course", "tags": "courses",
        "rule": "enrolment rule", "rules": "enrolment rules", "examples": "sample enrolments",
    },
    "healthcare": {
        "number": "patient number", "numbers": "patient numbers",
        "item": "patient", "items": "patients", "element": "patient", "elements": "patients",
        "collection": "quarantine group", "set": "quarantine group",
        "node": "patient", "nodes": "patients",
        "edge": "contact", "edges": "contacts", "link": "contact", "links": "contacts",
        "graph": "contact network", "network": "contact-tracing network",
        "group": "ward", "groups": "wards",
        "tag": "symptom", "tags": "symptoms",
        "rule": "triage rule", "rules": "triage rules", "examples": "sample cases",
    },
    "transportation": {
        "number": "bus number", "numbers": "bus numbers",
        "item": "station", "items": "stations", "element": "station", "elements": "stations",
        "collection": "express route", "set": "express route",
        "node": "station", "nodes": "stations",
        "edge": "rail line", "edges": "rail lines", "link": "rail line", "links": "rail lines",
        "graph": "rail network", "network": "regional rail network",
        "group": "fare zone", "groups": "fare zones",
        "tag": "amenity", "tags": "amenities",
        "rule": "routing rule", "rules": "routing rules", "examples": "sample trips",
    },
    "manufacturing": {
        "number": "batch number", "numbers": "batch numbers",
        "item": "machine", "items": "machines", "element": "machine", "elements": "machines",
        "collection": "maintenance batch", "set": "maintenance batch",
        "node": "machine", "nodes": "machines",
        "edge": "conveyor", "edges": "conveyors", "link": "conveyor", "links": "conveyors",
        "graph": "conveyor layout", "network": "factory conveyor network",
        "group": "production shift", "groups": "production shifts",
        "tag": "feature", "tags": "features",
        "rule": "inspection rule", "rules": "inspection rules", "examples": "sample batches",
    },
    "law": {
        "number": "case number", "numbers": "case numbers",
        "item": "witness", "items": "witnesses", "element": "witness", "elements": "witnesses",
        "collection": "witness list", "set": "witness list",
        "node": "defendant", "nodes": "defendants",
        "edge": "business tie", "edges": "business ties", "link": "business tie", "links": "business ties",
        "graph": "network of business ties", "network": "network of business ties",
        "group": "trial chamber", "groups": "trial chambers",
        "tag": "charge", "tags": "charges",
        "rule": "sentencing rule", "rules": "sentencing rules", "examples": "precedents",
    },
}


def _template(keys: str, **overrides: dict[str, str]) -> dict[str, dict[str, str]]:
    """domain -> {key: noun} for the space-separated ``keys``; ``overrides[domain]`` wins."""
    out = {}
    for domain in DOMAINS:
        extra = overrides.get(domain, {})
        out[domain] = {k: extra[k] if k in extra else LEXICON[domain][k] for k in keys.split()}
    return out


#: Nouns of the tree games (a numbered rooted tree: a hierarchy in each domain); "link" is a
#: tree edge here (the games write "{link}s"), "value" a number attached to a node.
_TREE: dict[str, dict[str, str]] = {
    "education": {
        "tree": "school organisation chart", "node": "staff member", "nodes": "staff members", "root": "head teacher",
        "parent": "supervisor", "children": "direct reports", "leaf": "classroom teacher", "leaves": "classroom teachers",
        "subtree": "team", "link": "reporting line", "marked": "certified", "value": "budget",
    },
    "healthcare": {
        "tree": "referral tree", "node": "clinic", "nodes": "clinics", "root": "central hospital",
        "parent": "referring clinic", "children": "referral clinics", "leaf": "local practice",
        "leaves": "local practices", "subtree": "catchment", "link": "referral route", "marked": "accredited",
        "value": "patient load",
    },
    "transportation": {
        "tree": "distribution network", "node": "depot", "nodes": "depots", "root": "central hub",
        "parent": "supplying depot", "children": "feeder depots", "leaf": "terminal stop", "leaves": "terminal stops",
        "subtree": "service area", "link": "delivery route", "marked": "electrified", "value": "daily load",
    },
    "manufacturing": {
        "tree": "bill of materials", "node": "component", "nodes": "components", "root": "final product",
        "parent": "parent part", "children": "subcomponents", "leaf": "raw part", "leaves": "raw parts",
        "subtree": "sub-assembly", "link": "assembly link", "marked": "inspected", "value": "cost",
    },
    "law": {
        "tree": "court hierarchy", "node": "court", "nodes": "courts", "root": "supreme court",
        "parent": "appellate court", "children": "lower courts", "leaf": "local court", "leaves": "local courts",
        "subtree": "jurisdiction", "link": "appeal route", "marked": "specialised", "value": "caseload",
    },
}


def _tree_template(keys: str, **extra: dict[str, str]) -> dict[str, dict[str, str]]:
    """A tree game's template: :data:`_TREE` nouns, then ``extra[domain]``."""
    return _template(keys, **{d: {**_TREE[d], **extra.get(d, {})} for d in DOMAINS})


#: Game name -> domain -> vocabulary (every key of the game's ``vocabulary``).
TEMPLATES: dict[str, dict[str, dict[str, str]]] = {
    "HiddenNumber": _template("number"),
    "HiddenSubset": _template("item items collection"),
    "HiddenEdges": _template(
        "node nodes edge edges graph",
        # the rules say "an {edge}": nouns starting with a vowel sound
        education={"edge": "acquaintance", "edges": "acquaintances"},
        healthcare={"edge": "exposure", "edges": "exposures"},
        transportation={"edge": "express line", "edges": "express lines"},
        manufacturing={"edge": "assembly link", "edges": "assembly links"},
        law={"edge": "affiliation", "edges": "affiliations"},
    ),
    "HiddenColoring": _template("node nodes edge edges graph group groups"),
    "ConnectionRule": _template(
        "node nodes linked rule network",
        education={"linked": "study partners", "rule": "pairing rule", "network": "study-partner network"},
        healthcare={"linked": "in contact", "rule": "transmission rule", "network": "contact network"},
        transportation={"linked": "directly connected", "rule": "connection rule", "network": "rail network"},
        manufacturing={"linked": "wired together", "rule": "wiring rule", "network": "control network"},
        law={"linked": "business partners", "rule": "conflict-of-interest rule", "network": "case file"},
    ),
    "NumberConcept": _template("number numbers rule examples"),
    "TagRule": _template(
        "item items tag tags rule",  # the rules say "an {item}"
        education={"item": "undergraduate", "items": "undergraduates"},
        healthcare={"item": "outpatient", "items": "outpatients"},
        transportation={"item": "airport", "items": "airports"},
        manufacturing={"item": "assembly robot", "items": "assembly robots"},
        law={"item": "offender", "items": "offenders"},
    ),
    "FaultDiagnosis": _template(
        "source sources item items fault",
        education={"source": "teacher", "sources": "teachers", "item": "class", "items": "classes", "fault": "grading error"},
        healthcare={"source": "supplier", "sources": "suppliers", "item": "ward", "items": "wards", "fault": "contaminated batch"},
        transportation={"source": "signal box", "sources": "signal boxes", "item": "line", "items": "lines", "fault": "power failure"},
        manufacturing={"source": "supplier", "sources": "suppliers", "item": "product line", "items": "product lines", "fault": "defective part"},
        law={"source": "informant", "sources": "informants", "item": "case", "items": "cases", "fault": "false statement"},
    ),
    "BrokenLink": _template(
        "node nodes link links network hub",
        education={"node": "school building", "nodes": "school buildings", "link": "footpath", "links": "footpaths",
                   "network": "campus path network", "hub": "main hall"},
        healthcare={"node": "clinic", "nodes": "clinics", "link": "courier route", "links": "courier routes",
                    "network": "courier network", "hub": "central hospital"},
        transportation={"hub": "central station"},
        manufacturing={"node": "workstation", "nodes": "workstations", "hub": "loading dock"},
        law={"node": "court office", "nodes": "court offices", "link": "secure line", "links": "secure lines",
             "network": "court communication network", "hub": "central registry"},
    ),
    "HiddenOrder": _template(
        "item items order",
        education={"order": "presentation order"},
        healthcare={"order": "treatment queue"},
        transportation={"item": "train", "items": "trains", "order": "departure order"},
        manufacturing={"item": "job", "items": "jobs", "order": "production schedule"},
        law={"item": "case", "items": "cases", "order": "hearing schedule"},
    ),
    "MoveRule": _template(
        "cell cells board piece move moves columns rows",
        education={"cell": "classroom", "cells": "classrooms", "board": "school floor plan", "piece": "hall monitor",
                   "move": "walk", "moves": "walks", "columns": "columns", "rows": "rows"},
        healthcare={"cell": "bed", "cells": "beds", "board": "ward layout", "piece": "nurse", "move": "round",
                    "moves": "rounds", "columns": "columns", "rows": "rows"},
        transportation={"cell": "parking bay", "cells": "parking bays", "board": "parking grid", "piece": "tow truck",
                        "move": "manoeuvre", "moves": "manoeuvres", "columns": "lanes", "rows": "rows"},
        manufacturing={"cell": "storage slot", "cells": "storage slots", "board": "warehouse grid", "piece": "robot",
                       "move": "transfer", "moves": "transfers", "columns": "aisles", "rows": "shelf levels"},
        law={"cell": "district", "cells": "districts", "board": "city map", "piece": "patrol officer",
             "move": "patrol leg", "moves": "patrol legs", "columns": "avenues", "rows": "streets"},
    ),
    "OutbreakSource": _template(  # the rules say "An {illness}"
        "person people contact contacts illness source day immune",
        education={"person": "student", "people": "students", "contact": "friend", "contacts": "friends",
                   "illness": "eye infection", "source": "index student", "day": "day", "immune": "vaccinated"},
        healthcare={"person": "patient", "people": "patients", "contact": "ward contact", "contacts": "ward contacts",
                    "illness": "infection", "source": "index patient", "day": "day", "immune": "immune"},
        transportation={"person": "passenger", "people": "passengers", "contact": "fellow traveller",
                        "contacts": "fellow travellers", "illness": "intestinal virus", "source": "first carrier",
                        "day": "day", "immune": "vaccinated"},
        manufacturing={"person": "worker", "people": "workers", "contact": "shift partner", "contacts": "shift partners",
                       "illness": "airborne virus", "source": "first case", "day": "shift", "immune": "vaccinated"},
        law={"person": "inmate", "people": "inmates", "contact": "cell mate", "contacts": "cell mates",
             "illness": "itchy rash", "source": "index inmate", "day": "week", "immune": "vaccinated"},
    ),
    "WeighedBasket": _template(
        "item items basket weight weights",
        education={"item": "course", "items": "courses", "basket": "study plan", "weight": "credit load", "weights": "credit loads"},
        healthcare={"item": "medication", "items": "medications", "basket": "daily prescription", "weight": "dosage",
                    "weights": "dosages"},
        transportation={"item": "parcel", "items": "parcels", "basket": "delivery van", "weight": "load", "weights": "loads"},
        manufacturing={"item": "component", "items": "components", "basket": "shipping crate", "weight": "mass",
                       "weights": "masses"},
        law={"item": "claim", "items": "claims", "basket": "settlement", "weight": "amount", "weights": "amounts"},
    ),
    "LostItems": _template(
        "sequence item items kind kinds position positions",
        education={"sequence": "stack", "item": "exam paper", "items": "exam papers", "kind": "subject",
                   "kinds": "subjects", "position": "place", "positions": "places"},
        healthcare={"sequence": "shipment", "item": "blood sample", "items": "blood samples", "kind": "blood type",
                    "kinds": "blood types", "position": "slot", "positions": "slots"},
        transportation={"sequence": "convoy", "item": "truck", "items": "trucks", "kind": "model", "kinds": "models",
                        "position": "place", "positions": "places"},
        manufacturing={"sequence": "production run", "item": "part", "items": "parts", "kind": "variant",
                       "kinds": "variants", "position": "slot", "positions": "slots"},
        law={"sequence": "case file", "item": "document", "items": "documents", "kind": "document type",
             "kinds": "document types", "position": "page", "positions": "pages"},
    ),
    "RangeSums": _template(
        "sequence position positions value values",
        education={"sequence": "weekly quiz record", "position": "week", "positions": "weeks", "value": "quiz score",
                   "values": "quiz scores"},
        healthcare={"sequence": "dosing schedule", "position": "day", "positions": "days", "value": "dose",
                    "values": "doses"},
        transportation={"sequence": "ridership log", "position": "stop", "positions": "stops",
                        "value": "boarding count", "values": "boarding counts"},
        manufacturing={"sequence": "production log", "position": "shift", "positions": "shifts",
                       "value": "defect count", "values": "defect counts"},
        law={"sequence": "docket", "position": "day", "positions": "days", "value": "filing count",
             "values": "filing counts"},
    ),
    "SequenceRule": _template(
        "sequence term terms position rule",
        education={"sequence": "enrolment series", "term": "yearly enrolment", "terms": "yearly enrolments",
                   "position": "year", "rule": "growth rule"},
        healthcare={"sequence": "dosage schedule", "term": "daily dose", "terms": "daily doses", "position": "day",
                    "rule": "dosing rule"},
        transportation={"sequence": "timetable", "term": "departure time", "terms": "departure times",
                        "position": "slot", "rule": "scheduling rule"},
        manufacturing={"sequence": "output series", "term": "batch size", "terms": "batch sizes", "position": "batch",
                       "rule": "production rule"},
        law={"sequence": "fine schedule", "term": "fine", "terms": "fines", "position": "offence",
             "rule": "sentencing rule"},
    ),
    "SequenceTransform": _template(
        "transformation sequence symbol symbols",
        education={"transformation": "grading procedure", "sequence": "answer sheet", "symbol": "mark", "symbols": "marks"},
        healthcare={"transformation": "lab protocol", "sequence": "sample rack", "symbol": "sample code",
                    "symbols": "sample codes"},
        transportation={"transformation": "rerouting plan", "sequence": "train order", "symbol": "line code",
                        "symbols": "line codes"},
        manufacturing={"transformation": "assembly step", "sequence": "part tray", "symbol": "part code",
                       "symbols": "part codes"},
        law={"transformation": "redaction procedure", "sequence": "file", "symbol": "clause code",
             "symbols": "clause codes"},
    ),
    "SwapHistory": _template(
        "item items row place places move moves",
        education={"item": "student", "items": "students", "row": "line", "place": "spot", "places": "spots",
                   "move": "swap", "moves": "swaps"},
        healthcare={"item": "patient", "items": "patients", "row": "waiting list", "place": "slot", "places": "slots",
                    "move": "reordering", "moves": "reorderings"},
        transportation={"item": "train", "items": "trains", "row": "track queue", "place": "slot", "places": "slots",
                        "move": "shunt", "moves": "shunts"},
        manufacturing={"item": "pallet", "items": "pallets", "row": "conveyor line", "place": "station",
                       "places": "stations", "move": "swap", "moves": "swaps"},
        law={"item": "case", "items": "cases", "row": "docket", "place": "slot", "places": "slots",
             "move": "rescheduling", "moves": "reschedulings"},
    ),
    "HiddenNode": _template(
        "node nodes edges graph step steps",
        education={"step": "handshake", "steps": "handshakes"},
        healthcare={"step": "transmission step", "steps": "transmission steps"},
        transportation={"step": "ride", "steps": "rides"},
        manufacturing={"step": "transfer", "steps": "transfers"},
        law={"step": "degree of separation", "steps": "degrees of separation"},
    ),
    "RouteTaken": _template(
        "node nodes link links network message hops",
        education={"node": "classroom", "nodes": "classrooms", "link": "corridor", "links": "corridors",
                   "network": "corridor network", "message": "note", "hops": "handovers"},
        healthcare={"node": "ward", "nodes": "wards", "link": "corridor", "links": "corridors",
                    "network": "hospital corridor network", "message": "specimen", "hops": "transfers"},
        transportation={"message": "train", "hops": "legs"},
        manufacturing={"node": "workstation", "nodes": "workstations", "message": "work order", "hops": "transfers"},
        law={"node": "court office", "nodes": "court offices", "link": "secure line", "links": "secure lines",
             "network": "court communication network", "message": "sealed document", "hops": "handovers"},
    ),
    "HiddenTreeNode": _tree_template("tree node nodes root children leaf link"),
    "HiddenTreeShape": _tree_template("tree node nodes root parent children link"),
    "TreeLabelRule": _tree_template("tree node nodes root children leaf subtree link marked"),
    "TreeRecursionRule": _tree_template("tree node nodes root children leaf value"),
    "TreeFaultDiagnosis": _tree_template(
        "network node nodes root children leaf leaves power faulty link",
        education={"network": "funding tree", "node": "school office", "nodes": "school offices", "root": "ministry",
                   "children": "funded offices", "leaf": "school", "leaves": "schools", "power": "funding",
                   "faulty": "blocked", "link": "funding channel"},
        healthcare={"network": "medical gas network", "node": "valve", "nodes": "valves", "root": "oxygen plant",
                    "children": "downstream valves", "leaf": "bedside outlet", "leaves": "bedside outlets",
                    "power": "oxygen", "faulty": "blocked", "link": "pipe"},
        transportation={"network": "signalling network", "node": "relay", "nodes": "relays", "root": "control centre",
                        "children": "downstream relays", "leaf": "trackside signal", "leaves": "trackside signals",
                        "power": "signal power", "faulty": "failed", "link": "cable"},
        manufacturing={"network": "compressed-air network", "node": "valve", "nodes": "valves", "root": "compressor",
                       "children": "downstream valves", "leaf": "tool outlet", "leaves": "tool outlets",
                       "power": "air pressure", "faulty": "stuck", "link": "hose"},
        law={"network": "delegation chain", "node": "bureau", "nodes": "bureaus", "root": "ministry of justice",
             "children": "subordinate bureaus", "leaf": "local court", "leaves": "local courts", "power": "mandate",
             "faulty": "suspended", "link": "delegation"},
    ),
    "TreeTraitMutations": _template(  # the rules say "an {tree}" and "{branch}es"
        "tree node nodes root children leaf leaves subtree branch trait mutation mutations",
        education={"tree": "academic genealogy", "node": "scholar", "nodes": "scholars", "root": "founding scholar",
                   "children": "students", "leaf": "current student", "leaves": "current students",
                   "subtree": "academic lineage", "branch": "mentorship branch", "trait": "teaching method",
                   "mutation": "change of method", "mutations": "changes of method"},
        healthcare={"tree": "inheritance pedigree", "node": "family member", "nodes": "family members",
                    "root": "founder", "children": "offspring", "leaf": "living descendant",
                    "leaves": "living descendants", "subtree": "family line", "branch": "family branch",
                    "trait": "genetic marker", "mutation": "mutation", "mutations": "mutations"},
        transportation={"tree": "overground network", "node": "station", "nodes": "stations", "root": "terminus",
                        "children": "next stations", "leaf": "end station", "leaves": "end stations",
                        "subtree": "branch line", "branch": "track branch", "trait": "step-free access",
                        "mutation": "refit", "mutations": "refits"},
        manufacturing={"tree": "assembly tree", "node": "part", "nodes": "parts", "root": "base model",
                       "children": "derived parts", "leaf": "final variant", "leaves": "final variants",
                       "subtree": "product family", "branch": "design branch", "trait": "coating",
                       "mutation": "design change", "mutations": "design changes"},
        law={"tree": "ownership tree", "node": "company", "nodes": "companies", "root": "holding company",
             "children": "subsidiaries", "leaf": "operating company", "leaves": "operating companies",
             "subtree": "corporate group", "branch": "shareholding branch", "trait": "tax exemption",
             "mutation": "status change", "mutations": "status changes"},
    ),
}


def domain_template(game: type | str, domain: str) -> dict[str, str]:
    """The vocabulary of ``game`` (a ``Game`` class or its name) in ``domain``.

    Raises ``ValueError`` naming the game and the domain when there is no template, or when
    the template's keys do not match the game's vocabulary.
    """
    name = game if isinstance(game, str) else game.name
    if domain not in DOMAINS:
        raise ValueError(f"domain must be one of {DOMAINS}, got {domain!r}")
    table = TEMPLATES.get(name, {})
    if domain not in table:
        raise ValueError(
            f"isomorphic probe: game {name!r} has no template for domain {domain!r}; add one to "
            "TEMPLATES in mtp_gym/wrappers/probes/domains.py"
        )
    vocab = dict(table[domain])
    keys: Any = getattr(game, "vocabulary", None)
    if keys is not None and set(keys) != set(vocab):
        raise ValueError(
            f"isomorphic probe: the {domain!r} template of game {name!r} has keys {sorted(vocab)}, "
            f"the game's vocabulary has {sorted(keys)}; update mtp_gym/wrappers/probes/domains.py"
        )
    return vocab
