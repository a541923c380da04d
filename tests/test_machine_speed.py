import json
import os
import sys
from pathlib import Path

import pytest

from benchbook.measure import machine_speed
from benchbook.measure.machine_speed import (
    MachineSpeedError,
    ensure_cpuref,
    measure_speed,
    parse_output,
    python_command,
    run_workload,
    speed_change,
)

GOOD = {
    "workload": "w/v1",
    "iterations": 10,
    "seconds": 0.5,
    "ns_per_op": 5e7,
    "checksum": "ab12",
}


@pytest.mark.slow
def test_the_real_workloads_take_their_time_on_the_cpus_given() -> None:
    cpu = min(os.sched_getaffinity(0))
    speed = measure_speed([cpu], runs=1)

    assert set(speed) == {"python_s", "go_s", "python_runs", "go_runs", "cpus", "workloads"}
    assert speed["cpus"] == [cpu]
    for name in ("python", "go"):
        assert len(speed[f"{name}_runs"]) == 1
        assert speed[f"{name}_s"] == speed[f"{name}_runs"][0]
        assert 0.05 < speed[f"{name}_s"] < 5, f"{name} took {speed[f'{name}_s']} s"
        work = speed["workloads"][name]
        assert work["workload"].startswith(name) and work["iterations"] > 0 and work["checksum"]
    json.dumps(speed)  # stored as it is, so it must serialise


def test_medians_and_workloads_of_interleaved_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    order = []
    go_times, python_times = iter([0.3, 0.1, 0.11]), iter([0.9, 0.7, 0.5])

    def fake_run(name: str, argv: list[str], cpus: list[int] | None) -> dict:
        order.append(name)
        return {
            **GOOD,
            "workload": name,
            "seconds": next(go_times if name == "go" else python_times),
        }

    monkeypatch.setattr(machine_speed, "run_workload", fake_run)
    monkeypatch.setattr(machine_speed, "ensure_cpuref", lambda: Path("/bin/true"))
    speed = measure_speed(None)

    assert order == ["go", "python"] * 3
    assert (speed["go_s"], speed["python_s"]) == (0.11, 0.7)
    assert (speed["go_runs"], speed["python_runs"]) == ([0.3, 0.1, 0.11], [0.9, 0.7, 0.5])
    assert speed["cpus"] == sorted(os.sched_getaffinity(0))
    assert speed["workloads"]["go"] == {"workload": "go", "iterations": 10, "checksum": "ab12"}


def test_runs_that_did_different_work_are_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    checksums = iter(["a", "b", "c", "d"])
    monkeypatch.setattr(
        machine_speed,
        "run_workload",
        lambda name, argv, cpus: {**GOOD, "checksum": next(checksums)},
    )
    monkeypatch.setattr(machine_speed, "ensure_cpuref", lambda: Path("/bin/true"))
    with pytest.raises(MachineSpeedError, match="'go' did different work"):
        measure_speed(None, runs=2)


def test_the_python_workload_is_deterministic() -> None:
    first, again, more = (run_workload("python", python_command(n), None) for n in (50, 50, 51))
    assert first["iterations"] == 50 and first["workload"].startswith("python-")
    assert first["checksum"] == again["checksum"] != more["checksum"]


def test_the_go_workload_is_built_when_missing_or_older_than_its_source(tmp_path: Path) -> None:
    binary = ensure_cpuref(tmp_path / "bin" / "cpuref")
    assert binary.exists()
    first, again = (run_workload("go", [str(binary), "-n", "20"], None) for _ in range(2))
    assert first["iterations"] == 20 and first["workload"].startswith("go-")
    assert first["checksum"] == again["checksum"]
    # Newer than its source: kept as it is. go build sets the output's mtime to now even
    # when it writes nothing, so a distinctive mtime left alone shows that none ran.
    kept = 4102444800  # 2100-01-01, after any source's edit
    os.utime(binary, (kept, kept))
    assert ensure_cpuref(binary) == binary
    assert binary.stat().st_mtime == kept  # not rebuilt
    # Older than its source: built again (now), the same workload.
    os.utime(binary, (0, 0))
    assert ensure_cpuref(binary) == binary
    assert 0 < binary.stat().st_mtime < kept  # rebuilt
    rebuilt = run_workload("go", [str(binary), "-n", "20"], None)
    assert rebuilt["checksum"] == first["checksum"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "not a single JSON line"),
        ("Segmentation fault\n", "not a single JSON line"),
        ('{"workload": "w/v1", "iterations": 10', "not a single JSON line"),
        (json.dumps(GOOD) + "\n" + json.dumps(GOOD), "not a single JSON line"),
        ("[1, 2]", "a JSON list, not an object"),
        (json.dumps({**GOOD, "seconds": None}), "seconds is None"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "checksum"}), "no checksum"),
        (json.dumps({**GOOD, "seconds": -0.5}), "seconds is -0.5"),
        (json.dumps({**GOOD, "seconds": "0.5"}), "seconds is '0.5'"),
        (json.dumps({**GOOD, "iterations": 0}), "iterations is 0"),
        (json.dumps({**GOOD, "iterations": True}), "iterations is True"),
        (json.dumps({**GOOD, "workload": ""}), "workload is ''"),
        ('{"workload": "w", "iterations": 1, "seconds": NaN, "ns_per_op": 1, "checksum": "a"}',
         "seconds is nan"),
    ],
)  # fmt: skip
def test_a_corrupted_output_names_the_workload(text: str, problem: str) -> None:
    with pytest.raises(MachineSpeedError, match=rf"workload 'go' did not .*\({problem}"):
        parse_output("go", text)


def test_a_good_output_is_returned_as_printed() -> None:
    assert parse_output("go", json.dumps(GOOD) + "\n") == GOOD


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("print('garbage')", r"'python' did not print the expected JSON line .*'garbage"),
        ("import sys; print('it broke', file=sys.stderr); sys.exit(3)",
         r"'python' exited with code 3: it broke"),
    ],
)  # fmt: skip
def test_a_failing_workload_process_names_the_workload(code: str, message: str) -> None:
    with pytest.raises(MachineSpeedError, match=message):
        run_workload("python", [sys.executable, "-c", code], None)


def test_speed_change_is_the_relative_change_of_time() -> None:
    work = {"go": {"workload": "g"}, "python": {"workload": "p"}}
    before = {"python_s": 1.0, "go_s": 0.5, "workloads": work}
    after = {"python_s": 1.25, "go_s": 0.4, "workloads": work}
    change = speed_change(before, after)
    assert change == pytest.approx({"python_time_change": 0.25, "go_time_change": -0.2})


def test_references_of_different_workloads_do_not_compare() -> None:
    before = {"python_s": 1.0, "go_s": 0.5, "workloads": {"go": {"iterations": 1}}}
    after = {**before, "workloads": {"go": {"iterations": 2}}}
    with pytest.raises(ValueError, match="different workloads"):
        speed_change(before, after)
