"""A headline across machine classes, from the stored sessions only: each recorded class's
estimate, what the machine-speed references predict for it, and whether that prediction
earns its place.

The speed-reference model says a Go server's rate scales with how fast the Go reference
workload runs on a machine, a Python server's with the Python one: so a Go/Python rate
ratio moves between two classes by Go's speed-up over Python's. It can hold only where the
servers set the rate; where the load tool or a link did, the servers' speed is not what was
measured. It is checked as a prediction: each class left out in turn and predicted from the
others, against predicting that nothing changes (the others' estimate, unmoved). A model
that does not beat "no change" is not printed as an explanation; the classes' estimates are.
"""

import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.rows.limits import side_limit, subject
from benchbook.analyse.sessions.replication import UNRECORDED, OtherClass, mean_of
from benchbook.analyse.words.conclusions import metric
from benchbook.runs.limits import SERVER_SET


@dataclass(frozen=True)
class ClassEstimate:
    """One class's estimate of a headline, and the factor the speed references multiply
    this report's class's estimate by to predict it (1 for this class; None unknown)."""

    machine_class: str
    estimate: float
    shift: float | None


@dataclass(frozen=True)
class LeftOut:
    """One class left out: its estimate, the speed model's prediction of it from the other
    classes, and the other classes' estimate unmoved ("no change")."""

    machine_class: str
    observed: float
    predicted: float
    unchanged: float

    @property
    def error(self) -> float:
        """The speed model's prediction error, as a share of the observed estimate."""
        return self.predicted / self.observed - 1


@dataclass(frozen=True)
class Check:
    """The speed model against "no change", each class left out in turn: their typical
    errors (the geometric mean of |predicted / observed|, less 1)."""

    left_out: tuple[LeftOut, ...]
    model_error: float
    unchanged_error: float

    @property
    def beats_unchanged(self) -> bool:
        return self.model_error < self.unchanged_error

    @property
    def errors(self) -> tuple[float, float]:
        """The speed model's lowest and highest prediction error."""
        found = [e.error for e in self.left_out]
        return min(found), max(found)


def servers_limit(
    data: pd.DataFrame, targets: Sequence[str], column: str, unit: str, link: str
) -> str:
    """'' where the servers set the rate of both ``targets`` in this session's rows
    (rows.limits); else why the speed model does not apply: a time rather than a rate, a
    link that set the rate (``link``: the headline's different conditions), or a side
    whose rate something else set."""
    if not metric(column, unit).higher_is_better:
        return "it predicts rates, and this is a time"
    if link:
        return "the link, not the servers, set the rate"
    for target in targets:
        side = side_limit(data, target)
        if side is not None and side.limit not in SERVER_SET:
            return f"{subject(side.limit)} set the rate of one side ({side.runs} of {side.of} runs)"
    return ""


def classes(
    machine_class: str, estimate: float, others: Sequence[OtherClass]
) -> list[ClassEstimate]:
    """This class and every other recorded one (a run of no class is none)."""
    found = [ClassEstimate(machine_class, estimate, 1.0)]
    for other in others:
        if other.machine_class != UNRECORDED:
            shift = other.expected / estimate if other.expected else None
            found.append(ClassEstimate(other.machine_class, other.estimate, shift))
    return found


def check(estimates: Sequence[ClassEstimate]) -> Check | None:
    """Each class with speed references left out in turn and predicted from the others
    (the geometric mean of each other class's estimate moved by the speed model) and by
    "no change"; None with fewer than two such classes."""
    usable = [(e, e.shift) for e in estimates if e.shift]
    if len(usable) < 2:
        return None
    left = []
    for j, (target, shift) in enumerate(usable):
        rest = usable[:j] + usable[j + 1 :]
        predicted = _geomean([e.estimate * shift / other for e, other in rest])
        unchanged = _geomean([e.estimate for e, _ in rest])
        left.append(LeftOut(target.machine_class, target.estimate, predicted, unchanged))
    return _judged(left)


def check_over(headlines: Iterable[tuple[str, float, Sequence[OtherClass]]]) -> Check | None:
    """The left-out check over many headlines at once (each: this class, its estimate,
    the other classes): every headline's left-out predictions judged together; None
    where no headline has two classes with a prediction."""
    left = []
    for machine_class, estimate, others in headlines:
        found = check(classes(machine_class, estimate, others))
        left += found.left_out if found else ()
    return _judged(left) if left else None


def _judged(left: Sequence[LeftOut]) -> Check:
    return Check(
        tuple(left),
        _typical_error([e.predicted / e.observed for e in left]),
        _typical_error([e.unchanged / e.observed for e in left]),
    )


def _geomean(values: Sequence[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def _typical_error(ratios: Sequence[float]) -> float:
    return math.exp(statistics.fmean(abs(math.log(r)) for r in ratios)) - 1


def statement(
    estimate: float,
    spread: tuple[float, float],
    machine_class: str,
    runs: Sequence[dict],
    others: Sequence[OtherClass],
    go_side: str,
    limit: str,
    figure: Callable[[float, float, float], str] | None = None,
) -> str:
    """The headline across classes, in words: each other recorded class's estimate; for a
    Go/Python rate the servers set, the speed model's prediction and error where it beats
    "no change" left out (a share of the move only where the move leaves this class's
    ``spread``), else that it does not; with one class, what the model would predict.
    ``estimate`` and ``spread``: this class's estimate and its own spread (the next-session
    interval); ``runs``: spread's rows; ``limit``: why the model does not apply;
    ``figure``: how an estimate and its interval read (on the scale this class's sentence
    ranks it on; the ratio's own by default)."""
    estimates = classes(machine_class, estimate, others)
    recorded = [o for o in others if o.machine_class != UNRECORDED]
    if not recorded:
        here = [r for r in runs if r.get("same_conditions")]
        here = [r for r in here if r.get("machine_class") == machine_class]
        go_s, python_s = mean_of(here, "go_s"), mean_of(here, "python_s")
        speed = (go_s, python_s) if go_s and python_s else None
        return _one_class(estimate, speed, go_side, limit)
    text = "".join(_other_sentence(o, figure or _ratio_figure) for o in recorded)
    text += _brackets(recorded)
    if not go_side:
        return text
    if limit:
        return text + f" The speed-reference model is not applied: {limit}."
    verdict = check(estimates)
    if verdict is None:
        return text
    errors = f"{verdict.model_error * 100:.0f} % off against {verdict.unchanged_error * 100:.0f} %"
    if verdict.beats_unchanged:
        # where the references foresaw under half of a class's move, what its CPU cost
        # explains follows that class's prediction, so "there" is that class
        text += "".join(
            _prediction_sentence(o, estimate, spread)
            + (_cost_sentence(o, estimate, spread, "there") if _little(o, estimate, spread) else "")
            for o in recorded
            if o.expected
        )
        text += (
            " Left out in turn, each class was predicted by the speed-reference model "
            f"{errors} for no change."
        )
    else:  # each class's estimate is already said: this one's above, the others' in text
        text += (
            " The speed-reference model does not beat predicting no change (each class left "
            f"out and predicted from the others: {errors} for no change), so it is not used "
            "here."
        )
        text += "".join(
            _cost_sentence(o, estimate, spread, f"on {o.machine_class}") for o in recorded
        )
    return text


def _share(
    other: OtherClass, expected: float | None, here: float, spread: tuple[float, float]
) -> float | None:
    """The share of the move from ``here`` to ``other``'s estimate that ``expected``
    predicted; None where the move stays inside this class's own ``spread`` (then a
    share says nothing) or there is no prediction."""
    low, high = spread
    if expected is None or low <= other.estimate <= high:
        return None
    return explained_share(other.estimate, expected, here)


def _little(other: OtherClass, here: float, spread: tuple[float, float]) -> bool:
    """The speed references foresaw under half of a class's move out of this one's spread."""
    share = _share(other, other.expected, here, spread)
    return share is not None and share < 0.5


def _cost_sentence(other: OtherClass, here: float, spread: tuple[float, float], where: str) -> str:
    """' On AMD EPYC (…), what a request cost each server in CPU accounts for 6.6× (+8 % off;
    it foresaw 81 % of the move from this class's 7.9×); the rest is how much of the CPU
    each server got to use.' — only where the move leaves this class's spread."""
    share = _share(other, other.cpu_expected, here, spread)
    if share is None or other.cpu_expected is None:
        return ""
    error = (other.cpu_expected / other.estimate - 1) * 100
    return (
        f" What a request cost each server in CPU accounts for {fmt.ratio(other.cpu_expected)} "
        f"{where} ({error:+.0f} % off; {_foresaw(share, here)}); the rest is how much of the "
        "CPU each server got to use."
    )


def _foresaw(share: float, here: float) -> str:
    """'it foresaw 46 % of the move from 12×', or that it moved the other way."""
    if share < 0:
        return f"it moved the other way from this class's {fmt.ratio(here)}"
    return f"it foresaw {share * 100:.0f} % of the move from this class's {fmt.ratio(here)}"


def _ratio_figure(estimate: float, low: float, high: float) -> str:
    return f"{fmt.ratio(estimate)} ({fmt.interval(low, high)})"


def _other_sentence(other: OtherClass, figure: Callable[[float, float, float], str]) -> str:
    """' On AMD EPYC (family 26, …), 2 CPUs (2 sessions; their mean Go reference 0.40 s,
    Python 0.36 s): 6.0× (5.8–6.2×).' The references are those sessions' mean, so one class
    prints different values beside headlines with different sessions, and says whose they
    are. (The brackets' kind is said once: _brackets.)"""
    speed = ""
    if other.go_s and other.python_s:
        speed = f"; their mean Go reference {other.go_s:.2f} s, Python {other.python_s:.2f} s"
    count = f"{other.sessions} session{'s' if other.sessions != 1 else ''}"
    return (
        f" On {other.machine_class} ({count}{speed}): "
        f"{figure(other.estimate, other.low, other.high)}."
    )


def _brackets(others: Sequence[OtherClass]) -> str:
    """What the other classes' brackets are, said once: a prediction interval from three
    sessions (replication.OtherClass), else the range of its sessions."""
    kinds = {o.predicted for o in others}
    if kinds == {True}:
        return " In brackets: each class's 95 % prediction interval for its next session."
    if kinds == {False}:
        return " In brackets: the range of each class's sessions."
    return (
        " In brackets: each class's 95 % prediction interval for its next session, or the "
        "range of its sessions where it has fewer than three."
    )


def _prediction_sentence(other: OtherClass, here: float, spread: tuple[float, float]) -> str:
    """' For AMD EPYC (family 26, …), the speed references predicted 6.4×, +5 % off its
    sessions' 6.1× (it foresaw 70 % of the move from this class's 7.9×).' — the share only
    where the move leaves this class's own spread."""
    assert other.expected is not None
    error = (other.expected / other.estimate - 1) * 100
    text = (
        f" For {other.machine_class}, the speed references predicted "
        f"{fmt.ratio(other.expected)}, {error:+.0f} % off its sessions' "
        f"{fmt.ratio(other.estimate)}"
    )
    share = _share(other, other.expected, here, spread)
    if share is not None:
        text += f" ({_foresaw(share, here)})"
    return text + "."


def _one_class(estimate: float, speed: tuple[float, float] | None, go_side: str, limit: str) -> str:
    """With one class measured: say so, and what the model would predict elsewhere."""
    if not go_side or limit or speed is None:
        return ""
    go_s, python_s = speed
    over, under = ("Go", "Python") if go_side == "a" else ("Python", "Go")
    return (
        " One machine class measured: how far this ratio moves on another is not known. "
        f"The speed-reference model would predict {fmt.ratio(estimate)} × ({over}'s "
        f"speed-up there) ÷ ({under}'s), each speed-up this machine's reference (Go "
        f"{go_s:.2f} s, Python {python_s:.2f} s) over that machine's; no second class has "
        "tested it yet."
    )


def explained_share(observed: float, expected: float, reference: float) -> float | None:
    """How much of the move from ``reference`` to ``observed`` the speed references
    predicted (``expected``), on the log scale: 1.0 all of it, 0 none; None when nothing
    moved."""
    moved = math.log(observed / reference)
    if abs(moved) < 1e-9:
        return None
    return math.log(expected / reference) / moved
