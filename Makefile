# Two commands for a newcomer: `make run` and `make test` (see README).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test install install-test messages

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

# Rebuild the translation catalogs (locale/: django for Python and templates, djangojs for
# the web chat's scripts) from the source strings, and compile them. Needs GNU gettext; the
# compiled .mo files are committed, so running the project does not.
MESSAGES_IGNORE := --ignore '.venv*' --ignore tests --ignore bench --ignore build --ignore staticfiles --ignore node_modules --ignore test-artifacts
messages: install
	$(BIN)/python manage.py makemessages --no-obsolete --no-location --no-wrap -l pt_BR -l es $(MESSAGES_IGNORE)
	$(BIN)/python manage.py makemessages --no-obsolete --no-location --no-wrap -d djangojs -l pt_BR -l es $(MESSAGES_IGNORE)
	$(BIN)/python manage.py compilemessages -l pt_BR -l es $(MESSAGES_IGNORE)
