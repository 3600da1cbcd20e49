"""Word Chaining as a PettingZoo AEC env, in PettingZoo's naming style.

>>> from mtp_gym import word_chain_v0
>>> env = word_chain_v0.env()                            # text actions: "'word'"
>>> masked = word_chain_v0.env(action_type="discrete")  # lexicon index + action_mask
"""

from mtp_gym.multiagent.word_chain import WordChainAECEnv, env, raw_env

__all__ = ["WordChainAECEnv", "env", "raw_env"]
