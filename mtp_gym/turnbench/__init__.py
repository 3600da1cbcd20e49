"""TurnBench-MS (Turing-Machine code breaking): pure rules and the paper's prompts.

``rules`` holds the criteria, the card data, setup loading/validation and the generator;
the env (``mtp_gym.envs.turing_machine``), its oracle and its tests all import it.
"""
