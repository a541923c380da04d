"""One experiment at a time per machine: the second waits or stops, naming the first."""

import threading
import time

import pytest
from conftest import descendants

from benchbook import measure
from benchbook.runs.runlock import MachineBusy, machine_lock

WAIT_S = 30  # the longest any step here waits: a test that hangs is a failure


@pytest.fixture(autouse=True)
def private_lock(tmp_path, monkeypatch) -> None:
    """A lock of the test's own, and every wait bounded: a real run measuring on this
    machine neither blocks these tests nor is held up by them."""
    monkeypatch.setenv("BENCHBOOK_LOCK_PATH", str(tmp_path / "measuring.lock"))
    monkeypatch.setenv("BENCHBOOK_LOCK_WAIT_S", str(WAIT_S))


def test_a_second_experiment_stops_naming_the_run_that_holds_the_machine(
    runs_dir, monkeypatch
) -> None:
    monkeypatch.setenv("BENCHBOOK_LOCK_WAIT_S", "0")
    with machine_lock("01_io_concurrency") as held:
        held.name_run("20261122T120000Z-01_io_concurrency-abcd")
        with pytest.raises(MachineBusy) as busy:
            measure.run(
                measure.Experiment(
                    "second",
                    ["go-hello"],
                    measure.tool("wrk", connections=2, threads=1, duration="1s"),
                    warmup="0s",
                    repetitions=1,
                )
            )
    message = str(busy.value)
    assert "busy measuring run 20261122T120000Z-01_io_concurrency-abcd" in message
    assert "corrupt both" in message
    assert not runs_dir.exists() and descendants() == []


def test_a_waiting_run_starts_when_the_first_releases_the_machine(capsys) -> None:
    # Each step waits for the one before it by an event, not by the clock: the second run
    # holds the machine only after the first let it go, however slow this machine is.
    held, release, second_holds = threading.Event(), threading.Event(), threading.Event()
    order: list[str] = []

    def first() -> None:
        with machine_lock("first"):
            held.set()
            release.wait(WAIT_S)
            order.append("first releases")

    def second() -> None:
        with machine_lock("second"):
            order.append("second holds")
            second_holds.set()

    threads = [threading.Thread(target=first, daemon=True)]
    threads[0].start()
    assert held.wait(WAIT_S), "the first run never took the machine"
    threads.append(threading.Thread(target=second, daemon=True))
    threads[1].start()
    # The second announces that it waits, then keeps waiting while the first holds on.
    deadline = time.monotonic() + WAIT_S
    while "second: waiting for a first run" not in (out := capsys.readouterr().out):
        assert time.monotonic() < deadline, f"the second run never said it waits: {out!r}"
        time.sleep(0.05)
    assert not second_holds.is_set() and order == []
    release.set()
    assert second_holds.wait(WAIT_S), "the second run never took the machine"
    for thread in threads:
        thread.join(WAIT_S)
        assert not thread.is_alive()
    assert order == ["first releases", "second holds"]
