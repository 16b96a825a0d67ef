import pytest


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    """Tests render templates without running collectstatic first."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True, scope="session")
def _own_limits_cache(tmp_path_factory):
    """This run's rate-limit counters in a folder of its own (they are files): a suite run
    at the same time, in this checkout, counts its own."""
    from django.conf import settings
    from django.test import override_settings

    limits = {**settings.CACHES["limits"], "LOCATION": str(tmp_path_factory.mktemp("limits"))}
    with override_settings(CACHES={**settings.CACHES, "limits": limits}):
        yield


@pytest.fixture(autouse=True)
def _polls_read_afresh(settings):
    """A poll sees a change at once (tests/views/test_sheet.py tests the second's delay)."""
    settings.POLL_STALE_SECONDS = 0


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with empty rate-limit counters, and nothing drawn or read kept."""
    from django.core.cache import caches

    from matches.views import kept

    for alias in ("default", "limits"):
        caches[alias].clear()
    kept.forget()
    yield


@pytest.fixture(autouse=True)
def _english_outside_requests():
    """Services and forms speak English in tests unless a test asks otherwise.

    Requests still choose their own language from Accept-Language (Italian by default).
    """
    from django.utils import translation

    with translation.override("en"):
        yield
