"""Every exercise, by key: each lesson's module lists its own (``EXERCISES`` there), in
the order its notebook asks them."""

from benchbook.course.exercise import Exercise
from benchbook.course.exercises import (
    fanout,
    grpc_vs_http,
    hello_world,
    io_concurrency,
    load_generators,
    network,
    open_loop,
    url_shortener,
)

LESSONS = (
    load_generators,
    io_concurrency,
    hello_world,
    fanout,
    url_shortener,
    grpc_vs_http,
    open_loop,
    network,
)
EXERCISES: dict[str, Exercise] = {e.key: e for lesson in LESSONS for e in lesson.EXERCISES}


def exercise(key: str) -> Exercise:
    """The exercise ``key``; an unknown key names every valid one."""
    try:
        return EXERCISES[key]
    except KeyError:
        raise ValueError(f"no exercise {key!r}; choose from: {', '.join(EXERCISES)}") from None
