# Two commands do all the set-up: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PLAY_STAMP := $(VENV)/.installed-play

.PHONY: run test lint bench play clean

$(BIN)/pip:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

# The playground needs only the bot and aiohttp for its web chat (the [play] extra), not the
# test tools; the dev install above includes it too.
$(PLAY_STAMP): pyproject.toml | $(BIN)/pip
	$(BIN)/pip install --quiet -e ".[play]"
	touch $(PLAY_STAMP)

run: $(STAMP)
	$(BIN)/python -m bot

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest $(ARGS)

# Lint: ruff's rules and the type checker (configured in pyproject.toml). No formatter check:
# the code keeps its hand formatting at 99 columns.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m bench $(ARGS)

play: $(PLAY_STAMP)
	$(BIN)/python -m bot play $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache
