# Two commands for a newcomer: `make run` and `make test` (see README).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test install install-test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .

install-test: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"

run: install
	$(BIN)/python manage.py migrate --no-input
	$(BIN)/python manage.py bootstrap
	$(BIN)/uvicorn lifeassistant.asgi:application --host 127.0.0.1 --port 8000

test: install-test
	$(BIN)/python -m pytest
