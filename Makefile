# colony: the two commands are `make build` (everything) and `make test` (the test suite).
# Both set up what they need first: system packages (when run as root), a virtualenv, the locked dependencies.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.colony-installed

.PHONY: setup build test bench lock clean

setup: $(STAMP)

$(STAMP): pyproject.toml requirements.lock scripts/setup_system.sh
	bash scripts/setup_system.sh
	$(PYTHON) -m pip install --quiet --disable-pip-version-check uv
	$(PYTHON) -m uv venv --allow-existing --python $(PYTHON) $(VENV)
	VIRTUAL_ENV=$(VENV) $(PYTHON) -m uv pip install --quiet -r requirements.lock
	VIRTUAL_ENV=$(VENV) $(PYTHON) -m uv pip install --quiet --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadgroup

build: $(STAMP)
	$(PY) scripts/build.py

bench: $(STAMP)
	$(PY) -m benchmarks

lock:
	$(PYTHON) -m uv pip compile --universal --python-version 3.11 --extra dev --extra docs --extra formal pyproject.toml -o requirements.lock

clean:
	rm -rf output/* $(VENV) .pytest_cache .ruff_cache .mypy_cache
	touch output/.gitkeep
