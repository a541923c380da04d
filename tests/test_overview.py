"""Page 1's generated answer across experiments, from the headlines' own fields."""

from types import SimpleNamespace

from benchbook.render.overview import (
    language_tally,
    overview_sentences,
    published_figures,
    sessions_sentence,
)


def headline(label: str, ratio: float, languages=("go", "python"), **fields) -> dict:
    return {"label": f"{label}: requests per second", "ratio": ratio, "metric": "rps",
            "languages": list(languages), "significant": True, "reproduced_why": "",
            **fields}  # fmt: skip


def test_go_against_python_across_experiments() -> None:
    sentence = language_tally(
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
            # the same servers under a second tool, and storage mixed with language
            {**headline("Go vs FastAPI under bombardier", 9.0), "cross_check": True},
            {**headline("Go + bbolt vs Python + Redis", 11.0), "like_for_like": False},
        ]
    )
    assert sentence == (
        "Go was ahead of Python in 2 of the 2 like-for-like comparisons of requests per second "
        "that reached a verdict (a second load tool on the same servers not counted again), "
        "by 4.5× (Go net/http vs FastAPI (uvloop + httptools)) to 7.3× "
        "(FastAPI (asyncio + h11) vs Go net/http); 1 more is a lower bound, at least 3.1× "
        "(one session): the load tool ran out before Go's server did; no difference could be "
        "shown for Go vs FastAPI under Locust."
    )


def test_no_go_against_python_comparison_says_nothing() -> None:
    assert language_tally([headline("bbolt vs Redis", 0.19, ("go", "go"))]) == ""


def test_a_third_language_gets_its_own_tally_and_drops_nothing() -> None:
    # Sides come from each headline's languages, in the registry's order of languages; a
    # language it does not declare (an older run's, say) is named as stored, after them.
    sentence = language_tally(
        [
            headline("Go net/http vs FastAPI", 4.5),
            headline("zig-hello vs Go net/http", 1.25, ("zig", "go")),
        ]
    )
    assert sentence == (
        "Go was ahead of Python in 1 of the 1 like-for-like comparisons of requests per second "
        "that reached a verdict (a second load tool on the same servers not counted again), "
        "by 4.5× (Go net/http vs FastAPI) to 4.5× (Go net/http vs "
        "FastAPI). Go was ahead of zig in 0 of the 1 like-for-like comparisons of requests per "
        "second that reached a verdict (a second load tool on the same servers not counted "
        "again), by 0.800× (zig-hello vs Go net/http) to 0.800× (zig-hello "
        "vs Go net/http)."
    )


def test_a_difference_something_else_set_is_not_counted_as_significant() -> None:
    """Notebook 07's +10 ms link headline: pooled 1.01× (95 % CI 1.01–1.02×), significant,
    but the link, not the servers, set both rates: no verdict, and not among the 14."""
    link = headline("Go vs FastAPI over a 10 ms link", 1.01, set_by="the link")
    found = [headline("Go vs FastAPI", 12.0), headline("Go vs FastAPI (uvloop)", 4.5), link]
    (sentence,) = [
        s
        for s in overview_sentences([SimpleNamespace(findings=[{"headlines": found}])])
        if s.startswith("Of ")
    ]
    assert sentence.startswith("Of 3 headline comparisons, 2 show a significant difference")
    assert sentence.endswith("or set by something other than the servers.")


def test_the_sessions_behind_the_headlines_are_counted() -> None:
    # one or two sessions: a borrowed prediction, but no model of their own
    one = sessions_sentence([{"sessions": 1, "predict_low": 4.0}, {"sessions": 2}])
    assert one.startswith("Every headline rests on fewer than three sessions")
    two = sessions_sentence([{"sessions": 2, "held_out": [{"inside": True}, {"inside": False}]}])
    assert two.endswith(
        "not yet replicated (make replicate adds sessions); in 2 checks on this machine class, "
        "each leaving one session of one headline out, 1 fell inside the interval the others "
        "predicted (Appendix C counts every class's)."
    )
    held = [{"inside": True}] * 6 + [{"inside": False}]
    modelled = {"sessions": 7, "pooled_ratio": 5.0, "predict_low": 4.0, "predict_high": 6.0,
                "held_out": held}  # fmt: skip
    # a headline whose rates something else set still has its interval (Appendix C draws it)
    set_by = modelled | {"set_by": "the link set both rates, not the servers"}
    assert sessions_sentence([modelled, set_by, {"sessions": 1}]) == (
        "2 of 3 headlines rest on 7 sessions of this machine class and have a 95 % "
        "prediction interval for the next one, drawn in Appendix C (1 of them not comparable, "
        "their rates set by something other than the servers: no answer gives their intervals, "
        "and Appendix C marks them so); "
        "in 14 checks on this "
        "machine class, each "
        "leaving one session of one headline out, 12 fell inside the interval the others "
        "predicted (Appendix C counts every class's)."
    )


def test_each_published_figure_is_counted_once_with_every_verdict_held_against_it() -> None:
    claim = {"article": "4.9× (39,652 vs 8,083 req/s)", "article_ratio": 4.9}
    findings = [
        {"source": {"title": "Go vs Python"}, "headlines": [
            {**headline("Go vs FastAPI (asyncio): req/s", 7.8), **claim,
             "reproduced": "same direction, different size"},
            {**headline("Go vs FastAPI (uvloop): req/s", 4.8), **claim,
             "reproduced": "reproduced"}]},
        {"source": None, "headlines": [  # another notebook holds the same figure again
            {**headline("Go vs FastAPI over a link: req/s", 1.0), **claim,
             "reproduced": "different conditions: not comparable"}]},
    ]  # fmt: skip
    assert published_figures(findings) == [
        "4.9×: same direction, different size (Go vs FastAPI (asyncio)), reproduced (Go vs "
        "FastAPI (uvloop)), different conditions: not comparable (Go vs FastAPI over a link)"
    ]
