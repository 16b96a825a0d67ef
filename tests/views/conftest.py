import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from matches import rules, services
from tests.factories import MatchFactory, TableFactory
from tests.html import words


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
        match_id=match.pk,
        number=1,
        entry=rules.DealEntry(card_points=(8, 3), declared_points=(3, 0)),
    ).deal


def play(
    table, *, deals: int, finish: bool = True, players=(("Alice", "Carla"), ("Beppe", "Dino"))
):
    """A match at line 101 of `deals` deals (6 + 3 against 5 every other deal); finished, a
    cappotto for the first side ends it."""
    match = services.start_match(table=table, players=players, settings=rules.MatchSettings(101))
    for number in range(1, deals + 1):
        entry = rules.DealEntry(card_points=(6, 5), declared_points=(3 * (number % 2), 0))
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    if finish:
        sweep = rules.DealEntry((11, 0), (0, 0), kind=rules.DealKind.CAPPOTTO, side=0)
        services.record_deal(match_id=match.pk, number=deals + 1, entry=sweep)
        services.end_match(match=match)
    return match


def history(matches: int, deals: int):
    """A table of `matches` finished matches, partners changing, and one under way."""
    table = TableFactory()
    for index in range(matches):
        pairs = (
            (("Alice", "Carla"), ("Beppe", "Dino"))
            if index % 2
            else (("Alice", "Dino"), ("Beppe", "Carla"))
        )
        play(table, deals=deals, players=pairs)
    return table, play(table, deals=deals, finish=False)


def queries(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


@pytest.fixture
def joined(client):
    """Joins `client` to a table as a scorer: `joined(table)`."""

    def join(table):
        client.post(reverse("join", args=[table.scorer_token]))
        return client

    return join


def same_queries_at_any_size(joined, url_of) -> None:
    """A page asks the database as many times for a small history as for a larger one."""
    counts = []
    for size in ((2, 2), (7, 9)):
        table, match = history(*size)
        counts.append(queries(joined(table), url_of(table, match)))
    assert counts[0] == counts[1]


def scores(page) -> list[str]:
    """The sheet's totals, as shown."""
    return [words(total) for total in page.select("#live .total")]


def notices(page) -> str:
    """What the sheet says of this phone's own last action."""
    return words(page.select_one("#notices"))
