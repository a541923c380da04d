"""The check that nothing was lost, each of its findings raised by a real server that lies.

tests/servers/lying_store.py confirms every create with 201 and then, one way per
variant, stores something else. Each test starts it for real, verifies it (it passes:
its first creates are honest), lets a real 1 s wrk run create records with their
confirmations captured, and runs the real check on what wrk captured and on the store's
own counts before and after, as a measured run does.
"""

import re
from contextlib import ExitStack
from pathlib import Path

import pytest
from conftest import descendants

from benchbook.measure import data_loss
from benchbook.measure.instances import start_instance
from benchbook.measure.registry import Registry, Target
from benchbook.measure.tools.base import LoadPlan, LoadRequest
from benchbook.measure.tools.wrk import ClosedLoopLoad, Wrk
from benchbook.measure.verification import verify

CONNECTIONS = 2  # also the slack: answers wrk may not have counted, one per connection
HONEST_CREATES = 5  # lying_store.py's default: these are stored as sent in every mode


def write_run(test_registry: Registry, variant: str, tmp_path: Path) -> data_loss.LostRecords:
    """One real write run against lying-store ``variant``, and what the check found."""
    spec = test_registry.get("lying-store")
    target = Target("lying-store", variant)
    with ExitStack() as stack:
        instance = start_instance(
            stack, test_registry, spec, target, spec.resolve_params({}), tmp_path / "logs", None
        )
        instance.reset(1)
        verify(instance.port, spec, target.label, records=instance.records)
        create = spec.request(spec.records.create)
        capture_dir = tmp_path / "created"
        plan = LoadPlan(
            (
                LoadRequest(
                    name=create.name,
                    method=create.method,
                    path=create.path,
                    headers=dict(create.headers),
                    body=create.body,
                    expected_status=create.expect.status,
                ),
            ),
            capture_status=create.expect.status,
            capture_dir=capture_dir,
        )
        before = instance.store_count()
        wrk = Wrk(ClosedLoopLoad.from_params(CONNECTIONS, 1, "1s", "1s"))
        result = wrk.run(instance.server.url, plan, tmp_path / "raw" / "wrk", None)
        after = instance.store_count()
        found = data_loss.lost_records(instance, capture_dir, before, after, CONNECTIONS)
    assert result.measured["non_2xx"] == 0
    # Every 201 wrk counted was captured (and a few more it had no time to count).
    assert found.created >= result.measured["requests"] > 100
    assert descendants() == []
    return found


@pytest.mark.slow
def test_an_honest_store_passes_the_check(test_registry, tmp_path) -> None:
    found = write_run(test_registry, "honest", tmp_path)
    assert found.problems == ()
    assert found.distinct_ids == found.created
    assert found.distinct_ids <= found.store_new <= found.created + CONNECTIONS
    assert found.resolved_checked == min(found.created, data_loss.RESOLVE_AT_MOST)
    assert found.resolved_wrong == 0


@pytest.mark.slow
def test_records_that_read_back_wrong_are_named(test_registry, tmp_path) -> None:
    found = write_run(test_registry, "wrong-read", tmp_path)
    (problem,) = found.problems  # the counts are right: only the reads are wrong
    assert re.fullmatch(
        rf"{found.resolved_wrong:,} of {found.resolved_checked:,} records with an id of "
        r"their own read back wrong \(e\.g\. id \d+\)",
        problem,
    ), problem
    # Every record read back was wrong, but the few the server created honestly.
    assert found.resolved_checked == min(found.created, data_loss.RESOLVE_AT_MOST)
    assert found.resolved_checked - HONEST_CREATES <= found.resolved_wrong
    assert found.distinct_ids == found.created


@pytest.mark.slow
def test_a_store_holding_fewer_records_than_were_confirmed_is_named(test_registry, tmp_path):
    found = write_run(test_registry, "drops", tmp_path)
    # Reads come from the cache, which has them all: the store's own count is the witness.
    (problem,) = found.problems
    assert problem == (
        f"the store holds {found.store_new:,} new records for {found.distinct_ids:,} confirmed ids"
    )
    assert found.resolved_wrong == 0
    # Every other record after the honest ones reached the store.
    assert found.store_new == pytest.approx(found.distinct_ids / 2, abs=HONEST_CREATES)


@pytest.mark.slow
def test_a_store_holding_more_records_than_were_confirmed_is_named(test_registry, tmp_path):
    found = write_run(test_registry, "phantoms", tmp_path)
    (problem,) = found.problems
    assert problem == (
        f"the store holds {found.store_new:,} new records, more than the "
        f"{found.created:,} confirmed plus {CONNECTIONS} still in flight"
    )
    assert found.resolved_wrong == 0 and found.distinct_ids == found.created
    # Two records per confirmed create after the honest ones (and per create wrk had no
    # time to count).
    assert 2 * found.created - HONEST_CREATES <= found.store_new
    assert found.store_new <= 2 * (found.created + CONNECTIONS)


@pytest.mark.slow
def test_ids_handed_out_twice_are_counted_exactly(test_registry, tmp_path) -> None:
    # Deterministic, unlike the two-step shorteners' race (tests/test_shortener.py).
    found = write_run(test_registry, "reused-ids", tmp_path)
    twice = found.created - found.distinct_ids
    problem, *in_flight = found.problems  # the overwritten records are not read back
    assert problem == (
        f"{found.created:,} records confirmed but only {found.distinct_ids:,} distinct ids: "
        f"{twice:,} were handed out twice, and each overwrote another"
    )
    assert twice == pytest.approx(found.created / 3, abs=HONEST_CREATES)
    # A create still in flight when wrk stopped counting may have reused the id of the
    # last one it captured: that record then reads back overwritten. At most one per
    # connection; every other record with an id of its own reads back as created.
    assert found.resolved_wrong <= CONNECTIONS
    assert len(in_flight) == (1 if found.resolved_wrong else 0), found.problems
    assert all("read back wrong" in extra for extra in in_flight)
