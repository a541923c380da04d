"""Notebook 00's measurement: every load tool that declares a calibration, at full speed
against its fast server, so that later rows can say how close they came to the tool's own
limit (their ``headroom``; see calibration for how a run's ceilings are read back)."""

from collections.abc import Mapping

from benchbook.measure.experiment_plan import Config, ExperimentPlan, PlannedRun
from benchbook.measure.orchestration import run_experiment
from benchbook.measure.params import require_int
from benchbook.measure.pinning import plan_pinning
from benchbook.measure.planning import warmup_seconds
from benchbook.measure.registry import Registry, Target
from benchbook.measure.tools import TOOLS, entry
from benchbook.runs.calibration import CALIBRATION_EXPERIMENT, NOT_CALIBRATED
from benchbook.runs.experiment import Experiment, Load


def calibrate(
    *,
    duration: object,
    warmup: object = "2s",
    repetitions: object = 5,
    settings: Mapping[str, Mapping[str, object]] | None = None,
    registry: Registry | None = None,
) -> PlannedRun:
    """Every load tool that declares a calibration, at full speed against its fast
    server, interleaved: the median req/s of each tool setting is its ceiling on this
    machine (see calibration). ``settings`` override a tool's calibration defaults, e.g.
    ``{"wrk": {"connections": 50}, "locust": {"user_classes": ["FastHttpUser"]}}``. The
    run's description holds each tool's load as calibrated (its duration and settings),
    on the server it is calibrated against."""
    registry = registry or Registry.load()
    settings = dict(settings or {})
    for name in settings:
        entry(name)  # an unknown tool is an error naming the valid ones
    configs, described = [], []
    for name, tool_entry in TOOLS.items():
        if tool_entry.calibration is None:
            continue
        calibration = tool_entry.calibration
        given = {**calibration.defaults, **settings.get(name, {})}
        try:
            loads = calibration.loads(duration, **given)
        except ValueError as error:
            raise ValueError(f"{name}: {error}") from None
        target = Target(calibration.server, request=calibration.request)
        configs += [Config(target, load) for load in loads]
        described.append(Load(name, {"duration": duration, **given}, calibration.server))
    servers = list(dict.fromkeys(c.target.server for c in configs))
    experiment = Experiment(
        CALIBRATION_EXPERIMENT,
        servers,
        described,
        warmup=warmup,
        repetitions=require_int("repetitions", repetitions, 1),
    )
    plan = ExperimentPlan(
        experiment,
        registry,
        tuple(configs),
        {server: {} for server in servers},
        warmup_s=warmup_seconds(warmup),
        pinning=plan_pinning(True),
        ceilings=NOT_CALIBRATED,  # measuring the ceilings themselves
    )
    return run_experiment(plan)
