"""Bad parameters are refused with a message naming them, before any process starts."""

import pytest
from conftest import descendants

from benchbook import measure
from benchbook.runs.durations import parse_duration

GOOD = dict(
    servers=["go-iodelay", "python-iodelay"],
    variants={"python-iodelay": ["asyncio+h11"]},
    connections=10,
    threads=2,
    duration="1s",
    warmup="0s",
    repetitions=1,
)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"duration": "5x"}, r"duration: '5x' is not a duration; use .* ms, s, m or h"),
        ({"duration": "-3s"}, r"duration: '-3s' is not a duration"),
        ({"duration": "1500ms"}, r"duration: 1.5 s; wrk takes whole seconds"),
        ({"connections": 0}, r"connections: 0 is below the minimum of 1"),
        ({"connections": "many"}, r"connections: 'many' is not a whole number"),
        ({"threads": 20}, r"threads: 20 is more than connections \(10\)"),
        ({"repetitions": 0}, r"repetitions: 0 is below the minimum of 1"),
        ({"servers": ["go-iodelay", "nginx"]}, r"servers: unknown 'nginx'; valid choices: go-"),
        (
            {"variants": {"python-iodelay": ["gevent"]}},
            r"variants: unknown 'gevent' for python-iodelay; valid choices: asyncio\+h11, uvloop",
        ),
        ({"server_params": {"delay": 1}}, r"server_params: 'delay' .* valid choices: delay_ms"),
        (
            {"server_params": {"workers": 0}},
            r"workers: 0 is below the minimum of 1 for python-iodelay",
        ),
    ],
)
def test_bad_parameter_is_refused_before_anything_starts(override, message, runs_dir) -> None:
    with pytest.raises(ValueError, match=message):
        given = GOOD | override
        wrk = {k: given.pop(k) for k in ("connections", "threads", "duration")}
        measure.run(measure.Experiment("params_test", loads=measure.tool("wrk", **wrk), **given))
    assert descendants() == []
    assert not runs_dir.exists(), "a run folder was created for a refused experiment"


@pytest.mark.parametrize(
    ("text", "seconds"), [("10s", 10), ("5m", 300), ("1h", 3600), ("250ms", 0.25), (30, 30)]
)
def test_durations(text, seconds) -> None:
    assert parse_duration("duration", text) == seconds


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            {"server_params": {"workers": 0}},
            r"^params_test: workers: 0 is below the minimum of 1 for python-iodelay$",
        ),
        (
            {"variants": {"python-iodelay": ["gevent"]}},
            r"^params_test: variants: unknown 'gevent' for python-iodelay; valid choices: asyncio",
        ),
        (
            {"servers": ["go-fanout"], "variants": None,
             "paths": {"go-fanout": ["/sc/9", "/sc/12345"]}},
            r"^params_test: paths: '/sc/12345' asks go-fanout for id '12345', which it does not "
            r"have; its ids are 1 to 10$",
        ),
        (
            {"servers": ["go-fanout"], "variants": None, "paths": {"go-fanout": ["/nope/9"]}},
            r"^params_test: paths: '/nope/9' is not a path go-fanout serves; its paths: "
            r"/sc/\{id\}, /cc/\{id\}",
        ),
    ],
)  # fmt: skip
def test_a_refusal_names_the_experiment_the_setting_and_the_value(
    override, message, runs_dir
) -> None:
    """A notebook's experiment may hold several settings of one name (two tools' loads,
    two experiments of one notebook): a refusal names the experiment, then the setting as
    its description holds it and the value given, before any server is built or started."""
    given = {k: v for k, v in (GOOD | override).items()
             if k not in ("connections", "threads", "duration")}  # fmt: skip
    load = measure.tool("wrk", connections=10, duration="1s")
    with pytest.raises(ValueError, match=message):
        measure.run(measure.Experiment("params_test", loads=load, **given))
    assert descendants() == []
    assert not runs_dir.exists(), "a run folder was created for a refused experiment"


def test_a_tool_setting_is_refused_when_the_load_is_made() -> None:
    with pytest.raises(ValueError, match=r"^processes: 0 is below the minimum of 1$"):
        measure.tool(
            "locust",
            users=10,
            spawn_rate=10,
            wait="10-20ms",
            duration="1s",
            processes=0,
        )
