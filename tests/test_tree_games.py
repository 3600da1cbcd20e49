"""Tree-game rules beyond the generic query-game tests."""

from __future__ import annotations

import numpy as np
import pytest

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
