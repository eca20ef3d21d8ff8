# The project's checks, the same as CI (.ci/run). `make check` = lint + types + tests.
PY := .venv/bin/python
LIB := judge scoring taxonomy cli generation
PYTEST_FLAGS ?= -q
# Benchmark scripts that need no input (bench/builtin_speed.py needs a finished run: see its
# docstring). Each prints its figures; none is a test.
BENCHES := stage0_bench render_bench generation_bench graph_bench builtin_accuracy \
	rescore_bench leaderboard_bench labelling_bench

.PHONY: setup lint types test check bench
setup:
	bash .ci/setup
lint:
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
types:
	.venv/bin/mypy $(LIB)
	.venv/bin/mypy tests bench
test:
	$(PY) -m pytest $(PYTEST_FLAGS)
check: lint types test
bench:
	@set -e; for b in $(BENCHES); do echo "== bench/$$b.py"; $(PY) bench/$$b.py; done
