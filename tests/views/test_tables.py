import pytest
from django.urls import reverse

from matches.models import Match, Player, Table

pytestmark = pytest.mark.django_db
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def test_creating_a_table_joins_this_phone_and_lists_it_at_home(client):
    response = client.post(reverse("create_table"), {"name": "Bar Sport"}, **EN)
    table = Table.objects.get()
    assert response["Location"] == reverse("table", args=[table.viewer_token])
    assert "Bar Sport" in client.get("/", **EN).content.decode()
    page = client.get(response["Location"], **EN).content.decode()
    assert "Scorer link" in page and "<svg" in page


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Give the table a name"),
        ("x" * 10_000, "Keep it to 60 characters"),
        ("Bar\x07Sport", "letters, numbers and punctuation only"),
    ],
)
def test_a_bad_table_name_gets_a_message_and_nothing_is_stored(client, name, message):
    response = client.post(reverse("create_table"), {"name": name}, **EN)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Table.objects.exists()


def test_hostile_names_are_escaped(client):
    client.post(reverse("create_table"), {"name": '<script>alert(1)</script>" hx-get="/x'}, **EN)
    table = Table.objects.get()
    html = client.get(reverse("table", args=[table.viewer_token]), **EN).content.decode()
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot; hx-get=&quot;/x" in html


def test_a_new_match_seats_four_players_and_opens_its_sheet(client):
    client.post(reverse("create_table"), {"name": "Bar Sport"}, **EN)
    table = Table.objects.get()
    response = client.post(
        reverse("new_match", args=[table.viewer_token]),
        {
            "players_per_side": "2",
            "player_0": "Alice",
            "player_2": "Carla",
            "player_1": "Beppe",
            "player_3": "Dino",
            "side_name_0": "",
            "side_name_1": "I Lupi",
            "line": "31",
            "tie_rule": "another_deal",
            "first_dealer": "3",
        },
        **EN,
    )
    match = Match.objects.get()
    assert response["Location"] == reverse("match", args=[table.viewer_token, match.pk])
    assert [s.name for s in match.sides.all()] == ["Alice & Carla", "I Lupi"]
    assert (match.line, match.tie_rule, match.first_dealer) == (31, "another_deal", 3)
    assert Player.objects.count() == 4


def test_a_new_match_with_missing_or_repeated_players_says_so(client):
    client.post(reverse("create_table"), {"name": "Bar Sport"}, **EN)
    table = Table.objects.get()
    html = client.post(
        reverse("new_match", args=[table.viewer_token]),
        {
            "players_per_side": "2",
            "player_0": "Alice",
            "player_2": "alice",
            "player_1": "Beppe",
            "line": "10",
            "tie_rule": "higher_total",
            "first_dealer": "0",
        },
        **EN,
    ).content.decode()
    assert "This player already sits at this match." in html
    assert "Type a name or pick a player." in html
    assert "The line must be from 11 to 101, not 10." in html
    assert not Match.objects.exists()


def test_creating_tables_is_rate_limited_per_address(client, settings):
    from django.core.cache import cache

    cache.clear()
    settings.TABLES_PER_HOUR = 2
    for name in ("One", "Two"):
        assert client.post(reverse("create_table"), {"name": name}, **EN).status_code == 302
    response = client.post(reverse("create_table"), {"name": "Three"}, **EN)
    assert response.status_code == 429
    assert "Too many new tables from this address" in response.content.decode()
    assert Table.objects.count() == 2
    other = client.post(reverse("create_table"), {"name": "Four"}, REMOTE_ADDR="10.9.8.7", **EN)
    assert other.status_code == 302


def test_joining_with_an_empty_form_joins_all_the_same(client):
    table = Table.objects.create(name="Bar Sport")
    response = client.post(reverse("join", args=[table.scorer_token]))
    assert response.status_code == 302
    assert "Bar Sport" in client.get("/", **EN).content.decode()
