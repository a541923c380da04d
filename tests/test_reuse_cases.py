"""Which stored run stands in for a new one (benchbook.measure.reuse), decided from
manifests written into a runs folder of the test's own: the machine must be the same,
the run finished, and of several the newest wins."""

from dataclasses import replace

import pytest

from benchbook.measure import provenance, reuse
from benchbook.measure.provenance import MACHINE_KEYS
from benchbook.measure.run_store import Run
from benchbook.runs.experiment import Experiment, Load

PARAMS = {"targets": ["go-hello"], "loads": [{"connections": 2}], "repetitions": 1}
DESCRIPTION = Experiment("reuse_cases", ["go-hello"], Load("wrk", {"connections": 2}),
                         repetitions=1)  # fmt: skip
RUN_ID = "20261123T120000Z-reuse_cases-aaaa"
CODE = {"harness": "the same code"}
HERE = provenance.machine()
ELSEWHERE = {  # another machine differs in at least one identifying key
    "hostname": "another-host",
    "cpu_model": "Another CPU @ 1.00GHz",
    "logical_cpus": int(HERE["logical_cpus"] or 0) + 2,
    "cpus_available": int(HERE["cpus_available"]) + 2,
    # the same name and CPU name, another generation (as on this kind of VM)
    "cpu": {**HERE["cpu"], "family": str(int(HERE["cpu"]["family"]) + 1)},
    "boot_id": "0123456789abcdef",  # another machine of this kind, or another boot
}


def on_machine(monkeypatch: pytest.MonkeyPatch, machine: dict) -> None:
    """From now on, this process runs on ``machine`` (as provenance describes it)."""
    monkeypatch.setattr(provenance, "machine", lambda: dict(machine))
    monkeypatch.setattr(reuse, "machine", lambda: dict(machine))


def store(runs_dir, run_id: str, fingerprint: str, completed: bool = True) -> Run:
    """A run as Run.create and the end of an experiment leave its manifest."""
    run = Run(runs_dir / run_id)
    run.path.mkdir(parents=True)
    manifest = {"run_id": run_id, "experiment": "reuse_cases", "params": PARAMS,
                "fingerprint": fingerprint}  # fmt: skip
    if completed:
        manifest["completed_utc"] = "2026-11-23T12:00:00+00:00"
    run.write_manifest(manifest)
    return run


def key(description: Experiment = DESCRIPTION) -> str:
    """The fingerprint of this experiment described so, here, its code held still (the
    code's own share is tested in tests/test_reuse.py)."""
    return reuse.experiment_key(description.stored(), CODE)


def test_the_same_experiment_on_the_same_machine_is_reused(runs_dir) -> None:
    run = store(runs_dir, RUN_ID, key())
    assert reuse.stored_run_with(key()) == run.path
    assert reuse.stored_run_with(key(replace(DESCRIPTION, repetitions=2))) is None


@pytest.mark.parametrize("machine_key", MACHINE_KEYS)
def test_a_run_from_another_machine_is_not_reused(runs_dir, monkeypatch, machine_key) -> None:
    on_machine(monkeypatch, HERE | {machine_key: ELSEWHERE[machine_key]})
    store(runs_dir, RUN_ID, key())
    on_machine(monkeypatch, HERE)
    assert reuse.stored_run_with(key()) is None


def test_what_varies_on_one_machine_does_not_make_it_another(runs_dir, monkeypatch) -> None:
    # Load, kernel and memory change between runs on one machine: not part of its identity.
    on_machine(monkeypatch, HERE | {"load_average_1m_at_start": 7.5, "kernel": "0.0.1"})
    run = store(runs_dir, RUN_ID, key())
    on_machine(monkeypatch, HERE | {"load_average_1m_at_start": 0.1, "memory_gib": 1.0})
    assert reuse.stored_run_with(key()) == run.path


def test_an_unfinished_run_is_not_reused_even_when_newer(runs_dir) -> None:
    older = store(runs_dir, "20261123T110000Z-reuse_cases-aaaa", key())
    store(runs_dir, "20261123T120000Z-reuse_cases-bbbb", key(), completed=False)  # interrupted
    assert reuse.stored_run_with(key()) == older.path
    (older.path / "manifest.json").unlink()  # and alone, nothing stands in
    assert reuse.stored_run_with(key()) is None


def test_the_newest_complete_run_wins(runs_dir) -> None:
    ids = ["20261123T120000Z-reuse_cases-0001", "20261124T090000Z-reuse_cases-ffff",
           "20261123T235959Z-reuse_cases-9999"]  # fmt: skip
    for run_id in ids:
        store(runs_dir, run_id, key())
    # Newer still, but of other parameters: not a candidate at all.
    store(runs_dir, "20261125T000000Z-reuse_cases-aaaa", key(replace(DESCRIPTION, repetitions=3)))
    assert reuse.stored_run_with(key()) == runs_dir / "20261124T090000Z-reuse_cases-ffff"
