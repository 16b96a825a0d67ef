# Two commands do all set-up on a fresh machine: `make run` and `make test`.
# Compiled translations (locale/*/django.mo) are committed; `make messages` rebuilds them.
SHELL := /bin/bash
export UV_PYTHON_DOWNLOADS := never
export UV_LINK_MODE := copy
# python3 is the pyenv shim: .python-version selects 3.13.
UV := python3 -m uv
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
HOST ?= 127.0.0.1

.PHONY: install run serve test format messages bench clean

$(VENV)/.synced: pyproject.toml uv.lock
	@$(UV) --version >/dev/null 2>&1 || python3 -m pip install --quiet uv==0.13.9
	$(UV) sync --frozen
	@touch $@

install: $(VENV)/.synced

run: install
	mkdir -p var
	DJANGO_DEBUG=1 $(PY) manage.py migrate --no-input
	DJANGO_DEBUG=1 $(PY) manage.py runserver $(HOST):$(PORT)

serve: install
	DJANGO_DEBUG=$${DJANGO_DEBUG:-0} bin/entrypoint

# Browser tests drive Debian's Chromium (Playwright never downloads a browser here).
/usr/bin/chromium:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null

test: install /usr/bin/chromium
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	DJANGO_SECRET_KEY=$${DJANGO_SECRET_KEY:-test-only-secret-key-not-for-production-use} $(VENV)/bin/pytest $(PYTEST_ARGS)

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

messages: install
	DJANGO_DEBUG=1 $(PY) manage.py makemessages -l it -l en -l hr --ignore=.venv --ignore=staticfiles --ignore=bench
	DJANGO_DEBUG=1 $(PY) manage.py compilemessages --ignore=.venv

# The benchmark writes docs/performance.md. BENCH_QUICK=1 for a quick run while developing
# (figures meaningless, written to var/performance-quick.md); BENCH_DATABASES=sqlite for one.
bench: install /usr/bin/chromium
	@command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
	@command -v npm >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; }
	@[ -x var/lighthouse/node_modules/.bin/lighthouse ] || npm install --silent --no-audit --no-fund --prefix var/lighthouse lighthouse@12
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) staticfiles
