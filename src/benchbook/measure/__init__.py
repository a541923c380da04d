"""Measuring: everything a stored run depends on (what a plan touches of it is its
run-reuse key: reuse).

The front doors a notebook uses: ``Experiment`` (an experiment's description, built by
the notebook and stored as written), ``run`` (measures one), ``tool`` (the load of one
load tool, from the plug-in table ``tools.TOOLS``), ``hosts`` (where servers and load
tools run, and the link between them), ``verify_servers`` (verification alone) and
``calibrate`` (notebook 00's load-tool ceilings).
"""

from benchbook.measure.hosts.placement import hosts
from benchbook.measure.orchestration import run, verify_servers
from benchbook.measure.tool_calibration import calibrate
from benchbook.measure.tools import tool
from benchbook.runs.experiment import Experiment

__all__ = ["Experiment", "calibrate", "hosts", "run", "tool", "verify_servers"]
