import pytest


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    """Tests render templates without running collectstatic first."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def _own_exports_folder(settings, tmp_path):
    """The exports a test draws are kept in a folder of its own."""
    settings.EXPORTS_DIR = tmp_path / "exports"


@pytest.fixture(autouse=True)
def _polls_read_afresh(settings):
    """A poll sees a change at once (tests/views/test_sheet.py tests the second's delay)."""
    settings.POLL_STALE_SECONDS = 0


@pytest.fixture(autouse=True)
def _fresh_cache(settings):
    """Each test starts with nothing drawn or read kept, in a cache of this process's own (the
    suites on SQLite and PostgreSQL may run at once)."""
    from django.core.cache import caches

    from matches.views import watched

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

    caches["default"].clear()
    watched.forget()
    yield


@pytest.fixture(autouse=True)
def _english_outside_requests():
    """Services and forms speak English in tests unless a test asks otherwise.

    Requests still choose their own language from Accept-Language (Italian by default).
    """
    from django.utils import translation

    with translation.override("en"):
        yield
