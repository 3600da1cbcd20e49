"""TurnBench-MS (Turing-Machine code breaking), one puzzle in one folder.

``rules``: the criteria, the card data, setup loading/validation and the generator;
``prompts``: the paper's appendix prompts; ``env``: ``TuringMachineEnv`` (``MTP/TuringMachine-v0``);
``inference``: what a player can know from the observations (the oracle and the discrete view share it).
"""
