"""The stored run format as the store reads it. The one module that imports it from where
it lives today, so moving that code (to benchbook.runs) changes these lines only."""

from benchbook.measure.layout import REPO_ROOT, runs_dir
from benchbook.measure.run_store import Run, RunStore
from benchbook.measure.tools.wrk import Wrk, parse_wrk_output

# Raw outputs the import can re-parse cheaply, by the row's tool: the parser's columns must
# equal the row's.
REPARSERS = {Wrk.name: parse_wrk_output}

__all__ = ["REPARSERS", "REPO_ROOT", "Run", "RunStore", "runs_dir"]
