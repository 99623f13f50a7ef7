"""The library side of each command: a config object in, results out (the CLI only parses options)."""
