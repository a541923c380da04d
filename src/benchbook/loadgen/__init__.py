"""Load generators: one module per tool, each producing the same tidy measurement."""
