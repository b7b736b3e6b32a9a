# One task runner for developers and CI. Every target bootstraps what it needs:
# a .venv made with the machine's Python, pinned packages from the registries, the extension.
.DEFAULT_GOAL := help
SHELL := /bin/bash

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
# Build profile of the extension: release by default (benchmarks and demo need it);
# `make test MATURIN_PROFILE=` gives a faster debug build while iterating.
MATURIN_PROFILE ?= --release

RUST_SRC := $(shell find rust -name '*.rs') Cargo.toml Cargo.lock
DEPS_STAMP := $(VENV)/.deps-stamp
BUILD_STAMP := $(VENV)/.build-stamp
SYS_STAMP := $(VENV)/.system-stamp
# `make demo` needs the runtime dependencies and maturin only, not the development toolchain:
# the pins come from requirements-dev.txt (one source per version).
DEMO_STAMP := $(VENV)/.demo-stamp
DEMO_BUILD_STAMP := $(VENV)/.demo-build-stamp
DEMO_PINS := ^(maturin|lz4)==

.PHONY: help demo test test-python test-rust bench lint wheel clean format

help: ## Show this help
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  %-12s %s\n", $$1, $$2}'

$(PY):
	$(PYTHON) -m venv $(VENV)

$(DEPS_STAMP): requirements-dev.txt | $(PY)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	touch $@

$(BUILD_STAMP): $(DEPS_STAMP) $(RUST_SRC) pyproject.toml
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop -q $(MATURIN_PROFILE) --locked
	touch $@

$(SYS_STAMP): scripts/system-deps.sh
	bash scripts/system-deps.sh
	@mkdir -p $(VENV) && touch $@

$(DEMO_STAMP): requirements-dev.txt | $(PY)
	$(PY) -m pip install -q --disable-pip-version-check \
		$$(grep -E '$(DEMO_PINS)' requirements-dev.txt)
	touch $@

$(DEMO_BUILD_STAMP): $(DEMO_STAMP) $(RUST_SRC) pyproject.toml
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop -q --release --locked
	touch $@

demo: $(DEMO_BUILD_STAMP) ## Build the extension (runtime deps only) and run the scripted agent session
	$(BIN)/crs demo

test: $(BUILD_STAMP) $(SYS_STAMP) test-rust test-python ## Build and run every test (cargo test, pytest)

test-rust:
	cargo test --locked

test-python: $(BUILD_STAMP) $(SYS_STAMP)
	$(PY) -m pytest -q -p no:cacheprovider

bench: $(BUILD_STAMP) $(SYS_STAMP) ## Run the benchmarks (pytest-benchmark) and print medians
	$(PY) -m pytest bench -q -p no:cacheprovider --benchmark-enable --benchmark-columns=median,iqr,ops,rounds --benchmark-sort=name

lint: $(BUILD_STAMP) ## ruff, mypy --strict, stubtest, cargo fmt --check, clippy -D warnings
	$(BIN)/ruff check python tests bench
	$(BIN)/ruff format --check python tests bench
	$(BIN)/mypy
	$(BIN)/python -m mypy.stubtest crs._core --allowlist .mypy-stubtest-allowlist
	cargo fmt --check
	cargo clippy --locked --all-targets -- -D warnings
	cargo clippy --locked --all-targets --features python -- -D warnings

format: $(DEPS_STAMP) ## Format Python and Rust sources
	$(BIN)/ruff format python tests bench
	$(BIN)/ruff check --fix python tests bench
	cargo fmt

wheel: $(DEPS_STAMP) ## Build a release wheel into dist/
	$(BIN)/maturin build --release --locked -o dist

clean: ## Remove build products and the virtual environment
	rm -rf $(VENV) target dist python/crs/_core*.so .pytest_cache .mypy_cache .ruff_cache .hypothesis .benchmarks
