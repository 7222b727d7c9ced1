# One command runs every check: `make check`.
.PHONY: check lint format typecheck test coverage mutation bench install

install:
	python -m pip install -e ".[dev]"

lint:
	ruff check src tests benchmarks
	ruff format --check src tests benchmarks

format:
	ruff format src tests benchmarks
	ruff check --fix src tests benchmarks

typecheck:
	mypy --strict src

test:
	python -m pytest

# Branch coverage of the whole suite, CLI subprocesses included, then of the decision logic
# alone (the modules mutation testing covers: [tool.mutmut] only_mutate).
DECISION = $(shell python -c "import tomllib; print(','.join(tomllib.load(open('pyproject.toml', 'rb'))['tool']['mutmut']['only_mutate']))")
# `coverage run` rather than pytest-cov: since pytest-cov 7 only coverage itself follows the
# CLI tests' subprocesses (`patch = ["subprocess"]`), and their data files need `combine`.
coverage:
	python -m coverage erase
	python -m coverage run -m pytest -p no:cacheprovider
	python -m coverage combine -q
	python -m coverage report
	python -m coverage report --include="$(DECISION)"

# Mutation testing of the decision logic (tens of minutes; see docs/internals/mutation.md).
mutation:
	python -m mutmut run
	python -m mutmut results

check: lint typecheck test

bench:
	python benchmarks/flat_bench.py
