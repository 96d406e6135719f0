# Two commands for a newcomer: `make run` and `make test` (see README).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test install install-test messages constraints

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# constraints.txt pins every package installed, not only the direct dependencies that
# pyproject.toml pins, so a fresh clone installs what CI last passed with.
install: $(BIN)/python
	$(BIN)/python -m pip install --quiet -c constraints.txt -e .

install-test: $(BIN)/python
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[test]"

# Re-resolve from pyproject.toml alone in a scratch venv and write constraints.txt (after
# changing a dependency; then run the tests and commit both files).
constraints:
	rm -rf .venv-constraints
	$(PYTHON) -m venv .venv-constraints
	.venv-constraints/bin/python -m pip install --quiet --upgrade pip
	.venv-constraints/bin/python -m pip install --quiet -e ".[test]"
	{ sed -n '1,/^# Refresh/p' constraints.txt; .venv-constraints/bin/python -m pip freeze --exclude-editable; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf .venv-constraints

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
