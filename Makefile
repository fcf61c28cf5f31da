# GPU Cloud Advisor — every target sets up what it needs first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8501
# Loopback by default. Editing needs a sign-in (README, Sign-in) or, on your own machine, LOCAL_EDITING=1
# (local mode: editing without sign-in, honoured only while the server listens on loopback).
ADDRESS ?= 127.0.0.1
LOCAL_EDITING ?=
# Exact versions of every package (issue #28.14): pyproject.toml names the packages and ranges, the lock pins them.
LOCK   := requirements.lock
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml $(LOCK) | cksum | cut -d' ' -f1)

.PHONY: setup lock audit run test test-fast e2e bench load load-cluster data-report catalog chromium screenshots lint clean refresh postgresql nginx nginx-for-tests cluster cluster-stop cluster-check

$(STAMP): pyproject.toml $(LOCK)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c $(LOCK) -e ".[dev]"
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

setup: $(STAMP)

## Re-pin requirements.lock to the newest versions pyproject.toml allows (a throwaway venv; needs the registry).
lock:
	rm -rf .venv-lock && $(PYTHON) -m venv .venv-lock
	.venv-lock/bin/python -m pip install -q --upgrade pip
	.venv-lock/bin/python -m pip install -q -e ".[dev]"
	{ sed -n '/^#/p' $(LOCK); .venv-lock/bin/python -m pip freeze --exclude-editable; } > $(LOCK).new
	mv $(LOCK).new $(LOCK) && rm -rf .venv-lock

## Known vulnerabilities in exactly the locked versions (pip-audit in its own venv; needs PyPI and the OSV database).
audit:
	@test -x .venv-audit/bin/pip-audit || { $(PYTHON) -m venv .venv-audit && .venv-audit/bin/python -m pip install -q pip-audit; }
	.venv-audit/bin/pip-audit -r $(LOCK) --no-deps --disable-pip --progress-spinner off

## Build the default catalog from the embedded seed (only when missing; never overwrites).
catalog: setup
	$(BIN)/python -m catalog.cli build

## Start the app on http://localhost:$(PORT) (PORT=8502 for another port; ADDRESS=0.0.0.0 to serve a room;
## LOCAL_EDITING=1 to edit the catalog without sign-in on loopback).
run: catalog
	GPU_ADVISOR_LOCAL_EDITING=$(LOCAL_EDITING) $(BIN)/python -m streamlit run app.py --server.port $(PORT) --server.address $(ADDRESS) \
		--server.headless true --browser.gatherUsageStats false

## Debian's Chromium drives the real-browser tests (Playwright cannot download its own browser here); poppler
## (pdftoppm) and tesseract render the PDF report to PNG and read it back in its tests.
chromium:
	@if ! command -v chromium >/dev/null 2>&1 || ! command -v pdftoppm >/dev/null 2>&1 \
			|| ! command -v tesseract >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && \
			apt-get install -y -qq chromium poppler-utils tesseract-ocr tesseract-ocr-eng; \
		else echo "Install Debian's chromium, poppler-utils and tesseract-ocr (sudo apt-get install chromium" \
			"poppler-utils tesseract-ocr) for the browser tests"; exit 1; fi; \
	fi

test: setup chromium postgresql nginx-for-tests
	$(BIN)/python -m pytest -q

test-fast: setup
	$(BIN)/python -m pytest -q -m "not e2e"

bench: setup
	$(BIN)/python bench/run_all.py

## Load test: 20 concurrent browser sessions + an editor saving prices (not part of make test); exits non-zero
## on any error or lost edit. LOAD_ARGS passes options, e.g. LOAD_ARGS="--profile load.raw" (py-spy samples).
LOAD_ARGS ?=
load: setup chromium postgresql nginx-for-tests
	$(BIN)/python bench/load_test.py $(LOAD_ARGS)

## The scale-out proof (README "Scaling out"): 40 sessions (1 Chromium tab + 39 browserless websocket sessions) over
## 3 replicas behind nginx on PostgreSQL while an editor saves 5 prices; one replica is SIGKILLed mid-load.
load-cluster: setup chromium postgresql nginx
	$(BIN)/python bench/load_test.py --cluster 3 --viewers 1 --ws-viewers 39 --max-rounds 3 --kill-replica-after-s 60 $(LOAD_ARGS)

## What a data editor should refresh next (opens the catalog read-only: stop the app first).
data-report: catalog
	$(BIN)/python -m catalog.cli report

## Monthly price refresh (stop the app first: it holds the catalog). Preview, then APPLY=1 to write:
##   make refresh SOURCE=path/vms.csv PROVIDER=nebius URL=https://... AS_OF=2026-11-01 [SKIP_UNKNOWN=1] [APPLY=1]
##   make refresh SOURCE=gpuhunt PROVIDERS=aws,gcp [APPLY=1]   (live, needs network)
refresh: catalog
	$(BIN)/python -m catalog.cli refresh --source "$(SOURCE)" \
		$(if $(PROVIDER),--provider "$(PROVIDER)") $(if $(PROVIDERS),--providers "$(PROVIDERS)") \
		$(if $(URL),--source-url "$(URL)") $(if $(AS_OF),--as-of "$(AS_OF)") \
		$(if $(SKIP_UNKNOWN),--skip-unknown-gpus) $(if $(APPLY),--apply) $(if $(MESSAGE),--message "$(MESSAGE)")

screenshots: setup chromium
	$(BIN)/python bench/screenshots.py

## Lint: ruff on everything, mypy on engine, catalog, domain and ui (config in pyproject.toml).
lint: setup
	$(BIN)/ruff check .
	$(BIN)/python -m mypy

clean:
	rm -rf $(VENV) .venv-lock .venv-audit .pytest_cache .hypothesis

## PostgreSQL server binaries (Debian's postgresql package) for the store suite's second backend and make cluster.
## As root they are installed when missing; otherwise the PostgreSQL tests are skipped and say so in the summary.
postgresql:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; \
		else echo "*** PostgreSQL is not installed and this is not root: the PostgreSQL half of the store suite" \
			"will be SKIPPED (sudo apt-get install postgresql to run it)."; fi; \
	fi

nginx:
	@if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx; \
		else echo "Install Debian's nginx (sudo apt-get install nginx) for make cluster"; exit 1; fi; \
	fi

## The cluster fault test (tests/e2e/test_cluster_fault.py) puts nginx in front of two replicas. As root it is
## installed when missing; otherwise that test is skipped and says so in the summary.
nginx-for-tests:
	@if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx; \
		else echo "*** nginx is not installed and this is not root: the cluster fault test will be SKIPPED" \
			"(sudo apt-get install nginx to run it)."; fi; \
	fi

## Scaling out (README "Scaling out"; not part of make run): PostgreSQL + CLUSTER_REPLICAS Streamlit replicas +
## nginx (sticky sessions, websockets) on http://127.0.0.1:$(CLUSTER_PORT). CLUSTER_ARGS="--fresh" reseeds.
CLUSTER_REPLICAS ?= 3
CLUSTER_PORT ?= 8580
CLUSTER_ARGS ?=
cluster: setup postgresql nginx
	$(BIN)/python bench/cluster.py start --replicas $(CLUSTER_REPLICAS) --port $(CLUSTER_PORT) $(CLUSTER_ARGS)

cluster-stop:
	$(BIN)/python bench/cluster.py stop

## Opens the app through nginx in Chromium: the catalog shows, clients spread over replicas, sessions stick.
cluster-check: setup chromium
	$(BIN)/python bench/cluster.py check
