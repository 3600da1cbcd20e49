"""Player-side inference: what a player can know from the observations alone.

Shared by the oracles (``mtp_gym.agents.oracles``) and the discrete views
(``mtp_gym.wrappers``); nothing here reads hidden state.
"""
