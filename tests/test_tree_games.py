"""Tree-game rules beyond the generic query-game tests."""

from __future__ import annotations

import time
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from mtp_gym.core import InvalidAction
from mtp_gym.games import tree_fault_diagnosis as fault
from mtp_gym.games import tree_recursion_rule as recursion
from mtp_gym.games import tree_trait_mutations as trait
from mtp_gym.games.tree_fault_diagnosis import TreeFaultDiagnosis
from mtp_gym.games.tree_label_rule import TreeLabelRule
from mtp_gym.games.tree_recursion_rule import TreeRecursionRule, node_values
from mtp_gym.games.tree_trait_mutations import TreeTraitMutations
from mtp_gym.games.trees import (
    depths_of,
    grafted_tree,
    heights_of,
    leaves_of,
    order_of,
    random_tree,
    render_tree,
    subtree_masks,
)


def _small_trees(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(5, 12))
        yield rng, n, random_tree(n, min(n - 1, 3), 3, rng)


def test_trait_explanations_are_every_k_set_with_the_observed_states():
    """Listing, counting and sampling agree with brute force over every k-set of non-root nodes,
    unobserved leaves (below ``hidden_below``) left free."""
    for rng, n, parents in _small_trees(0, 120):
        masks = subtree_masks(parents)
        hidden_below = tuple(v for v in range(2, n + 1) if rng.random() < 0.15)
        hidden_below = tuple(v for v in hidden_below if not any(u != v and masks[u] >> v & 1 for u in hidden_below))
        unseen = 0
        for v in hidden_below:
            unseen |= masks[v]
        k = int(rng.integers(1, 4))
        marked = tuple(int(x) + 2 for x in rng.choice(n - 1, size=k, replace=False))
        on = trait.trait_mask(parents, marked)
        on_leaves = tuple(v for v in leaves_of(parents) if not unseen >> v & 1 and on >> v & 1)

        def shows(cause, parents=parents, unseen=unseen, on_leaves=on_leaves):
            state = trait.trait_mask(parents, cause)
            return tuple(v for v in leaves_of(parents) if not unseen >> v & 1 and state >> v & 1) == on_leaves

        brute = [c for c in combinations(range(2, n + 1), k) if shows(c)]
        found = trait.explanations(parents, hidden_below, on_leaves, k)
        assert list(found) == brute and tuple(sorted(marked)) in found
        assert trait.count_explanations(parents, hidden_below, on_leaves, k) == len(brute)
        sampler = trait._ways(parents, hidden_below, on_leaves, k)
        assert all(sampler.sample(rng) in found for _ in range(3))


def test_fault_explanations_are_every_k_set_covering_exactly_the_covered_leaves():
    for rng, n, parents in _small_trees(1, 120):
        k = int(rng.integers(1, 4))
        marked = tuple(int(x) + 2 for x in rng.choice(n - 1, size=k, replace=False))
        covered = fault.covered_mask(parents, marked)
        covered_leaves = tuple(v for v in leaves_of(parents) if covered >> v & 1)

        def shows(cause, parents=parents, covered_leaves=covered_leaves):
            state = fault.covered_mask(parents, cause)
            return tuple(v for v in leaves_of(parents) if state >> v & 1) == covered_leaves

        brute = [c for c in combinations(range(2, n + 1), k) if shows(c)]
        found = fault.explanations(parents, covered_leaves, k)
        assert list(found) == brute and tuple(sorted(marked)) in found
        assert fault.count_explanations(parents, covered_leaves, k) == len(brute)
        sampler = fault._ways(parents, covered_leaves, k)
        assert all(sampler.sample(rng) in found for _ in range(3))


@pytest.mark.parametrize("cls", [TreeFaultDiagnosis, TreeTraitMutations])
def test_abductive_tree_games_draw_the_cause_uniformly_among_the_explanations(cls):
    """``sample_hidden`` draws from the counts (no listing) and is uniform over the explanations."""
    game = cls.benchmark(1, 0)
    states = game.candidate_states()
    rng = np.random.default_rng(0)
    draws = Counter(game.sample_hidden(rng) for _ in range(400 * len(states)))
    assert set(draws) == set(states)
    assert max(draws.values()) < 1.25 * 400 and min(draws.values()) > 0.75 * 400


@pytest.mark.parametrize("cls", [TreeFaultDiagnosis, TreeTraitMutations])
def test_abductive_tree_games_hide_two_marked_nodes_in_a_large_unseen_part(cls):
    """From level 2 the outcome leaves the place of two marked nodes open among 56 to 84 nodes
    (the two grafted subtrees), which is what keeps a sweep over the nodes out of the budget."""
    for level in (2, 3, 4, 5):
        game = cls.benchmark(level, 0)
        sizes = game.params["grafts"]
        assert len(sizes) == 2 and sum(sizes) >= 56 and game.params["n"] == game.params["rest"] + sum(sizes)
        free = {v for s in game.candidate_states() for v in s}
        assert len(free) >= sum(sizes) - 2


def test_grafted_tree_hangs_each_graft_under_an_inner_node_outside_the_others():
    for seed in range(50):
        rng = np.random.default_rng(seed)
        parents, tops = grafted_tree(20, 4, (8, 6), 3, 3, rng)
        masks, kids = subtree_masks(parents), [0] * (len(parents) + 1)
        for p in parents[1:]:
            kids[p] += 1
        assert [masks[t].bit_count() for t in tops] == [8, 6] and not masks[tops[0]] & masks[tops[1]]
        assert all(kids[parents[t - 1]] >= 2 for t in tops)  # a sibling outside the graft
        assert all(parents[v - 1] < v for v in range(2, len(parents) + 1))  # breadth-first numbers


def test_tree_helpers_take_any_numbering():
    """Depths, heights, subtrees and the rendering follow the tree, not the numbers."""
    rng = np.random.default_rng(3)
    parents = random_tree(20, 5, 3, rng)
    relabel = [0, 1] + [int(x) + 2 for x in rng.permutation(19)]
    shuffled = [0] * 20
    for v in range(2, 21):
        shuffled[relabel[v] - 1] = relabel[parents[v - 1]]
    shuffled = tuple(shuffled)
    assert order_of(shuffled)[0] == 1 and len(order_of(shuffled)) == 20
    for v in range(1, 21):
        assert depths_of(shuffled)[relabel[v]] == depths_of(parents)[v]
        assert heights_of(shuffled)[relabel[v]] == heights_of(parents)[v]
        assert subtree_masks(shuffled)[relabel[v]].bit_count() == subtree_masks(parents)[v].bit_count()
    assert render_tree(parents).splitlines()[0].startswith("  1 -> ")


@pytest.mark.parametrize("cls", [TreeFaultDiagnosis, TreeTraitMutations])
def test_clean_rules_are_symbolic(cls):
    """The clean text speaks of nodes, a tree and a hidden set; the stories bring the domains."""
    text = cls.benchmark(3, 0).rules().lower()
    for word in ("power", "station", "taxon", "taxa", "evolution", "mutation", "species", "fault"):
        assert word not in text, word


PARENTS = (0, 1, 1, 2, 2, 2, 3)  # 1 -> 2, 3; 2 -> 4, 5, 6; 3 -> 7 (depths 0, 1, 1, 2, 2, 2, 2)


def test_tree_label_rule_counts_and_level_ops():
    """``count(v)`` counts the marked nodes on the path from the root to ``v``; a level's rules use
    its ops only, and a submitted rule with another op that marks the same nodes is accepted."""
    game = TreeLabelRule(2, {"parents": PARENTS}, hidden=("depth", ">=", 1))  # ops >= and <=
    assert [game.respond(game.hidden, "marked", (v,)) for v in (1, 2, 4)] == [False, True, True]
    assert [game.respond(game.hidden, "count", (v,)) for v in (1, 3, 4, 7)] == [0, 1, 2, 2]
    assert {op for _, op, _ in game.candidate_states()} == {">=", "<="}
    assert game.check(game.parse_answer("depth >= 1")) and game.check(game.parse_answer("height <= 1"))
    assert TreeLabelRule(1, {"parents": PARENTS}).params["ops"] == (">=",)
    game = TreeLabelRule(2, {"parents": PARENTS}, hidden=("depth", ">=", 2))
    assert game.check(game.parse_answer("depth = 2"))  # the same nodes as depth >= 2 on this tree
    assert "OP is >= or <=" in game.rules()
    with pytest.raises(InvalidAction):
        game.parse_answer("depth > 2")


def test_tree_recursion_rules_differ_and_the_table_matches_the_replies():
    """Every rule gives a tree of its depth different values (the answer is unique), and the
    vectorised answers the oracle reads equal ``respond`` rule by rule."""
    for _rng, _n, parents in _small_trees(2, 12):
        depth = max(depths_of(parents))
        rules = recursion.all_rules(depth, 3, 3)
        assert len(rules) == 4 ** (depth + 1) and len({node_values(parents, r) for r in rules}) == len(rules)
        table = recursion.value_table(parents, depth, 3, 3)
        assert [tuple(row[1:]) for row in table.tolist()] == [node_values(parents, r)[1:] for r in rules]
    game = TreeRecursionRule.benchmark(3, 0)
    for query in game.all_queries():
        assert list(game.candidate_answers(*query)) == [game.respond(s, *query) for s in game.candidate_states()]


def test_tree_recursion_values_and_answers():
    """leaf = A; a node at depth d = the sum of its children + B_d; at_least(v, t) compares."""
    assert node_values(PARENTS, (1, (2, 0)))[1:] == (6, 3, 1, 1, 1, 1, 1)
    game = TreeRecursionRule(1, {"parents": PARENTS}, hidden=(1, (2, 0)))
    asked = ((1, 6), (1, 7), (2, 3), (7, 2))
    assert [game.respond(game.hidden, "at_least", a) for a in asked] == [True, False, True, False]
    assert [game.most(v) for v in (1, 2, 3, 7)] == [21, 12, 6, 3]  # 3 x the nodes of the subtree
    assert len(game.all_queries()) == 21 + 12 + 6 + 4 * 3
    for text in (
        "leaf=1; B=2,0",
        "LEAF = 1 ; node = sum(children) + B_d ; B = [2, 0]",
        "leaf=1; node=sum+B; B=2 0",
    ):
        assert game.check(game.parse_answer(text)), text
    assert not game.check(game.parse_answer("leaf=1; B=0,2"))
    for bad in (
        "leaf=1; node=max+B; B=2,0",  # the rule always adds up the children
        "leaf=1; B=2,0,1",  # one number per depth: 2 here
        "leaf=1",
        "sum, leaf 1",
    ):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)
    for query, reason in (
        ("3, 7", "argument 2 must be 1 to 6 for node 3, not 7"),
        ("8, 1", "argument 1 must be 1 to 7, not 8"),
    ):
        with pytest.raises(InvalidAction, match=reason):
            game.parse_query("at_least", query)


def test_tree_recursion_reads_every_depth_named_and_refuses_what_is_not_one_rule():
    """A model names the parts as the rules do (``A=1``, ``B_0=2, B_1=0``): read when every depth
    is named once; a missing, repeated or extra depth, or a change of mind, is re-prompted."""
    game = TreeRecursionRule(1, {"parents": PARENTS}, hidden=(1, (2, 0)))
    for text in ("A=1; B=2,0", "leaf=1; B_0=2, B_1=0", "A = 1, B_1=0; B_0=2", "a=1 b0=2 b1=0", "leaf=1;B=(2,0)"):
        assert game.parse_answer(text) == (1, (2, 0)), text
    for bad in ("leaf=1; B_0=2", "leaf=1; B_0=2, B_0=0", "leaf=1; B_0=2, B_1=0, B_2=1", "B_0=2, B_1=0",
                "leaf=1; B_0=2, B_1=0; actually B_1=3", "leaf=1; node=min+B; B_0=2, B_1=0"):  # fmt: skip
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)


@pytest.mark.parametrize(
    "hostile",
    ["leaf=1; " + "b0=1 " * 100_000 + "x", "leaf=1; B=1" + "  1" * 100_000 + "x", "leaf=1; B=[" + " " * 100_000 + "x"],
)
def test_tree_recursion_reads_a_long_hostile_answer_in_linear_time(hostile):
    """Each separator is read one way only: 30 repeated items took 6 s before (exponential)."""
    game = TreeRecursionRule(1, {"parents": PARENTS}, hidden=(1, (2, 0)))
    start = time.perf_counter()
    with pytest.raises(InvalidAction):
        game.parse_answer(hostile)
    assert time.perf_counter() - start < 5


def test_tree_recursion_levels_bound_a_and_b_alike():
    """The rules say a value is at most ``a_max`` times the nodes at or below it: true while A and
    every B_d share their bound."""
    assert all(p["a_max"] == p["b_max"] for p in TreeRecursionRule.levels)
