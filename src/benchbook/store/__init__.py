"""The results store: every run's rows and manifest from data/runs/ in one columnar dataset
(Parquet, one partition per experiment) that DuckDB queries in-process, so an analysis of
many sessions reads one table instead of parsing hundreds of CSV and JSON files. It is
derived: rebuilt incrementally from data/runs/, the append-only source of truth, and never
edited by hand. Sessions travel between clones as one checked file (session_file)."""
