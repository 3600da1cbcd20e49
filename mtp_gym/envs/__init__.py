"""One module per puzzle: constants, pure rule helpers, the env class."""
