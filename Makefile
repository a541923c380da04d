# benchbook: `make report` measures and renders; `make test` checks. Both set up first.
SHELL := /bin/bash
PYTHON ?= python3
PROFILE ?= quick
# 1: `make report` lets each experiment reuse a stored run measured with the same code,
# description and machine; 0 measures every experiment afresh (a new session of each).
REUSE ?= 1
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
TEST_INSTALLED := $(VENV)/.installed-test

NOTEBOOKS := $(sort $(wildcard notebooks/[0-9]*.ipynb))
EXECUTED := $(NOTEBOOKS:notebooks/%=report/executed/%)
# What a notebook's results depend on, in three kinds (the package's own layout):
# - MEASURING: src/benchbook/measure/, src/benchbook/runs/ (the stored run format the
#   harness writes rows in) and servers/ (the harness, load tools, servers and registry).
#   A change makes the harness measure again (benchbook.measure.reuse).
# - ANALYSIS: src/benchbook/analyse/ (statistics, wording, plots, findings) and the
#   articles' figures. Notebooks re-run on the stored runs: `make report` lets each
#   experiment reuse a run measured with the same code, parameters and machine
#   (BENCHBOOK_REUSE_RUNS=1). import-linter (`make lint`) keeps measure from importing it.
# - RENDERED_WITH: src/benchbook/render/ (the report and its template): only the HTML and
#   PDF are redone.
MEASURING := $(shell find src/benchbook/measure src/benchbook/runs servers -type f -not -path '*/__pycache__/*' \
	-not -name '*.pyc')
ANALYSIS := $(shell find src/benchbook/analyse -type f -name '*.py' -not -path '*/__pycache__/*') \
	$(wildcard data/published/*.csv)
RENDERED_WITH := $(shell find src/benchbook/render -type f -not -path '*/__pycache__/*' \
	-not -name '*.pyc')
PROFILE_STAMP := report/executed/.profile
# When this make started (UTC, as run ids start): the runs it measures sort after it, and
# are the ones it packs (make compact) before rendering.
STARTED_UTC := $(shell date -u +%Y%m%dT%H%M%SZ)
PACK_MEASURED = $(BIN)/python -m benchbook.store compact --since $(STARTED_UTC)
# The Go version servers/go/go.mod and servers/go/tools/go.mod declare.
GO_NEEDED := $(shell sed -n 's/^go //p' servers/go/go.mod)

.PHONY: setup tools report-tools test-tools build go-tools flamegraph report audit test test-fast lint lab course course-minutes class run replicate bench-harness plan store compact export-session import-session bench-store clean

# What the notebooks need (`make lab`, `make run`); `make report` adds the PDF's system
# libraries (report-tools), `make test` the test tools (test-tools).
setup: $(INSTALLED) tools build go-tools

$(INSTALLED): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name benchbook --display-name "Python (benchbook)"
	touch $@

$(TEST_INSTALLED): requirements-test.txt $(INSTALLED)
	$(BIN)/pip install --quiet -r requirements-test.txt
	touch $@

# System tools: Go is checked here; the system packages are in one list of three groups,
# .ci/system-tools, which installs the missing ones with apt-get when we are root and
# otherwise prints the command: the notebooks' (wrk, redis-server, iproute2) here, the
# PDF's pango and font for the report, chromium and openssh-server for the tests.
tools:
	@command -v go >/dev/null || { echo "Go is missing: install Go $(GO_NEEDED) or newer (conda: conda install -c conda-forge go)"; exit 1; }
	@have=$$(go env GOVERSION | sed 's/^go//'); \
	  printf '%s\n%s\n' "$(GO_NEEDED)" "$$have" | sort -V -C || { \
	  echo "Go $$have is too old: servers/go/go.mod and servers/go/tools/go.mod need Go $(GO_NEEDED) or newer (the tools module uses go.mod 'tool' directives, Go 1.24+)"; exit 1; }
	@command -v taskset >/dev/null || { echo "taskset is missing: it is in util-linux"; exit 1; }
	@.ci/system-tools notebooks

report-tools:
	@.ci/system-tools report

test-tools: $(TEST_INSTALLED)
	@.ci/system-tools tests

build: $(INSTALLED)
	$(BIN)/python -m benchbook build

# Load tools built with Go (every `tool` directive of servers/go/tools/go.mod: ghz, vegeta,
# benchstat, Toxiproxy for the links between hosts, …), pinned there; a stamp stands for all of them, so adding one is a go.mod line.
GO_TOOLS := build/bin/.go-tools
go-tools: $(GO_TOOLS)
$(GO_TOOLS): servers/go/tools/go.mod servers/go/tools/go.sum
	GOBIN=$(CURDIR)/build/bin go -C servers/go/tools install tool
	@# Toxiproxy's server is its package cmd/server, which go install names "server".
	mv -f build/bin/server build/bin/toxiproxy-server
	@touch $@

# The flame-graph renderer of the profiled phases (measure/profiling): inferno's
# inferno-flamegraph, pinned here and built with cargo into build/bin (about 1.5 min on
# 2 cores, once), for `make report` and `make run`. Not part of `setup`: `make test` keeps
# its 10 minutes, and its flame-graph checks run where it was built. Without cargo the
# profiles are still recorded and analysed, with no SVG.
INFERNO_VERSION := 0.12.3
INFERNO := build/bin/.inferno-$(INFERNO_VERSION)
flamegraph: $(INFERNO)
$(INFERNO):
	@if command -v cargo >/dev/null; then \
	  cargo install inferno --version $(INFERNO_VERSION) --locked --no-track --quiet \
	    --bin inferno-flamegraph --root $(CURDIR)/build && touch $@; \
	else echo "cargo is missing: profiles get no flame graph (install Rust's cargo, then make setup)"; fi

report: report/index.html report/report.pdf

# Rewritten only when PROFILE changes, so switching profiles re-runs the notebooks.
$(PROFILE_STAMP): FORCE
	@mkdir -p $(@D)
	@echo "$(PROFILE)" | cmp -s - $@ || echo "$(PROFILE)" > $@

report/executed/%.ipynb: notebooks/%.ipynb notebooks/profiles/$(PROFILE).yaml $(PROFILE_STAMP) \
		$(MEASURING) $(ANALYSIS) $(INSTALLED) | tools build go-tools flamegraph
	BENCHBOOK_REUSE_RUNS=$(REUSE) $(BIN)/python -m benchbook.render.execute $< $@ \
	  --profile notebooks/profiles/$(PROFILE).yaml

# The calibration first: the other notebooks read its load-tool ceilings (even with -j).
CALIBRATION := report/executed/00_load_generators.ipynb
$(filter-out $(CALIBRATION),$(EXECUTED)): | $(CALIBRATION)

report/index.html report/report.pdf &: $(EXECUTED) $(RENDERED_WITH) | report-tools
	$(PACK_MEASURED)
	$(BIN)/python -m benchbook.render.report --html report/index.html --pdf report/report.pdf $(EXECUTED)

# One notebook with overrides, then the report again:
#   make run NB=01_io_concurrency P="connections=50 duration=5s ids=[9,5]"
# P reaches the recipe through the environment, so quotes and brackets need no escaping.
# RENDER=no stops after the notebook (report/executed/NB.ipynb), without packing its runs
# or rendering the HTML and PDF: a one-parameter change in class takes the notebook's
# minutes alone.
export P
RENDER ?= yes
run: setup $(if $(filter no,$(RENDER)),,flamegraph report-tools)
	@test -n "$(NB)" || { echo 'usage: make run NB=01_io_concurrency P="connections=50 duration=5s" [PROFILE=quick] [RENDER=no]'; exit 2; }
	@test -f notebooks/$(NB).ipynb || { echo "no notebook notebooks/$(NB).ipynb; choose from: $(notdir $(basename $(NOTEBOOKS)))"; exit 2; }
	@case "$(RENDER)" in yes|no) ;; *) echo "RENDER=$(RENDER): choose yes or no"; exit 2;; esac
	$(BIN)/python -m benchbook.render.execute notebooks/$(NB).ipynb report/executed/$(NB).ipynb \
	  --profile notebooks/profiles/$(PROFILE).yaml --set "$$P"
ifneq ($(RENDER),no)
	$(PACK_MEASURED)
	$(BIN)/python -m benchbook.render.report --html report/index.html --pdf report/report.pdf $(EXECUTED)
endif

# A notebook's experiments measured N more times, each a fresh session (no stored run is
# reused), then the report again: every headline then shows the spread across sessions.
#   make replicate NB=01_io_concurrency N=3
N ?= 3
replicate: setup flamegraph report-tools
	@test -n "$(NB)" || { echo 'usage: make replicate NB=01_io_concurrency N=3 [PROFILE=quick]'; exit 2; }
	@test -f notebooks/$(NB).ipynb || { echo "no notebook notebooks/$(NB).ipynb; choose from: $(notdir $(basename $(NOTEBOOKS)))"; exit 2; }
	@for i in $$(seq 1 $(N)); do \
	  echo "session $$i of $(N): $(NB)"; \
	  $(BIN)/python -m benchbook.render.execute notebooks/$(NB).ipynb report/executed/$(NB).ipynb \
	    --profile notebooks/profiles/$(PROFILE).yaml || exit 1; \
	done
	$(PACK_MEASURED)
	$(BIN)/python -m benchbook.render.report --html report/index.html --pdf report/report.pdf $(EXECUTED)

# Tests that measure nothing run in two processes (a test file each at a time, so its
# module fixtures are made once): the fast ones, and the slow ones marked `no_load`. Then
# the slow ones that start servers or load tools, one at a time, the machine to themselves.
PARALLEL_TESTS = $(BIN)/pytest -n 2 --dist loadfile

test: setup report-tools test-tools lint
	cd servers/go && go vet ./... && go test ./...
	cd servers/rust && cargo fmt --check && cargo clippy --locked --release --all-targets -- -D warnings \
	  && cargo test --locked --release
	$(PARALLEL_TESTS) -m "not slow or no_load"
	$(BIN)/pytest -m "slow and not no_load" --durations=15

# The inner loop: no servers, no notebooks.
test-fast: $(TEST_INSTALLED) lint
	$(PARALLEL_TESTS) -m "not slow"

lint: $(TEST_INSTALLED)
	$(BIN)/lint-imports
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	@test -z "$$(gofmt -l servers/go)" || { gofmt -l servers/go; echo "gofmt: files above need formatting"; exit 1; }

# JupyterLab on notebooks/, on 127.0.0.1 only: `make lab LAB_PORT=8890`; the course's
# student edition: `make lab LAB_DIR=build/course/student` (after `make course`). Jupyter
# refuses to run as root without --allow-root, so root (alone) gets it. It installs what
# the notebooks need, not the test tools.
LAB_PORT ?= 8888
LAB_DIR ?= notebooks
lab: setup
	@test -d "$(LAB_DIR)" || { echo "LAB_DIR=$(LAB_DIR): no such folder (the course's editions: make course)"; exit 2; }
	$(BIN)/jupyter lab $(LAB_DIR)/ --no-browser --ip=127.0.0.1 --port=$(LAB_PORT) \
	  $(if $(filter 0,$(shell id -u)),--allow-root)

# The course (notebooks/COURSE.md): both editions, the course map and the students'
# bundle, offline (benchbook.course.build). course-minutes measures each lesson's
# minutes on this machine (the teacher keys run with the classroom profile, about an hour
# on 2 cores) into data/course/minutes.json, then rebuilds the map. `make class
# FILES="a.session.tar b.session.tar"`: a class's sessions side by side, one column per
# laptop (build/class/index.html).
course: $(INSTALLED)
	$(BIN)/python -m benchbook.course build

course-minutes: setup
	$(BIN)/python benchmarks/course_minutes.py
	$(BIN)/python -m benchbook.course build

class: $(INSTALLED)
	@test -n "$(FILES)" || { echo 'usage: make class FILES="alice.session.tar bob.session.tar"'; exit 2; }
	$(BIN)/python -m benchbook.course class $(FILES) $(if $(OUT),--out $(OUT))

bench-harness: setup
	$(BIN)/python benchmarks/harness_overhead.py

# For each headline of the executed notebooks: its variance between rounds and between
# sessions, and the rounds per session and sessions that reach a half-width, in minutes:
#   make plan [NB=01_io_concurrency] [TARGET=10%]
TARGET ?= 10%
# The rendered report read as a critic reads it (render/audit.py): every defect by its kind.
audit: $(INSTALLED)
	$(BIN)/python -m benchbook.render.audit report

plan: $(INSTALLED)
	$(BIN)/python -m benchbook.render.plan_table --target "$(TARGET)" \
	  $(if $(NB),report/executed/$(NB).ipynb,$(EXECUTED))

# The results store (build/store/, derived from data/runs/; the analysis updates it itself).
store: $(INSTALLED)
	$(BIN)/python -m benchbook.store build

# Every finished run's loose outputs packed into one outputs.tar.xz each (readers read
# both; report, run and replicate pack the runs they measured): make compact [LIMIT_MB=200]
# packs the oldest first while their loose outputs add up to at most LIMIT_MB.
compact: $(INSTALLED)
	$(BIN)/python -m benchbook.store compact $(if $(LIMIT_MB),--limit-mb $(LIMIT_MB))

# A session as one checked file, and back: make export-session [SESSION=<run id>] [OUT=x.tar];
# make import-session FILE=x.tar (refused, data/runs/ unchanged, unless every check holds).
export-session: $(INSTALLED)
	$(BIN)/python -m benchbook.store export $(if $(SESSION),--session $(SESSION)) $(if $(OUT),--out $(OUT))

import-session: $(INSTALLED)
	@test -n "$(FILE)" || { echo 'usage: make import-session FILE=<session file>'; exit 2; }
	$(BIN)/python -m benchbook.store import $(FILE)

# The store grown to 1,000 sessions of copies in a temporary folder, timed against folders.
bench-store: $(INSTALLED)
	$(BIN)/python benchmarks/store_scale.py

# Build outputs only: data/runs/ is append-only and report/ is committed.
clean:
	rm -rf build report/failed .pytest_cache

FORCE:
