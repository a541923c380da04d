"""Page 1's generated answer across experiments, from the headlines' own fields."""

from benchbook.render.overview import go_vs_python, sessions_sentence


def headline(label: str, ratio: float, languages=("go", "python"), **fields) -> dict:
    return {"label": f"{label}: requests per second", "ratio": ratio, "metric": "rps",
            "languages": list(languages), "significant": True, "reproduced_why": "",
            **fields}  # fmt: skip


def test_go_against_python_across_experiments() -> None:
    sentence = go_vs_python(
        [
            headline("Go net/http vs FastAPI (uvloop + httptools)", 4.5),
            headline("FastAPI (asyncio + h11) vs Go net/http", 1 / 7.3, ("python", "go")),
            headline("Go vs FastAPI under Locust", 1.0, significant=False),
            headline(
                "Go vs FastAPI within the SLO",
                3.1,
                reproduced_why="a lower bound",
                metric="requests per second within the SLO",
            ),
            headline("bbolt vs Redis", 0.19, ("go", "go")),  # not Go against Python
            {**headline("time per call", 0.5), "metric": "ns_per_op"},  # not a rate
        ]
    )
    assert sentence == (
        "Go was ahead of Python in 2 of the 2 comparisons of requests per second that "
        "reached a verdict, by 4.5× (Go net/http vs FastAPI (uvloop + httptools)) to 7.3× "
        "(FastAPI (asyncio + h11) vs Go net/http); 1 more is a lower bound (at least 3.1×): "
        "the load tool ran out before Go's server did; no difference could be shown for Go "
        "vs FastAPI under Locust."
    )


def test_no_go_against_python_comparison_says_nothing() -> None:
    assert go_vs_python([headline("bbolt vs Redis", 0.19, ("go", "go"))]) == ""


def test_the_sessions_behind_the_headlines_are_counted() -> None:
    one = sessions_sentence([{"sessions": 1}, {"sessions": 1}])
    assert one.startswith("Every headline rests on one measuring session")
    assert sessions_sentence([{"sessions": 3}, {"sessions": 1}]).startswith(
        "1 of 2 headlines rest on 2–3 measuring sessions"
    )
