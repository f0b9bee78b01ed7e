# ChLGBT Workbench. `make run` and `make test` are the two commands in README.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test eval bench lint clean loadtest drills screenshots

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	# torch first, pinned to the CPU build on disk, so nothing pulls a CUDA build
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP)

## Set up and serve the app on the embedded default (SQLite, in-process tasks) with demo data.
run: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	$(PY) manage.py runserver $(HOST):$(PORT)

## Set up and run the whole test suite (PostgreSQL/Redis/Chromium when the environment provides them).
test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q $(PYTEST_ARGS)

## The paper's ablation on the ChLGBT sample and COLD with the offline backbone -> docs/results.md
eval: $(STAMP)
	$(PY) -m modeling.maam ablation --data ../shared/data/chlgbt/chlgbt_sample.csv --seeds 5 --out docs/results.md \
		--backbones char-ngram use-m3 hybrid \
		--cold ../shared/data/cold

bench: $(STAMP)
	cd bench && ../$(PY) bench_data.py && ../$(PY) bench_data.py --postgres && ../$(PY) bench_myopia.py && ../$(PY) bench_submit.py

screenshots: $(STAMP)
	cd bench && ../$(PY) screenshots.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) var .pytest_cache

## Load test (50 and 200 annotators) and fault drills; need PostgreSQL and Redis on loopback.
loadtest: $(STAMP)
	cd bench && ../$(PY) loadtest.py --annotators 50 --duration 60 --json-out loadtest-50.json
	cd bench && ../$(PY) loadtest.py --annotators 200 --duration 60 --json-out loadtest-200.json

drills: $(STAMP)
	cd bench && ../$(PY) drills.py
