"""Nothing lost: after a run that created records, every record the server confirmed
(its create answer) must read back as it was created, no id may have been handed out
twice, and the store must hold as many new records as were confirmed.

The load tool keeps the body of every confirming answer (tools.base.LoadPlan capture); the
store's own count comes from the server's count request before and after the run. A
tool stops counting answers still in flight when its time is up while the server
completes them, so the store may hold up to one more record per connection than the
tool saw confirmed; more than that, or fewer, is a loss the counts cannot explain.
"""

import json
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benchbook.measure.instances import Instance, StoreCount
from benchbook.measure.verification import Record, problems, send
from benchbook.runs.sampling import RESOLVE_AT_MOST


@dataclass(frozen=True)
class LostRecords:
    created: int  # confirmed by the server (e.g. 201 answers the tool saw)
    distinct_ids: int
    store_new: int | None  # new records in the store, by its own count
    resolved_checked: int
    resolved_wrong: int
    problems: tuple[str, ...]

    def columns(self) -> dict[str, object]:
        return {
            "created": self.created,
            "distinct_ids": self.distinct_ids,
            "store_new": self.store_new,
            "resolved_checked": self.resolved_checked,
            "resolved_wrong": self.resolved_wrong,
        }


COLUMNS = ("created", "distinct_ids", "store_new", "resolved_checked", "resolved_wrong")


def captured(capture_dir: Path, id_field: str) -> list[Record]:
    """Every record whose creation a load tool saw confirmed (one JSON body per line)."""
    records = []
    for path in sorted(capture_dir.glob("*.txt")):
        for line in path.read_text(errors="replace").splitlines():
            if line.strip():
                fields = json.loads(line)
                records.append(Record(str(fields[id_field]), fields))
    return records


def lost_records(
    instance: Instance,
    capture_dir: Path,
    before: StoreCount,
    after: StoreCount,
    slack: int,
) -> LostRecords:
    """The counts, and what they say was lost (``slack``: answers a tool may not have
    counted, one per connection or user)."""
    spec = instance.spec.records
    assert spec is not None
    records = captured(capture_dir, spec.id_field)
    distinct = len({r.id for r in records})
    store_new = (
        after.records - before.records
        if after.records is not None and before.records is not None
        else None
    )
    resolve = instance.spec.request(spec.resolve)
    # An id handed out twice holds one of its records, no telling which: those are
    # counted above; the records with an id of their own must each read back as created.
    times = Counter(r.id for r in records)
    sample = [r for r in records if times[r.id] == 1]
    if len(sample) > RESOLVE_AT_MOST:
        sample = random.Random(0).sample(sample, RESOLVE_AT_MOST)
    wrong = [r for r in sample if problems(resolve, send(instance.port, resolve, r), r)]
    found = []
    if distinct < len(records):
        found.append(
            f"{len(records):,} records confirmed but only {distinct:,} distinct ids: "
            f"{len(records) - distinct:,} were handed out twice, and each overwrote another"
        )
    if wrong:
        found.append(
            f"{len(wrong):,} of {len(sample):,} records with an id of their own read back "
            f"wrong (e.g. id {wrong[0].id})"
        )
    if store_new is not None and store_new < distinct:
        found.append(f"the store holds {store_new:,} new records for {distinct:,} confirmed ids")
    if store_new is not None and store_new > len(records) + slack:
        found.append(
            f"the store holds {store_new:,} new records, more than the {len(records):,} "
            f"confirmed plus {slack} still in flight"
        )
    return LostRecords(len(records), distinct, store_new, len(sample), len(wrong), tuple(found))
