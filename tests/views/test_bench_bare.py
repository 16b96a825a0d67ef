"""The benchmark's bare save (bench/bare.py) keeps writing what a save writes, as the schema
changes: else `make bench` would find out only when it runs."""

from pathlib import Path

import pytest
from django.urls import clear_url_caches, reverse

from matches.models import Action, Match
from tests.html import parsed


@pytest.fixture
def bare(settings, monkeypatch):
    monkeypatch.syspath_prepend(Path(__file__).resolve().parents[2] / "bench")
    settings.ROOT_URLCONF = "bare"
    clear_url_caches()
    yield
    clear_url_caches()


def test_the_bare_save_writes_a_deal_its_log_entry_and_a_new_revision(bare, scorer, match):
    url = reverse("record_deal", args=[match.table.viewer_token, match.pk])
    revision = match.revision
    for key in ("wrk-1", "wrk-2"):
        response = scorer.post(url, {"key": key})
        assert response.status_code == 200
        assert parsed(response).select("#saved")
    match = Match.objects.get(pk=match.pk)
    assert list(match.deals.values_list("number", "idempotency_key", "points_0")) == [
        (1, "wrk-1", 6),
        (2, "wrk-2", 6),
    ]
    logged = match.changes.filter(action=Action.DEAL_RECORDED).order_by("id")
    assert list(logged.values_list("deal_number", flat=True)) == [1, 2]
    assert match.revision == revision + 2


def test_the_bare_save_refuses_a_phone_that_did_not_join(bare, client, match):
    url = reverse("record_deal", args=[match.table.viewer_token, match.pk])
    assert client.post(url, {"key": "wrk-1"}).status_code == 403
    assert not match.deals.exists()
