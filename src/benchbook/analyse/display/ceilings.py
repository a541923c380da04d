"""The load-tool calibration (notebook 00) as a reader sees it: each setting's ceiling
with its interval, which side held it back, and the sentence the method sections cite.
The ceilings themselves, and each row's headroom, are measure.calibration's."""

import pandas as pd

from benchbook.analyse.display.tables import summary_table
from benchbook.analyse.rows.counted import valid_rows
from benchbook.analyse.rows.limits import side_limit
from benchbook.analyse.rows.names import titled
from benchbook.runs.calibration import Ceilings
from benchbook.runs.limits import Limit

# What set a setting's rate, as the ceiling table names it (rows.limits: most of its runs).
LIMITED_BY = {Limit.LOAD_TOOL: "load tool", Limit.SERVER: "server"}


# The runs a ceiling is the median of: those whose rate the tool or the server set, as
# measure.calibration.ceilings_from counts them (a busy machine's run measures neither).
SET_A_CEILING = (str(Limit.LOAD_TOOL), str(Limit.SERVER))


def ceiling_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per tool setting: median req/s with its CI over the runs a ceiling counts
    (SET_A_CEILING: the figure the ceilings sentence gives), how many of the valid runs
    those are, the CPU both sides used, and which of them set the limit (runs.limits, most
    of its runs; 'neither' for anything else)."""
    every = summary_table(results, by=["tool_setting"])
    counted_runs = results[results["limit"].isin(SET_A_CEILING)] if "limit" in results else results
    counted = summary_table(counted_runs, by=["tool_setting"]).reindex(every.index)
    table = every.assign(**{column: counted[column] for column in MEASURED})
    valid = valid_rows(results).groupby("tool_setting").size()
    table["runs"] = valid.reindex(every.index).fillna(0).astype(int)
    table["runs counted"] = counted["runs"].fillna(0).astype(int)
    by_setting = results.assign(target=results["tool_setting"])
    table["limited by"] = [
        LIMITED_BY.get(side.limit, "neither") if (side := side_limit(by_setting, s)) else "neither"
        for s in table.index
    ]
    return table[["runs", "runs counted", *MEASURED, "limited by", "flags"]]


# What the table gives over the counted runs alone.
MEASURED = ("req/s", "req/s CI", "CI level", "client CPU %", "server CPU %", "host CPU steal %")


def limits_sentence(table: pd.DataFrame) -> str:
    """Which settings were held back by the tool itself and which by the server, from a
    ceiling_table."""
    meaning = {
        "load tool": "by the load tool itself",
        "server": "by the server (the tool's own ceiling is higher)",
        "neither": "by neither side's CPU (a busy machine, or nothing measured at its limit)",
    }
    groups: dict[str, list[str]] = {}
    for setting, limit in table["limited by"].items():
        groups.setdefault(limit, []).append(str(setting))
    return (
        "Limited "
        + "; ".join(
            f"{meaning[limit]}: {', '.join(settings)}" for limit, settings in groups.items()
        )
        + "."
    )


def ceilings_sentence(ceilings: Ceilings) -> str:
    """'Load-tool ceilings …: wrk: 22,133 req/s; …', fastest first (the method sections
    cite this). No setting is put as 'N× below' another: the settings ran against
    different servers (an HTTP one, and a gRPC one for gRPC's tool), so a ratio of two of
    them could compare servers as much as tools."""
    skipped = (
        " Newer calibration runs not used: " + "; ".join(ceilings.skipped) + "."
        if ceilings.skipped
        else ""
    )
    if not ceilings.run_id:
        return (
            "No usable load-tool calibration from this machine, so no row has a "
            "`headroom` and `near_tool_ceiling` cannot be flagged: run "
            "`notebooks/00_load_generators.ipynb` with the quick or full profile first "
            f"(`make report` does).{skipped}"
        )
    ranked = sorted(ceilings.by_setting.items(), key=lambda item: -item[1])
    parts = [
        f"{setting}: {rps:,.0f} req/s"
        if setting in ceilings.tool_bound
        else f"{setting}: at least {rps:,.0f} req/s (held back by the server)"
        for setting, rps in ranked
    ]
    # the calibration names its targets by label, comma-separated (measure.calibration)
    against = " and ".join(titled(t, t.split(" ")[0]) for t in ceilings.server.split(", "))
    return (
        f"Load-tool ceilings on this machine (calibration run `{ceilings.run_id}`, against "
        f"{against}, each on its own core): {'; '.join(parts)}.{skipped}"
    )


def server_bound_reason(results: pd.DataFrame, setting: str, ceilings: Ceilings) -> str:
    """Why a tool setting's rate against another setting is only a lower bound: the
    server, not that tool, held it back (it is not among the tool-bound settings); '' when
    the tool itself was the limit."""
    if setting in ceilings.tool_bound:
        return ""
    cpu = results.loc[results["tool_setting"] == setting, ["server_cpu_pct", "client_cpu_pct"]]
    server, tool = cpu.median()
    return (
        f"the server, not {setting}, set {setting}'s rate (the server used {server:.0f} % of "
        f"a core, {setting} {tool:.0f} %), so {setting} can do more"
    )


def by_tool_setting(results: pd.DataFrame) -> pd.DataFrame:
    """Each row named by its load tool's setting, as a headline's ``select``: the load
    tools are the sides compared, with the same server behind both."""
    return results.assign(target=results["tool_setting"])
