"""Logs never hold a table's links."""

import doctest
import logging

from scoresheet import logs


def test_the_docstring_examples_hold():
    assert doctest.testmod(logs).failed == 0


def test_djangos_records_lose_the_token_whatever_their_arguments(caplog):
    logger = logging.getLogger("django.request")
    logger.addFilter(logs.RedactTokens())
    try:
        with caplog.at_level(logging.WARNING, logger="django.request"):
            logger.warning("Not Found: %s", "/t/AbCdEfGhIjKlMnOp/m/3/")
    finally:
        logger.filters.clear()
    assert caplog.records[0].getMessage() == "Not Found: /t/AbCd…/m/3/"


def test_the_settings_put_the_filter_on_every_log_line():
    from django.conf import settings

    assert settings.LOGGING["handlers"]["stdout"]["filters"] == ["tokens"]
