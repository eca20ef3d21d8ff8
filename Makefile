.PHONY: setup test check bench
setup:
	bash .ci/setup
test:
	.venv/bin/python -m pytest -q
check:
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/mypy judge scoring taxonomy cli generation
