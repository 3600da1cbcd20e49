"""Circuit Decoding, one puzzle in one folder.

``env``: the gates, truth tables, the generator and ``CircuitDecodingEnv`` (``MTP/CircuitDecoding-v0``);
``inference``: the player's exact posterior over the generator's circuits (the oracle and the
discrete view share it; it reads only observations).
"""
