"""The names a reader knows, from the registry's titles, for the targets of real runs."""

import pandas as pd

from benchbook.analyse.findings.headlines import headline
from benchbook.analyse.rows.names import distinct_names, language, reader_name, renamed, titled
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.store import Run
from benchbook.runs.titles import Titles

STORED = REPO_ROOT / "data" / "runs"


def test_every_registered_server_has_a_title() -> None:
    titles = Titles.load()
    assert all(server.title for server in titles.servers.values())
    assert titles.title("python-iodelay", "uvloop+httptools") == "FastAPI (uvloop + httptools)"
    assert titles.title("go-iodelay") == "Go net/http"


def test_the_targets_of_stored_runs_read_as_their_titles() -> None:
    io = Run(STORED / "20261123T193409Z-01_io_concurrency-5dd7").results()
    shortener = Run(STORED / "20261123T194605Z-04_url_shortener_get-0ab2").results()
    # Go's hello-world server is "Go net/http" too: a server that waits on every request
    # says what it waits
    assert reader_name(io, "go-iodelay (A/A copy)") == "Go net/http with a 1 ms sleep (A/A copy)"
    assert (
        reader_name(io, "python-iodelay asyncio+h11") == "FastAPI (asyncio + h11) with a 1 ms sleep"
    )
    hello = io.assign(server_waits="")  # the same server, asked to wait 0 ms: no wait
    assert reader_name(hello, "python-iodelay asyncio+h11") == "FastAPI (asyncio + h11)"
    assert (
        reader_name(shortener, "python-shortener redis workers=4 get")
        == "aiohttp + Redis (gunicorn, 4 workers, get requests)"
    )
    assert (
        reader_name(shortener, "python-shortener redis workers=1 get")
        == "aiohttp + Redis (gunicorn, 1 worker, get requests)"
    )
    # a target a notebook composed from its columns keeps its label
    composed = pd.DataFrame({"target": ["python http HealthCheck"], "server": ["python"]})
    assert reader_name(composed, "python http HealthCheck") == "python http HealthCheck"


def test_a_headline_names_both_sides_as_a_reader_knows_them(runs_dir) -> None:
    # the run is read from data/runs/; the sessions a headline looks up, from a runs
    # folder of the test's own (empty): nothing stored later changes what this expects
    io = Run(STORED / "20261123T193409Z-01_io_concurrency-5dd7").results()
    go, fastapi = "go-iodelay", "python-iodelay uvloop+httptools"
    h = headline(f"{go} vs {fastapi}: requests per second", io, go, fastapi,
                 experiment="01_io_concurrency")  # fmt: skip
    go_named = "Go net/http with a 1 ms sleep"
    fastapi_named = "FastAPI (uvloop + httptools) with a 1 ms sleep"
    assert h.label == f"{go_named} vs {fastapi_named}: requests per second"
    assert h.brief.startswith(f"**{go_named}** served **")
    assert f"**{fastapi_named}**" in h.brief and "go-iodelay" not in h.brief


def test_a_label_alone_is_named_by_the_variant_it_names() -> None:
    # profiled rows carry the server but no variant column
    assert titled("python-iodelay asyncio+h11", "python-iodelay") == "FastAPI (asyncio + h11)"
    assert titled("go-fanout /cc/9", "go-fanout") == "Go (gorilla/mux, /cc/9)"
    assert titled("not-a-server x", "not-a-server") == "not-a-server x"
    mix = "go-shortener bolt mix create:5 get:4 redirect:4 (A/A copy)"
    assert titled(mix, "go-shortener") == (
        "Go net/http + bbolt (create:get:redirect mix 5:4:4, A/A copy)"
    )
    assert (language("go-iodelay"), language("python-hello redis"), language("wrk")) == (
        "go", "python", ""
    )  # fmt: skip


def test_a_tables_labels_are_named_with_their_rows_and_never_two_as_one() -> None:
    # notebook 06's four servers: two Go servers titled "Go net/http", told apart by the
    # wait their rows record; a server's id with one target there named as that target
    maxima = Run(STORED / "20261122T140424Z-06_open_loop_maxima-a2dd").results()
    labels = ["go-iodelay", "go-hello", "python-hello", "python-iodelay"]
    assert distinct_names(labels, maxima) == {
        "go-iodelay": "Go net/http with a 1 ms sleep",
        "go-hello": "Go net/http",
        "python-hello": "FastAPI (uvicorn's defaults)",
        "python-iodelay": "FastAPI (uvloop + httptools) with a 1 ms sleep",
    }
    # without rows the two Go servers would share a name: both keep their labels
    assert distinct_names(labels) == {
        "python-hello": "FastAPI (uvicorn's defaults)",
        "python-iodelay": "FastAPI",
    }
    assert distinct_names(["wrk", "go", 4, "go-fanout /cc/9"]) == {
        "go-fanout /cc/9": "Go (gorilla/mux, /cc/9)"
    }


def test_a_label_inside_a_header_or_a_cell_is_named_and_a_path_is_not() -> None:
    names = {"go-hello": "Go net/http", "python-hello": "FastAPI (uvicorn's defaults)"}
    assert renamed("here go-hello / python-hello", names) == (
        "here Go net/http / FastAPI (uvicorn's defaults)"
    )
    assert renamed("go-hello/python-hello", names) == "Go net/http / FastAPI (uvicorn's defaults)"
    assert renamed("go-hello higher", names) == "Go net/http higher"
    assert renamed("go-hello load tool 2/2; python-hello server 6/6", names) == (
        "Go net/http load tool 2/2; FastAPI (uvicorn's defaults) server 6/6"
    )
    assert renamed("round01/go-hello.log", names) == "round01/go-hello.log"
    assert renamed("go-hellos", names) == "go-hellos" and renamed(4.0, names) == 4.0
