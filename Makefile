# colony: the two commands are `make build` (everything) and `make test` (the test suite).
# Both set up what they need first: system packages (when run as root), a virtualenv, the locked dependencies.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.colony-installed

.PHONY: setup build test bench lock clean sweep

setup: $(STAMP)

$(STAMP): pyproject.toml requirements.lock scripts/setup_system.sh scripts/setup_npm.sh scripts/npm/package-lock.json
	bash scripts/setup_system.sh
	bash scripts/setup_npm.sh
	$(PYTHON) -m pip install --quiet --disable-pip-version-check uv
	$(PYTHON) -m uv venv --allow-existing --python $(PYTHON) $(VENV)
	$(PYTHON) -m uv pip install --quiet --compile-bytecode --python $(PY) -r requirements.lock
	$(PYTHON) -m uv pip install --quiet --compile-bytecode --python $(PY) --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

# the PostgreSQL tests must run here (a missing server fails them instead of skipping; scripts/setup_system.sh installs it)
test: $(STAMP)
	COLONY_REQUIRE_POSTGRES=1 COLONY_PG_HEAVY=1 $(PY) -m pytest -n 2 --dist loadgroup

build: $(STAMP)
	$(PY) scripts/build.py

bench: $(STAMP)
	$(PY) -m benchmarks

# the full sensitivity sweep of the synthetic study (Dask LocalCluster; SCHEDULER=ADDRESS for a real cluster);
# writes output/study/sweep.json, which the build reads instead of running its reduced grid
sweep: $(STAMP)
	$(PY) -m colony.cli study sweep $(if $(SCHEDULER),--scheduler $(SCHEDULER),)

lock:
	$(PYTHON) -m uv pip compile --universal --python-version 3.11 --extra all --extra dev pyproject.toml -o requirements.lock

clean:
	rm -rf output/* $(VENV) .cache/npm .pytest_cache .ruff_cache .mypy_cache
	touch output/.gitkeep

# ---- build pipeline stages (owned by the build; `make build` runs them all in order) ----------------------
# Each stage alone; `verify` checks the bundle of this checkout; `bench-build` times clean and no-op builds.
.PHONY: build-gates build-notebooks build-variables build-figures build-compile build-validate build-bundle verify bench-build

build-gates: $(STAMP)
	$(PY) scripts/gates.py

build-notebooks: $(STAMP)
	$(PY) scripts/run_notebooks.py

build-variables: $(STAMP)
	$(PY) scripts/variables.py

build-figures: $(STAMP)
	$(PY) scripts/render_figures.py

build-compile: $(STAMP)
	$(PY) scripts/compile.py

build-validate: $(STAMP)
	$(PY) scripts/validate.py

build-bundle: $(STAMP)
	$(PY) scripts/bundle.py prepare

verify: $(STAMP)
	$(PY) scripts/bundle.py verify

bench-build: $(STAMP)
	$(PY) -m benchmarks.bench_build
