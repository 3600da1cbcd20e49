"""Tree-game rules beyond the generic query-game tests."""

from __future__ import annotations

import numpy as np
import pytest

from mtp_gym.core import InvalidAction
from mtp_gym.games.tree_recursion_rule import TreeRecursionRule, node_values
from mtp_gym.games.tree_trait_mutations import count_explanations, explanations, trait_mask
from mtp_gym.games.trees import leaves_of, random_tree


@pytest.mark.parametrize("n, depth", [(7, 2), (12, 3), (18, 4), (26, 5), (36, 6)])
def test_trait_mutation_count_matches_the_enumeration(n, depth):
    rng = np.random.default_rng(n)
    for k in (1, 2, 3, 4):
        parents = random_tree(n, depth, 3, rng)
        mutations = tuple(int(x) + 2 for x in rng.choice(n - 1, size=k, replace=False))
        traits = trait_mask(parents, mutations)
        shown = tuple(v for v in leaves_of(parents) if traits >> v & 1)
        for kk in (k - 1, k, k + 1):
            found = explanations(parents, shown, kk)
            assert count_explanations(parents, shown, kk) == len(found)
        assert tuple(sorted(mutations)) in explanations(parents, shown, k)


PARENTS = (0, 1, 1, 2, 2, 2, 3)  # 1 -> 2, 3; 2 -> 4, 5, 6; 3 -> 7 (depths 0, 1, 1, 2, 2, 2, 2)


def test_tree_recursion_values_and_answers():
    """leaf = A; a node at depth d = OP(children) + B_d; rules giving the same values are one."""
    assert node_values(PARENTS, ("sum", 1, (2, 0)))[1:] == (6, 3, 1, 1, 1, 1, 1)
    assert node_values(PARENTS, ("max", 2, (0, 1)))[1:] == (3, 3, 3, 2, 2, 2, 2)
    game = TreeRecursionRule(1, {"parents": PARENTS}, hidden=("max", 2, (0, 1)))
    assert [game.respond(game.hidden, "value", (v,)) for v in (1, 2, 7)] == [3, 3, 2]
    for text in (
        "leaf=2; node=max+B; B=0,1",
        "LEAF = 2 ; node = max(children) + B_d ; B = [0, 1]",
        "leaf=2; node=min+B; B=0,1",  # min gives every node the same value here
    ):
        assert game.check(game.parse_answer(text)), text
    assert not game.check(game.parse_answer("leaf=2; node=max+1"))  # B_0 = B_1 = 1: the root is 4
    for bad in (
        "leaf=2; node=max+B",  # +B without the list
        "leaf=2; node=max+B; B=0,1,2",  # one number per depth: 2 here
        "leaf=2; node=max+1; B=0,1",  # a number and a list
        "leaf=2; node=2*max+B; B=0,1",  # no multiplier in this rule
        "max, leaf 2",
    ):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)
