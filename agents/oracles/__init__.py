"""Oracle solvers: near-optimal players that see only what a player sees."""
