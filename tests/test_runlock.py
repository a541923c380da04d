"""One experiment at a time per machine: the second waits or stops, naming the first."""

import threading
import time

import pytest
from conftest import descendants

from benchbook import measure
from benchbook.measure.runlock import MachineBusy, machine_lock


@pytest.fixture(autouse=True)
def private_lock(tmp_path, monkeypatch) -> None:
    """A lock of the test's own, and every wait bounded: a real run measuring on this
    machine neither blocks these tests nor is held up by them."""
    monkeypatch.setenv("BENCHBOOK_LOCK_PATH", str(tmp_path / "measuring.lock"))
    monkeypatch.setenv("BENCHBOOK_LOCK_WAIT_S", "30")


def test_a_second_experiment_stops_naming_the_run_that_holds_the_machine(
    runs_dir, monkeypatch
) -> None:
    monkeypatch.setenv("BENCHBOOK_LOCK_WAIT_S", "0")
    with machine_lock("01_io_concurrency") as held:
        held.name_run("20261122T120000Z-01_io_concurrency-abcd")
        with pytest.raises(MachineBusy) as busy:
            measure.run(
                "second",
                ["go-hello"],
                measure.tool("wrk", connections=2, threads=1, duration="1s"),
                warmup="0s",
                repetitions=1,
            )
    message = str(busy.value)
    assert "busy measuring run 20261122T120000Z-01_io_concurrency-abcd" in message
    assert "corrupt both" in message
    assert not runs_dir.exists() and descendants() == []


def test_a_waiting_run_starts_when_the_first_releases_the_machine(capsys) -> None:
    held = threading.Event()

    def first() -> None:
        with machine_lock("first"):
            held.set()
            time.sleep(1.5)

    thread = threading.Thread(target=first)
    thread.start()
    held.wait()
    started = time.monotonic()
    with machine_lock("second"):
        waited = time.monotonic() - started
    thread.join()
    assert 1.0 < waited < 10
    assert "second: waiting for a first run" in capsys.readouterr().out
