# One command runs every check: `make check`.
.PHONY: check lint format typecheck test bench install

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
	python -m pytest --cov --cov-report=term

check: lint typecheck test

bench:
	python benchmarks/flat_bench.py
