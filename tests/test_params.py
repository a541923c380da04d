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
        ({"servers": ["go-iodelay", "nginx"]}, r"server: unknown 'nginx'; valid choices: go-"),
        (
            {"variants": {"python-iodelay": ["gevent"]}},
            r"variant of python-iodelay: unknown 'gevent'; valid choices: asyncio\+h11, uvloop",
        ),
        ({"server_params": {"delay": 1}}, r"server_params: 'delay' .* valid choices: delay_ms"),
        ({"server_params": {"workers": 0}}, r"python-iodelay.workers: 0 is below the minimum"),
    ],
)
def test_bad_parameter_is_refused_before_anything_starts(override, message, runs_dir) -> None:
    with pytest.raises(ValueError, match=message):
        given = GOOD | override
        wrk = {k: given.pop(k) for k in ("connections", "threads", "duration")}
        measure.run("params_test", tools=measure.tool("wrk", **wrk), **given)
    assert descendants() == []
    assert not runs_dir.exists(), "a run folder was created for a refused experiment"


@pytest.mark.parametrize(
    ("text", "seconds"), [("10s", 10), ("5m", 300), ("1h", 3600), ("250ms", 0.25), (30, 30)]
)
def test_durations(text, seconds) -> None:
    assert parse_duration("duration", text) == seconds
