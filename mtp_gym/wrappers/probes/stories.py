"""Domain tellings of the isomorphic-perturbation probe: the rules retold, not only renamed.

The clean game is the symbolic version (its ``rules_template`` and query helps, with its own
neutral nouns). Under the probe, a game's rules are told as a STORY: its own sentences for the
puzzle (``setting``), for what to submit (``answer``) and for each query (``queries``), set in
a domain's FRAME (who asks, whom the player asks, how the answer is handed in, the turn
budget), and filled with the domain's nouns (``domains.py``). Nothing of the problem changes:
a story has the same ``str.format`` fields as the game's template, every number and XML tag
appears in the same order, and the replies are the game's own, so a transcript maps 1:1 onto
the clean one (``tests/test_probes.py`` checks both, and that the text differs by more than
the nouns).

A story's text holds no digits of its own (the numbers all come from fields) and keeps the
fields in the order of the game's template.
"""

from __future__ import annotations

from typing import Any

from mtp_gym.wrappers.probes.domains import DOMAINS

__all__ = ["FRAMES", "STORIES", "domain_wording"]

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

#: Game name -> its story: ``setting`` (the puzzle, before the query list), an optional ``note``
#: (a line after the query list), ``answer`` (what is handed in, before the answer format) and
#: ``queries`` (a help line per query name).
STORIES: dict[str, dict[str, Any]] = {
    "HiddenNumber": {
        "setting": "One {number} out of {{{domain}}} is the one on file, and nobody has told you which. "
        "Work out which {number} it is.",
        "answer": "that {number}",
        "queries": {
            "odd": "is the {number} on file an odd one?",
            "greater": "is the {number} on file larger than this one?",
            "equal": "is this one the {number} on file?",
        },
    },
    "HiddenSubset": {
        "setting": "Out of sight, a {collection} of different {items} has been put together from the {items} "
        "numbered 1 to {n}; it has no fewer than 1 and no more than {k} of them, and its size is kept secret. "
        "Find out which {items} belong to it.",
        "answer": "every {item} of the {collection}, with commas between them",
        "queries": {
            "member": "does this {item} belong to the {collection}?",
            "count": "how many {items} of the {collection} have a number in this range, both ends included?",
        },
    },
    "ConnectionRule": {
        "setting": "The {nodes} of a {network} carry the numbers 1 to {N}. Whether two different {nodes} "
        "are {linked} is settled by a {rule} that is kept secret; it is one of the following, where K, R "
        "and S stand for numbers:\n{menu_text}\nIdentify that {rule}.",
        "answer": "the {rule}'s name and its numbers (any {rule} that makes exactly the same pairs "
        "{linked} is taken as the same one)",
        "queries": {"linked": "does the {rule} make these two {nodes} {linked}? (give the smaller number first)"},
    },
    "HiddenColoring": {
        "setting": "A {graph} joins the {nodes} numbered 1 to {n} by these {edges}: {edge_list}.\n"
        "Out of sight, the {nodes} were sorted into 3 {groups}, labelled 1 to 3, and no {edge} runs between "
        "two {nodes} of one {group}. {node_cap} {a1} belongs to {group} 1, {node} {a2} to {group} 2 and "
        "{node} {a3} to {group} 3; counted up, {groups} 1, 2 and 3 have {s1}, {s2} and {s3} members. "
        "Recover who belongs where.",
        "answer": "the members of {group} 1, {group} 2 and {group} 3, in that order, with commas between "
        "{nodes} and a vertical bar between {groups}",
        "queries": {
            "count": "among the {nodes} whose number is at most this one, how many belong to {group} 3?",
        },
    },
    "HiddenEdges": {
        "setting": "Out of sight, a {graph} was drawn on the {nodes} numbered 1 to {n}. It has {m} "
        "{edges} in all, each between two different {nodes}, and no pair of {nodes} is joined twice. "
        "Recover every one of its {edges}.",
        "answer": "all {m} {edges}, each written as a pair of {nodes}",
        "queries": {
            "edge": "do these two {nodes} share an {edge}? (give the smaller number first)",
            "below": "how many {edges} run between two {nodes} whose numbers are both at most this one?",
            "above": "how many {edges} run between two {nodes} whose numbers are both at least this one?",
        },
    },
    "HiddenNode": {
        "setting": "A {graph} has the {nodes} numbered 1 to {n}, joined by these {edges}: {edge_list}. "
        "One {step} crosses a single one of them, either way.\nOne of its {nodes} was picked out of sight; find "
        "which one. A question gives a number of {steps} first and a {node} second.",
        "answer": "the picked {node}",
        "queries": {
            "within": "taking this many {steps} (0 to {D}) or fewer from that {node}, could one arrive at the "
            "picked {node}?"
        },
    },
    "HiddenOrder": {
        "setting": "Out of sight, {size} {items} were lined up in a {order}: the {items} numbered 1 to {n}, "
        "which keep to their numerical order among themselves, and two loose {items}, X and Y, which could "
        "have been slotted in anywhere, either one first. Recover the full {order} by finding where X and "
        "where Y ended up ({places_text}). Every question compares X or Y with some other {item}.",
        "answer": "the place of X and the place of Y",
        "queries": {
            "before": "does the first {item} come ahead of the second one in the {order}?",
            "adjacent": "do these two {items} stand side by side in the {order}?",
        },
    },
    "HiddenTreeNode": {
        "setting": "A {tree} has {n} {nodes}, numbered 1 to {n}, with {node} 1 at its {root}; each line "
        "below gives the {children} of one {node}:\n{tree_text}\nOne {node} of it was picked out of "
        "sight. Find which one.",
        "answer": "the number of that {node}",
        "queries": {
            "within": "counting down from this {node}, is the picked {node} either this one or somewhere "
            "beneath it, no more than this many {link}s down (0 to {depth}; that count goes first)?",
        },
    },
    "HiddenTreeShape": {
        "setting": "The {tree} below has {n} {nodes}, numbered 1 to {n}, with {node} 1 as its {root}; each "
        "line gives a {node} followed by its {children}:\n{tree_text}\nTwo further {nodes}, {x} and {y}, "
        "were hung on it out of sight, each directly beneath some {node} of the {tree} (possibly the same "
        "one for both), which became its {parent}. Work out the {parents} of {x} and {y}.",
        "answer": "the {parent} of {x} first, then the {parent} of {y}, with a comma between them",
        "queries": {
            "within": "counting down from the {node} named second, does the loose {node} named third sit no "
            "more than this many {links} (1 to {reach}) beneath it?",
            "depth": "how many {links} lie between this loose {node} and the {root}?",
        },
    },
    "NumberConcept": {
        "setting": "A secret {rule} picks out some of the {numbers} 1 to {n}; you are to work it out "
        "from {examples}. It is written in one of these forms:\n{form_lines}\nIt picks at least 3 "
        "{numbers}, never all of them, and two {rule}s that pick exactly the same {numbers} count as one.",
        "answer": "the {rule}, written in one of the forms above, for example",
        "queries": {
            "member": "is this {number} one that the {rule} picks?",
            "count": "counting up from the first {number} to this one, how many does the {rule} pick?",
        },
    },
    "TagRule": {
        "setting": "Every {item} carries some {tags}, and each {tag} is a letter among {letters}. Someone "
        "picked a secret {rule}, which is a set of {min_tags} or {max_tags} {tags}: it takes in exactly the "
        "{items} that carry all of those {tags}, whatever else they carry. Your task: name that {rule}. You "
        "may describe any {item} you like and ask whether the {rule} takes it in.",
        "answer": "the {tags} that make up the {rule}, with commas between them, for example",
        "queries": {"fits": "would the {rule} take in an {item} carrying just these {tags}? (letters run together)"},
    },
    "OutbreakSource": {
        "setting": "Here are the {contacts} among {people} numbered 1 to {n} (pairs of {people}): "
        "{edge_list}.\nAn {illness} broke out. One {person}, the {source}, had it on {day} 0; on each "
        "{day} after, everyone who had the {illness} passed it on to each of their {contacts} who was "
        "not {immune}, and it spread in no other way. By the end, the {people} who had caught it were "
        "exactly {ill_list}; all the others were {immune}.\nFind the {source}. Questions may only be "
        "about {people} who caught the {illness}.",
        "answer": "the number of the {source}",
        "queries": {
            "by_day": "name a {day} (from 0 to {max_day}) and then a {person}: had that {person} caught the "
            "{illness} by then?",
        },
    },
    "WeighedBasket": {
        "setting": "On file are {n} {items}, numbered 1 to {n}, and each has a known {weight}:\n{weight_lines}\n"
        "Out of your sight, {k} distinct ones among them went into a {basket}; all that is known is the "
        "result: their {weights} add up to {total}. More than one choice of {k} {items} would reach that same sum, "
        "so work out which {k} really make up the {basket}.",
        "answer": "the numbers of those {k} {items}, with commas between them",
        "queries": {
            "contains": "did this {item} go into the {basket}?",
            "weight": "put on the scale only those {items} in the {basket} whose number is at most this one: "
            "what does the scale read?",
        },
    },
    "RouteTaken": {
        "setting": "The {nodes} are numbered 1 to {n}, and the {network} between them consists of these {links}: "
        "{edge_list}.\nSomeone sent a {message} out from {node} {s}, and it turned up at {node} {t} after "
        "exactly {L} {hops}; each of them took it across a single {link}, and it never came back to a {node} "
        "it had already left. Nobody wrote down which way it went: trace it.",
        "answer": "its route, every {node} it was at, in order, from {s} at the start to {t} at the end",
        "queries": {
            "visited": "was the {message} ever at this {node}?",
            "below": "add up the numbers of the {nodes} it was at, its start and end included, leaving out "
            "those numbered above this one: what is the total?",
            "used": "did the {message} cross the {link} joining these two {nodes} (smaller number first)?",
        },
    },
    "FaultDiagnosis": {
        "setting": "The {s} {sources} go by the numbers 1 to {s}, and the {n} {items} by the numbers 1 to {n}. "
        "The two {items} each {source} is tied to are listed below:\n{link_lines}\n"
        "Behind the scenes, exactly {k} of the {sources} have a {fault}, and whenever a {source} has one, "
        "every {item} tied to that {source} is hit. What was seen: the {items} hit were {outcome_text}, "
        "and no others. Find out which {k} {sources} are to blame; more than one group of {k} {sources} "
        "would account for what was seen.",
        "answer": "the numbers of those {k} {sources}, with commas between them",
        "queries": {
            "faulty": "does a {fault} lie with this {source}?",
            "affected": "counting only the {sources} numbered from 1 up to this one, which {items} do those "
            "with a {fault} hit?",
        },
    },
    "TreeFaultDiagnosis": {
        "setting": "The {tree} below joins {n} {nodes}, numbered 1 to {n}. At its top sits {node} 1, the {root}; "
        "on each row a {node} comes first and then its {children}:\n{tree_text}\n"
        "Behind the scenes, exactly {k} {nodes} are {marked} (the {root} never is). Whatever sits at or "
        "beneath a {marked} {node} ends up {covered}, which is why a {marked} {node} lying under another "
        "{marked} one cannot be seen from outside. At the bottom, the {leaves} that are {covered} are "
        "{dark_text}, and every other {leaf} is not. Track down all {k} {marked} {nodes}; more than one "
        "group of {k} {nodes} would account for what was seen.",
        "answer": "the numbers of those {k} {marked} {nodes}, with commas between them",
        "queries": {
            "marked": "is this particular {node} {marked} in its own right?",
            "count": "among the {nodes} whose number is this one or smaller, how many are {marked}?",
        },
    },
    "LostItems": {
        "setting": "Someone dispatched a {sequence} holding {n} {items}. Each {item} belongs to one of two "
        "{kinds}, called A and B, and the dispatched {sequence} switched {kind} at every {item}, A first. "
        "Somewhere along the way, exactly {d} {items} went missing, while the rest came through still in "
        "the order they were sent.\n"
        "Dispatched, in {positions} 1 to {n}: {sent_text}\nReceived: {received_text}\n"
        "Work out which {positions} of the dispatched {sequence} held the missing {items}.",
        "answer": "the {d} {positions} whose {items} went missing, with commas between them",
        "queries": {
            "lost": "did the {item} in this {position} of the dispatched {sequence} go missing?",
            "arrived": "of the {items} the dispatched {sequence} held at {positions} 1 up to this one, both ends "
            "counted, how many came through?",
        },
    },
    "SwapHistory": {
        "setting": "A {row} held {n} {items}, at first in the order {start}, listed from {place} 1 onward. "
        "Over the following {T} {ticks}, out of sight, exactly two {moves} took place, never two in the same "
        "{tick}; each {move} exchanged the {items} standing at two adjacent {places}, p and p+1. When the "
        "{row} was looked at afterwards, its order was {final_text}. Reconstruct what happened: when each "
        "{move} took place and the {place} p at which it made its exchange (p being the lower of the two "
        "{places}). The {ticks} count from 1 to {T}.",
        "answer": "each {move} as {tick}:p, the earlier one first, with commas between them",
        "queries": {
            "row": "just after this {tick}, in what order did the {items} of the {row} stand (only {ticks} 1 to "
            "{before_last} may be asked about)?",
        },
    },
    "TreeTraitMutations": {
        "setting": "The {tree} below has {n} {nodes}, numbered 1 to {n}. Its top is {node} 1, the {root}; "
        "every row names a {node} and then its {children}:\n{tree_text}\n"
        "Out of sight, exactly {k} {nodes} are {marked} (never the {root}). Each {marked} {node} flips the "
        "state of everything at or beneath it, so a {node} ends up {on} precisely when the path down to it "
        "from the {root} meets an odd count of {marked} {nodes} (itself counted), and {off} when the count is "
        "even; the {root} is therefore {off}. What is visible now: nothing was seen of the {leaves} beneath "
        "{unseen_text}; among the remaining {leaves}, those that are {on} are {on_text}, and the "
        "others are {off}. Find the {k} {marked} {nodes}; more than one group of {k} {nodes} would fit what "
        "was seen.",
        "answer": "the numbers of those {k} {marked} {nodes}, with commas between them",
        "queries": {
            "on": "does this {node} end up {on}?",
            "count": "among the {nodes} whose number is this one or smaller, how many are {marked}?",
        },
    },
    "MoveRule": {
        "setting": "The {board} consists of {cells} arranged {w} {columns} across and {w} {rows} down; they are "
        "numbered row by row, starting at the top, each row from left to right:\n{grid}\n"
        "A {piece} waits on {cell} {center}, right in the middle. Out of sight, it was given some kinds of "
        "{moves}, never more than {k} of them. A kind written p+q carries it p {cells} one way (along a "
        "row or a column) and q {cells} the other way, heading wherever it likes; a chess knight, for one, "
        "makes {knight} {moves}. These are all the kinds it could have been given: {menu_text}.\n"
        "Pin down exactly which kinds it got.",
        "answer": "those kinds of {moves}, written p+q, with commas between them",
        "queries": {
            "linked": "with a single {move}, could the {piece} get from {cell} {center} to the {cell} named here?",
            "reach": "counting every {cell} from number 1 through the number named here, how many could the "
            "{piece} get to with a single {move} from {cell} {center}?",
        },
    },
    "RangeSums": {
        "setting": "A {sequence} with {length} {values} has been filled in out of your sight, one for each of "
        "the {positions} 1 to {length}. Somewhere between 1 and {k} of these {values} (you are not told how "
        "many) are whole numbers from 1 to {top}; each of the rest is 0. Recover every {value} in the {sequence}.",
        "answer": "only the non-zero {values}, each one written as {position}:{value}, going from the first "
        "{position} to the last with commas between them (any {position} you leave out counts as zero)",
        "queries": {
            "sum": "adding up the {values} from {position} 1 through this one, what do you get?",
        },
    },
    "SequenceRule": {
        "setting": "A {rule} kept out of your sight produces the {sequence}, which goes on forever and holds "
        "only whole numbers. Deduce the {rule} by looking at some of its {terms}. It takes one of the "
        "following shapes, each parameter being a whole number within the range stated for it:\n{form_lines}\n"
        "If two such {rule}s agree on the first {K} {terms}, they are treated as one and the same. Each "
        "request is about those first {K} {terms} only ({positions_text}).",
        "answer": "the {rule}, written in one of the shapes above, as in this example",
        "queries": {
            "term": "which {term} does the {sequence} show for this {position}?",
            "total": "adding up every {term} from the start of the {sequence} through this {position}, what do "
            "you get?",
        },
    },
    "SequenceTransform": {
        "setting": "A secret {transformation} takes any {run} of consecutive {numbers}, starting at some "
        "{number} i and ending at some {number} j ({range_text}), and turns it into a new {sequence}. It "
        "works in one of the ways below, each with a single whole-number setting kept within the stated "
        "range:\n{form_lines}\n"
        "Figure out the {transformation} from what it does to the {runs} you pick. Each request hands it "
        "one {run}, given by its first and last {number}.",
        "answer": "the way the {transformation} works and its setting, in the style of this example",
        "queries": {
            "apply": "when the hidden {transformation} is applied to the {run} going from the first {number} to "
            "the second, what comes out?",
        },
    },
    "TreeLabelRule": {
        "setting": "The {tree} below has {n} {nodes}, numbered 1 to {n}, with {node} 1 as its {root}; each "
        "line gives a {node} followed by its {children}:\n{tree_text}\n"
        "Some {nodes} are {marked}, and which ones is settled by a secret rule of the shape FEATURE OP K: "
        "a {node} counts as {marked} precisely when comparing its FEATURE to the whole number K with OP comes "
        "out true. OP is {op_list}, and FEATURE is one of these measures of a {node}:\n"
        "  depth: how many {link}s lie between the {root} and it (the {root} itself: depth 0),\n"
        "  children: how many {children} it has,\n"
        "  height: how many {link}s its longest downward path to a {leaf} contains (a {leaf}: height 0),\n"
        "  size: how many {nodes} its {subtree} holds, counting itself,\n"
        "  leaves: how many {nodes} of its {subtree} have no {children} of their own (1 for a {leaf}).\n"
        "Under the rule at least one {node} is {marked}, and at least one is not. Infer the rule from "
        "examples.",
        "answer": "the rule (one that makes exactly the same {nodes} of this {tree} {marked} will be accepted)",
        "queries": {
            "marked": "does the rule make this {node} {marked}?",
            "count": "how many {nodes} along the way from the {root} down to this {node}, both ends counted, "
            "does the rule make {marked}?",
        },
    },
    "TreeRecursionRule": {
        "setting": "The {tree} below has {n} {nodes}, numbered 1 to {n}, with {node} 1 as its {root}; each "
        "line gives a {node} followed by its {children}:\n{tree_text}\n"
        "Each {node} carries a {value}, worked out from the bottom up by a secret rule. A {leaf}, having "
        "no {children}, gets the {value} A. Any other {node} gets OP(the {value}s of its {children}) + B_d, "
        "where d tells how far down it lies: the {root} is at depth 0, its {children} at depth 1, and so "
        "forth. OP is one of sum, max and min, and it does not change from one depth to the next; A is a "
        "whole number from 0 to {a_max}; and every depth d from 0 to {last_depth} comes with a whole number "
        "B_d of its own, from 0 to {b_max}. Work the rule out from examples.",
        "answer": "the rule, written leaf=A; node=OP+B; B={b_names} (any rule under which each {node} of "
        "this {tree} ends up with the same {value} will be accepted)",
        "queries": {
            "value": "which {value} does this {node} carry?",
        },
    },
    "BrokenLink": {
        "setting": "In a {network}, the {nodes} numbered 1 to {n} are connected by these {links}, each with "
        "its own tag: {link_list}. {node_cap} 1 serves as the {hub}. {k} of the {links}, no more and no "
        "fewer, have failed; as a result {node_plural} {lost_list} can no longer get to the {hub}, while every "
        "other {node} still can.\nTrack down the {k} failed {links}.",
        "answer": "those {k} failed {links}, each written as a pair of {nodes}",
        "queries": {
            "broken": "among the {links} tagged #1 through the tag given here, how many failed?",
        },
    },
}


def domain_wording(game: type | str, domain: str) -> dict[str, Any]:
    """The ``wording`` (see ``Game.check_wording``) that tells ``game`` as a story in ``domain``.

    Raises ``ValueError`` naming the game when it has no story, or the domain when unknown.
    """
    name = game if isinstance(game, str) else game.name
    if domain not in DOMAINS:
        raise ValueError(f"domain must be one of {DOMAINS}, got {domain!r}")
    if name not in STORIES:
        raise ValueError(
            f"isomorphic probe: game {name!r} has no story; add one to STORIES in mtp_gym/wrappers/probes/stories.py"
        )
    story, frame = STORIES[name], FRAMES[domain]
    note = f"{story['note']}\n" if story.get("note") else ""
    rules = (
        f"{frame['opening']} {story['setting']} {frame['ask']}\n{{query_formats}}\n{note}"
        f"{frame['submit']} {story['answer']}:\n{{answer_format}}\n{frame['turns']}"
    )
    return {"rules": rules, "queries": dict(story["queries"])}
