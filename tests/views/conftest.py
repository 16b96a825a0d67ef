import pytest
from django.urls import reverse

from matches import services
from tests.factories import MatchFactory


@pytest.fixture
def match(db):
    return MatchFactory()


@pytest.fixture
def table(match):
    return match.table


@pytest.fixture
def scorer(client, table):
    """A phone that joined the table through its scorer link."""
    client.post(reverse("join", args=[table.scorer_token]), {"label": "Carla's phone"})
    return client


@pytest.fixture
def sheet_url(match):
    return reverse("match", args=[match.table.viewer_token, match.pk])


@pytest.fixture
def deal_url(match):
    return reverse("record_deal", args=[match.table.viewer_token, match.pk])


def deal_data(number=1, a="8", b="3", da="3", db="0", **extra):
    return {
        "number": number,
        "key": extra.pop("key", f"key-{number}"),
        "kind": "normal",
        "card_points_0": a,
        "card_points_1": b,
        "declared_points_0": da,
        "declared_points_1": db,
        **extra,
    }


@pytest.fixture
def worked(match):
    """The rules' worked deal, recorded as deal 1."""
    from matches import rules

    return services.record_deal(
        match=match,
        number=1,
        entry=rules.DealEntry(card_points=(8, 3), declared_points=(3, 0)),
    ).deal
