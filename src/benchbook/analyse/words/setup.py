"""What a run's setup does to its ratios, in a sentence for a notebook's answer: the
cores each server had (pinning sets Go's GOMAXPROCS), and the settings that differ from
an article's (from the run's manifest)."""

from benchbook.runs.manifest import description_of, plan_of


def pinning_caveat(run: object) -> str:
    """'Each server ran on 1 of the machine's 2 cores, so Go's GOMAXPROCS was 1.' — from
    the run's manifest: pinning changes what a Go server can do."""
    manifest = run.manifest()
    cpus = plan_of(manifest).pinning.server_cpus
    total = manifest["provenance"]["machine"]["logical_cpus"]
    if not cpus:
        return (
            f"The servers were not pinned: they shared the machine's {total} cores with "
            "the load tool."
        )
    n = len(cpus)
    return (
        f"Each server ran on {n} of the machine's {total} cores (the load tool on the "
        f"other{'s' if total - n > 1 else ''}), so a Go server's GOMAXPROCS was {n}."
    )


def server_cores(run: object) -> str:
    """'on 1 core (GOMAXPROCS 1)', or 'on every core, unpinned': where the run's servers ran."""
    cpus = plan_of(run.manifest()).pinning.server_cpus
    if not cpus:
        return "on every core, unpinned"
    return f"on {len(cpus)} core{'s' if len(cpus) > 1 else ''} (GOMAXPROCS {len(cpus)})"


def setup_differences(run: object, shared: tuple[str, ...] = ()) -> str:
    """What in this run's setup is known to move a ratio, for a verdict of another size
    than the article's: cores per server, run length, load, rounds (from its manifest;
    the articles' own settings are in each notebook's Setup). ``shared``: the settings
    ('connections', 'users') this run takes from the article, which explain no difference
    and are named as shared instead."""
    manifest = run.manifest()
    plan = plan_of(manifest)
    cpus = plan.pinning.server_cpus
    parts = [f"{len(cpus)} core per server (GOMAXPROCS {len(cpus)})" if cpus else "no pinning"]
    if durations := plan.load_values("duration_s"):
        parts.append("runs of " + ", ".join(f"{d:g} s" for d in durations))
    same = []
    for name in ("connections", "users"):
        if counts := plan.load_values(name):
            (same if name in shared else parts).append(f"{', '.join(map(str, counts))} {name}")
    parts.append(f"{description_of(manifest).repetitions} rounds")
    shared_said = f"; its {' and '.join(same)} are used here too" if same else ""
    return "here " + ", ".join(parts) + f", where the article's differ (see Setup{shared_said})"


def one_process_rounds(restart: bool, which: str = "") -> str:
    """How a notebook's rounds (``which``: 'write' for some of them) differ from the method
    note's (words.conclusions.method_note): nothing if they start their servers afresh."""
    if restart:
        return ""
    return (
        f"Unlike the method note's rounds, this notebook's {which + ' ' if which else ''}rounds "
        "start and warm up the servers once for all rounds, so their repetitions sample what "
        "changes between runs of one process."
    )
