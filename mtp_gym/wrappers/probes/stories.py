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
        "setting": "A {collection} of exactly {k} different {items} has been put together out of sight, "
        "drawn from the {items} numbered 1 to {n}. Find out which {items} belong to it.",
        "answer": "the {k} {items} of the {collection}, with commas between them",
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
        "Out of sight, the {nodes} were sorted into no more than 3 {groups}, and no {edge} runs between "
        "two {nodes} of one {group} (the {groups} carry no names and come in no order). Recover the {groups}.",
        "answer": "the {groups}, with commas between {nodes} and a vertical bar between {groups}",
        "queries": {
            "same": "do these two {nodes} share a {group}? (give the smaller number first)",
            "size": "counting this {node} itself, how many {nodes} does its {group} hold?",
        },
    },
    "HiddenEdges": {
        "setting": "Out of sight, a {graph} was drawn on the {nodes} numbered 1 to {n}. It has {m} "
        "{edges} in all, each between two different {nodes}, and no pair of {nodes} is joined twice. "
        "Recover every one of its {edges}.",
        "answer": "all {m} {edges}, each written as a pair of {nodes}",
        "queries": {
            "edge": "do these two {nodes} share an {edge}? (give the smaller number first)",
            "degree": "how many {edges} does this {node} have?",
        },
    },
    "HiddenNode": {
        "setting": "A {graph} has the {nodes} numbered 1 to {n}, joined by these {edges}: {edge_list}. "
        "One {step} crosses a single one of them, either way.\nOne of its {nodes} was picked out of sight; find "
        "which one. A question names a {node} first and a number of {steps} second.",
        "answer": "the picked {node}",
        "queries": {
            "within": "can the picked {node} be reached from this {node} in this many {steps} (0 to 2) or fewer?"
        },
    },
    "HiddenOrder": {
        "setting": "Out of sight, the {n} {items} {letters} were lined up in a {order}, each of them "
        "appearing once. Recover the full {order}, from its first {item} to its last.",
        "answer": "the {items} in that {order}, with commas between them",
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
            "in_subtree": "is the picked {node} either this {node} or somewhere below it?",
            "depth": "how many {link}s lie between the picked {node} and the {root}?",
            "leaf": "does the picked {node} have no {children} at all (is it a {leaf})?",
        },
    },
    "HiddenTreeShape": {
        "setting": "Out of sight, a {tree} was built on the {nodes} 1 to {n}. {node_cap} 1 is its {root}; "
        "each of the others hangs from exactly one {parent}, whose number is always lower than its own. "
        "Work out the {parent} of each {node}.",
        "note": "(An ancestor question names two {nodes} a and b with 2 <= a < b <= {n}.)",
        "answer": "the {parent}s of {nodes} 2, 3, ..., {n}, in that order, with commas between them",
        "queries": {
            "ancestor": "does the path from the {root} down to the second {node} pass through the first?",
            "depth": "how many {link}s lie between this {node} and the {root}?",
            "children": "how many {children} hang directly from this {node}?",
        },
    },
    "NumberConcept": {
        "setting": "A secret {rule} picks out some of the {numbers} 1 to {n}; you are to work it out "
        "from {examples}. It is written in one of these forms:\n{form_lines}\nIt picks at least 3 "
        "{numbers}, never all of them, and two {rule}s that pick exactly the same {numbers} count as one.",
        "answer": "the {rule}, written in one of the forms above, for example",
        "queries": {"member": "is this {number} one that the {rule} picks?"},
    },
    "TagRule": {
        "setting": "The list below shows, for {m} {items}, which {tags} each one carries (every {tag} is a "
        "letter among {letters}):\n{catalog_lines}\nSomeone picked a secret {rule} on the {tags} of an "
        "{item}; it takes in 2 or more of the listed {items} and leaves out 2 or more. Your task: name "
        "that {rule}. Its possible forms are:\n{form_lines}\nForms that take in exactly the same listed "
        "{items} name one and the same {rule}.",
        "answer": "the {rule}, in one of the forms above, for example",
        "queries": {"fits": "does the {rule} take in this {item}?"},
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
            "earlier": "was the first {person} infected on an earlier {day} than the second?",
            "by_day": "had this {person} caught the {illness} by this {day} (0 to 3)?",
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
            "count": "among the {items} that went into the {basket}, how many carry a number inside this "
            "range, both ends counted?",
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
            "used": "did the {message} cross the {link} joining these two {nodes} (smaller number first)?",
        },
    },
    "FaultDiagnosis": {
        "setting": "The {s} {sources} go by the letters {letters}, and the {n} {items} by the numbers 1 to {n}. "
        "The {items} each {source} is tied to are listed below:\n{link_lines}\n"
        "Behind the scenes, exactly {k} of the {sources} have a {fault}, and whenever a {source} has one, "
        "every {item} tied to that {source} is hit. What was seen: the {items} hit were {outcome_text}, "
        "and no others. Find out which {k} {sources} are to blame; more than one group of {k} {sources} "
        "would account for what was seen.",
        "answer": "the letters of those {k} {sources}, with commas between them",
        "queries": {
            "faulty": "does a {fault} lie with this {source}?",
            "reach": "of the {sources} tied to this {item}, how many have a {fault}?",
        },
    },
    "TreeFaultDiagnosis": {
        "setting": "The {network} below joins {n} {nodes}, numbered 1 to {n}. At its top sits {node} 1, the "
        "{root}; on each row a {node} comes first and then its {children}, every one of which it feeds "
        "through a {link} of its own:\n{tree_text}\n"
        "{power_cap} starts at the {root} and travels down each {link}, but it goes no further than a {node} "
        "that is {faulty}: a {node} is left without {power} precisely when it is {faulty} itself or sits "
        "somewhere under a {faulty} {node}. At least one {node} is {faulty}, and no {faulty} {node} sits "
        "underneath another one. At the bottom, the {leaves} that get no {power} are {dark_text}, and every "
        "other {leaf} does get it. Track down each {faulty} {node} behind this.",
        "answer": "the numbers of all the {faulty} {nodes}, with commas between them",
        "queries": {
            "powered": "does {power} reach this {node}?",
            "faulty": "is this particular {node} {faulty} in its own right?",
        },
    },
    "LostItems": {
        "setting": "Someone dispatched a {sequence} holding {n} {items}. Each {item} belongs to one of two "
        "{kinds}, called A and B. Somewhere along the way, exactly {d} {items} went missing, while the rest "
        "came through still in the order they were sent.\n"
        "Dispatched, in {positions} 1 to {n}: {sent_text}\nReceived: {received_text}\n"
        "Work out which {positions} of the dispatched {sequence} held the missing {items}.",
        "answer": "the {d} {positions} whose {items} went missing, with commas between them",
        "queries": {
            "lost": "did the {item} in this {position} of the dispatched {sequence} go missing?",
            "arrived": "of the {items} the dispatched {sequence} held at {positions} i to j, both ends counted, "
            "how many came through?",
        },
    },
    "SwapHistory": {
        "setting": "A {row} held {n} {items}, at first in the order {start}, listed from {place} 1 onward. "
        "After that, {m} {moves} took place out of sight, one after another; each {move} exchanged the "
        "{items} standing at two adjacent {places}, p and p+1, and the same pair of {places} may have been "
        "exchanged by more than one {move}. When the {row} was looked at afterwards, its order was "
        "{final_text}. Reconstruct what happened: for each of the {m} {moves}, in sequence, the {place} p "
        "at which it made its exchange (p being the lower of the two {places}). The {moves} count from 1 to {m}.",
        "answer": "the p of each {move}, first to last, with commas between them",
        "queries": {
            "place": "just after this {move} was made, which {place} (1 to {n}) did this {item} occupy "
            "(only {moves} 1 to {before_last} may be asked about)?",
            "moved": "did this {move} involve this {item}, as one of the pair it exchanged?",
        },
    },
    "TreeTraitMutations": {
        "setting": "The {tree} below has {n} {nodes}, numbered 1 to {n}. Its top is {node} 1, the {root}; "
        "every row names a {node} and then its direct {children}, each connected to it by a {branch}:\n"
        "{tree_text}\n"
        "At the {root}, the {trait} is absent. Further down, exactly {k} {mutations} have occurred out of "
        "sight, each one on the {branch} leading into some {node}, and no {branch} got more than one. Every "
        "{mutation} flips the {trait}, turning it on where it was absent and off where it was present, for "
        "that {node} and for all that lies beneath it; so a {node} ends up with the {trait} precisely when "
        "the path down to it from the {root} carries an odd count of {mutations}. What is visible now: among "
        "the {leaves}, that is the {nodes} with no {children}, those with the {trait} are {trait_text}, and "
        "the remaining {leaves} do not have it. Find the {k} {nodes} whose incoming {branch} bore a "
        "{mutation}.",
        "answer": "the numbers of those {k} {nodes}, with commas between them",
        "queries": {
            "trait": "is the {trait} present at this {node}?",
            "mutations": "counting the {branch} leading into this {node} and every {branch} within its "
            "{subtree}, how many {mutations} occurred there?",
        },
    },
    "MoveRule": {
        "setting": "The {board} consists of {cells} arranged {w} {columns} across and {h} {rows} down; they are "
        "numbered row by row, starting at the top, each row from left to right:\n{grid}\n"
        "A {piece} gets around it using some of the kinds of {moves} listed below (at least one kind), "
        "each in any direction that keeps it on the {board}; it never remains where it is:\n{menu_text}\n"
        "Which kinds it is allowed has been kept from you. Pin down exactly that set of kinds.",
        "answer": "the names of the kinds of {moves} the {piece} is allowed, with commas between them",
        "queries": {
            "linked": "could the {piece} get from one of these two {cells} to the other with a single {move} "
            "(smaller number first)?",
            "degree": "starting at this {cell}, how many different {cells} could the {piece} reach with a "
            "single {move}?",
        },
    },
    "RangeSums": {
        "setting": "A {sequence} with {length} {values} has been filled in out of your sight, one for each of "
        "the {positions} 1 to {length}. Precisely {k} of these {values} are {nonzero}; "
        "each of the rest is 0. Recover every {value} in the {sequence}.",
        "answer": "the {values}, one per {position} in order, with commas between them",
        "queries": {
            "sum": "adding up the {values} of {positions} i to j, both ends counted, what do you get?",
        },
    },
    "SequenceRule": {
        "setting": "A {rule} kept out of your sight produces the {sequence}, which goes on forever and holds "
        "only whole numbers. Deduce the {rule} by looking at some of its {terms}. It takes one of the "
        "following shapes, each parameter being a whole number within the range stated for it:\n{form_lines}\n"
        "If two such {rule}s agree on the first {K} {terms}, they are treated as one and the same. Each "
        "request reveals a single {term}, for any {position} from 1 to {K}.",
        "answer": "the {rule}, written in one of the shapes above, as in this example",
        "queries": {
            "term": "which {term} does the {sequence} show for this {position}?",
        },
    },
    "SequenceTransform": {
        "setting": "A secret {transformation} rewrites any {sequence} made of {L} {symbols}, each one a digit "
        "from 0 to {top}, into a new one, again of {L} {symbols}. First it gives each {symbol} a new label "
        "through a hidden {relabelling}, which is written as the new labels of {digits} in that "
        "order (so map {example_map}, for example, sends 0 to {example_first}); after that it rearranges the "
        "{sequence} by one of these operations:\n{order_lines}\n"
        "Figure out the {transformation} from what it does to inputs you pick. Two {transformation}s that "
        "produce the same output for every input are regarded as identical. Each request hands it one input "
        "{sequence} of your choice.",
        "answer": "the operation and the relabelling of the {transformation}, in the style of this example",
        "queries": {
            "apply": "when the hidden {transformation} is applied to this input {sequence}, what comes out?",
        },
    },
    "TreeLabelRule": {
        "setting": "The {tree} below has {n} {nodes}, numbered 1 to {n}, with {node} 1 as its {root}; each "
        "line gives a {node} followed by its {children}:\n{tree_text}\n"
        "Some {nodes} are {marked}, and which ones is settled by a secret rule of the shape FEATURE OP K: "
        "a {node} counts as {marked} precisely when comparing its FEATURE to the whole number K with OP comes "
        "out true. OP is one of >=, <= and =, and FEATURE is one of these measures of a {node}:\n"
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
        "setting": "In a {network}, the {nodes} numbered 1 to {n} are connected by these {links}: {edge_list}. "
        "{node_cap} 1 serves as the {hub}. {k} of the {links}, no more and no fewer, have failed; as a "
        "result {node_plural} {lost_list} can no longer get to the {hub}, while every other {node} still "
        "can.\nTrack down the {k} failed {links}.",
        "answer": "those {k} failed {links}, each written as a pair of {nodes}",
        "queries": {
            "working": "does the {link} joining these two {nodes} still work? (give the smaller number first)",
            "reach": "is there still a way between these two {nodes}? (give the smaller number first)",
            "broken": "counting the failed {links} that touch at least one {node} numbered from the first to "
            "the second, both ends included, how many are there? (the same {node} twice counts the failed "
            "{links} of that {node})",
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
