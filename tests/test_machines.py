"""Machines as a level (analyse.sessions.machines): what another session on this machine and
another machine of a class should give, worked by hand on small cases; the simulation of the
second rule (machine_coverage); and their sentences."""

import math

import pytest
from scipy import stats

from benchbook.analyse.sessions import levels, machine_coverage, machines
from benchbook.analyse.sessions.replication import Replication
from benchbook.analyse.words.sessions import another_machine, another_session

Z = stats.norm.ppf(0.975)


def session(ratio: float, machine: str) -> levels.Session:
    return levels.Session(ratio, ratio * 0.9, ratio * 1.1, 0.95, "class", machine=machine)


def spread(sd: float, df: float, headlines: int = 5, scope: str = levels.EVERY_CLASS):
    return levels.Spread(sd, df, headlines, scope)


def test_one_machine_borrows_all_of_its_width() -> None:
    found = machines.another_machine([session(8.0, "a")], spread(0.1, math.inf), None)
    assert found is not None and found.machines == 1
    half = Z * 0.1 * math.sqrt(2)  # a new machine's shift, and this one's: √(1 + 1/1)
    assert (found.low, found.high) == pytest.approx((8 * math.exp(-half), 8 * math.exp(half)))


def test_two_machines_moderate_the_kinds_spread_with_their_own() -> None:
    found = machines.another_machine(
        [session(7.5, "a"), session(9.9, "b")], spread(0.1, 10.0), None
    )
    m = [math.log(7.5), math.log(9.9)]
    centre = sum(m) / 2
    squares = sum((x - centre) ** 2 for x in m)
    sd = math.sqrt((10 * 0.1**2 + squares) / 11)
    half = stats.t.ppf(0.975, 11) * sd * math.sqrt(1 + 1 / 2)
    assert found is not None and found.estimate == pytest.approx(math.exp(centre))
    assert (found.low, found.high) == pytest.approx((math.exp(centre - half),
                                                     math.exp(centre + half)))  # fmt: skip


def test_sessions_on_one_machine_are_its_mean_plus_what_a_session_adds() -> None:
    # Two sessions on machine a: its mean counts once, and a new machine's single session
    # varies by the within-machine spread that the mean of two has only half of.
    found = machines.another_machine(
        [session(8.0, "a"), session(8.8, "a")], spread(0.1, math.inf), spread(0.05, math.inf)
    )
    centre = (math.log(8.0) + math.log(8.8)) / 2
    half = Z * math.sqrt(0.1**2 * 2 + 0.05**2 * (1 - 1 / 2))
    assert found is not None and found.machines == 1
    assert found.high == pytest.approx(math.exp(centre + half))


def test_without_a_spread_to_borrow_three_machines_are_needed() -> None:
    two = [session(8.0, "a"), session(9.0, "b")]
    assert machines.another_machine(two, None, None) is None
    three = [*two, session(7.0, "c")]
    found = machines.another_machine(three, None, None)
    m = [math.log(r) for r in (8.0, 9.0, 7.0)]
    sd = stats.tstd(m)
    half = stats.t.ppf(0.975, 2) * sd * math.sqrt(1 + 1 / 3)
    assert found is not None and found.borrowed is None
    assert found.high == pytest.approx(math.exp(sum(m) / 3 + half))


def test_a_session_without_a_recorded_boot_belongs_to_no_machine() -> None:
    assert machines.another_machine([session(8.0, "")], spread(0.1, math.inf), None) is None
    found = machines.another_machine(
        [session(8.0, ""), session(5.0, "a")], spread(0.1, math.inf), None
    )
    assert found is not None and found.estimate == pytest.approx(5.0)


def test_each_machine_left_out_is_judged_by_the_others() -> None:
    sessions = [session(8.0, "a"), session(8.2, "a"), session(8.1, "b"), session(16.0, "c")]
    held = machines.leave_one_machine_out(sessions, spread(0.2, 4.0), None)
    # a left out: b and c say 4.7–27×; c left out: a and b say 4.6–14×
    assert {h.machine: (h.sessions, h.inside) for h in held} == {
        "a": (2, 2),
        "b": (1, 1),
        "c": (1, 0),
    }
    assert machines.leave_one_machine_out(sessions[:2], spread(0.2, 4.0), None) == []


def test_the_borrowed_spread_is_this_class_where_two_headlines_have_two_machines() -> None:
    kinds = {
        "here": {"x": [8.0, 9.0], "y": [2.0, 2.2], "mine": [5.0, 6.0]},
        "there": {"x": [7.0, 9.0], "z": [1.0, 1.5]},
    }
    here = machines.borrowed_machine_spread(kinds, "here", "mine")
    assert here is not None and here.scope == levels.THIS_CLASS and here.headlines == 2
    # One other headline with two machines here: every class's instead, where x, on two
    # classes, is one headline
    kinds["here"].pop("y")
    every = machines.borrowed_machine_spread(kinds, "here", "mine")
    assert every is not None and every.scope == levels.EVERY_CLASS and every.headlines == 2


def test_the_sentence_says_what_it_predicts_and_what_it_leans_on() -> None:
    statement = machines.another_machine([session(8.0, "a")], spread(0.1, math.inf, 14), None)
    said = another_machine(Replication(another_machine=statement), False, "rps")
    assert said.startswith("A session on another machine of this class should give ")
    assert "(95 % prediction interval; from this machine alone, with how far machines " in said
    assert "differ over 14 other headlines of this kind on the classes that have two" in said
    assert another_machine(Replication(), False, "rps") == ""


def test_the_simulated_statement_holds_a_new_machine_near_95_percent_at_the_kinds_spread():
    cells = machine_coverage.coverage()
    typical = [c.covered for c in cells if c.factor == 1.0]
    assert len(typical) == len(machine_coverage.MACHINES)
    assert all(0.93 <= c <= 0.99 for c in typical), typical
    # A headline whose machines differ 7× its kind's is what one machine cannot show.
    strays = [c for c in cells if c.factor == 7.0]
    assert strays[0].covered < 0.9


def test_another_session_here_is_this_machines_sessions_with_the_spread_on_one_machine() -> None:
    sessions = [session(8.0, "a"), session(8.4, "a"), session(12.0, "b")]
    within = spread(0.05, 6.0, 9, levels.THIS_CLASS)
    found = machines.another_session(sessions, "a", within)
    y = [math.log(8.0), math.log(8.4)]
    centre = sum(y) / 2
    squares = sum((v - centre) ** 2 for v in y)
    sd = math.sqrt((6 * 0.05**2 + squares) / 7)  # machine b's 12× is no session of a
    half = stats.t.ppf(0.975, 7) * sd * math.sqrt(1 + 1 / 2)
    assert found is not None and found.sessions == 2 and found.leaned == within
    assert (found.model.predict_low, found.model.predict_high) == pytest.approx(
        (math.exp(centre - half), math.exp(centre + half))
    )
    assert machines.another_session(sessions, "", within) is None  # no boot recorded
    assert machines.another_session(sessions[:2], "a", None) is None  # 2 sessions, no spread


def test_another_session_leans_on_nothing_where_its_sessions_stray_from_the_kinds() -> None:
    sessions = [session(4.0, "a"), session(16.0, "a"), session(8.0, "a")]
    found = machines.another_session(sessions, "a", spread(0.01, 50.0))
    assert found is not None and found.leaned is None
    assert found.model.predict_high / found.model.predict_low > 10  # its own t(2) · s


def test_the_spread_on_one_machine_counts_each_machines_sessions_apart() -> None:
    kinds = {
        "here": {"x": {"a": [8.0, 8.4], "b": [12.0, 12.6]}, "mine": {"a": [5.0, 5.1]}},
        "there": {"z": {"c": [1.0, 1.1]}},
    }
    here = machines.within_machine_spread(kinds, "here", "mine")
    # x's two machines are two groups of one headline: their means (8.2 and 12.3) lie 0.41
    # apart on the log scale, but only how sessions differ on each machine counts.
    groups = levels.kind_spread([[8.0, 8.4], [12.0, 12.6]], levels.THIS_CLASS)
    assert here is not None and here.scope == levels.THIS_CLASS and here.headlines == 1
    assert groups is not None and here.sd == groups.sd and here.sd < 0.1
    every = machines.within_machine_spread(kinds, "nowhere", "mine")
    assert every is not None and every.scope == levels.EVERY_CLASS and every.headlines == 2
    assert machines.within_machine_spread({"here": {"mine": {"a": [5.0, 5.1]}}}, "here",
                                          "mine") is None  # fmt: skip


def test_each_session_of_a_machine_is_judged_by_that_machines_others() -> None:
    sessions = [session(8.0, "a"), session(8.2, "a"), session(16.0, "a"), session(30.0, "b")]
    held = machines.leave_one_out_on_machines(sessions, spread(0.02, 20.0))
    # 8.0 or 8.2 left out: the rest (one of them and 16) stray from the kind's spread, so
    # their own t(1) interval holds anything; 16 left out: 8.0 and 8.2 say about 7.7-8.6.
    assert [(h.ratio, h.inside) for h in held] == [(8.0, True), (8.2, True), (16.0, False)]
    steady = [session(8.0, "a"), session(8.1, "a"), session(7.9, "a"), session(30.0, "b")]
    held = machines.leave_one_out_on_machines(steady, spread(0.02, 20.0))
    assert [h.inside for h in held] == [True, True, True]  # b's one session: nothing to judge


def test_the_sentence_for_this_machine_says_what_it_leans_on() -> None:
    within = spread(0.05, math.inf, 14, levels.THIS_CLASS)
    statement = machines.another_session([session(8.0, "a")], "a", within)
    said = another_session(Replication(another_session=statement), False, "rps")
    assert said.startswith("Another session on this machine should give ")
    basis = "from this session alone, with how far sessions on one machine differ over 14"
    assert f"(95 % prediction interval; {basis} other headlines of this kind on this class)" in said
    assert another_session(Replication(), False, "rps") == ""
