import pytest


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    """Tests render templates without running collectstatic first."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with empty rate-limit counters."""
    from django.core.cache import caches

    for alias in ("default", "limits"):
        caches[alias].clear()
    yield


@pytest.fixture(autouse=True)
def _english_outside_requests():
    """Services and forms speak English in tests unless a test asks otherwise.

    Requests still choose their own language from Accept-Language (Italian by default).
    """
    from django.utils import translation

    with translation.override("en"):
        yield
