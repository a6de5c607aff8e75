"""One module per command: typed functions that do the work and return an exit code."""
