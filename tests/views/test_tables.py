"""Tables (matches/views/tables.py): home, a new table, joining, a table's page, its links
and players, and a new match."""

import json
from http.cookies import SimpleCookie

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from matches import rules, services
from matches.models import Match, Player, Table
from matches.views import access
from tests.html import errors_of, one, parsed, value, words

pytestmark = pytest.mark.django_db
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HX = {"HTTP_HX_REQUEST": "true", **EN}


def test_the_home_page_loads_htmx_from_this_server(client):
    page = parsed(client.get("/", **EN))
    assert words(one(page, "h1")) == "Tressette Scoresheet"
    assert page.select("script")[0]["src"] == "/static/django_htmx/htmx-2.min.js"
    # Every HTMX request sends the page's CSRF token (django-htmx's way).
    assert json.loads(one(page, "body")["hx-headers"])["X-CSRFToken"]


def test_creating_a_table_joins_this_phone_and_lists_it_at_home(client):
    response = client.post(reverse("create_table"), {"name": "Bar Sport"}, **EN)
    table = Table.objects.get()
    assert response["Location"] == reverse("table", args=[table.viewer_token]) + "?created=1"
    assert [words(a.strong) for a in parsed(client.get("/", **EN)).select(".list a.row")] == [
        "Bar Sport"
    ]
    page = parsed(client.get(response["Location"], **EN))
    assert page.select("#scorer-url")
    assert page.select("#share .qr svg")
    # Said once, with the way to what comes next: sharing the table.
    created = one(page, "#created")
    assert words(created).startswith("Table created. Share it with the others at the table")
    assert created["data-once"] == "created" and created.a["href"] == "#share"


@pytest.mark.parametrize("htmx", [False, True])
def test_creating_a_table_and_a_match_with_and_without_htmx(client, htmx):
    headers = HX if htmx else EN
    response = client.post(reverse("create_table"), {"name": "Bar Sport"}, **headers)
    location = (response["HX-Redirect"] if htmx else response["Location"]).split("?")[0]
    assert location.startswith("/t/")
    data = {"players_per_side": "1", "player_0": "Alice", "player_1": "Beppe", "line": "21"}
    data.update(tie_rule="higher_total", first_dealer="1")
    response = client.post(location + "matches/new", data, **headers)
    assert (response["HX-Redirect"] if htmx else response["Location"]).startswith(location + "m/")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Give the table a name, like “Bar Sport”."),
        ("x" * 10_000, "Keep it to 60 characters (this one has 10000)."),
        ("Bar\x07Sport", "Use letters, numbers and punctuation only."),
    ],
)
def test_a_bad_table_name_gets_a_message_and_nothing_is_stored(client, name, message):
    page = parsed(client.post(reverse("create_table"), {"name": name}, **EN))
    assert errors_of(page, "id_name") == [message]
    assert not Table.objects.exists()


def test_hostile_names_are_escaped(client):
    name = '<script>alert(1)</script>" hx-get="/x'
    client.post(reverse("create_table"), {"name": name}, **EN)
    table = Table.objects.get()
    page = parsed(client.get(reverse("table", args=[table.viewer_token]), **EN))
    assert words(one(page, "h1")) == name and not page.select("h1 script")


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
    page = parsed(
        client.post(
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
        )
    )
    assert errors_of(page, "id_player_2") == ["This player already sits at this match."]
    assert errors_of(page, "id_player_3") == ["Type a name or pick a player."]
    assert errors_of(page, "id_line") == ["The line must be from 11 to 101, not 10."]
    assert value(page, "player_2") == "alice"  # what was typed stays
    assert not Match.objects.exists()


def test_creating_tables_is_rate_limited_per_address(client, settings):
    settings.TABLES_PER_HOUR = 2
    for _ in range(3):  # a refused name makes no table and uses none of the limit
        assert client.post(reverse("create_table"), {"name": " "}, **EN).status_code == 200
    for name in ("One", "Two"):
        assert client.post(reverse("create_table"), {"name": name}, **EN).status_code == 302
    response = client.post(reverse("create_table"), {"name": "Three"}, **EN)
    assert response.status_code == 429
    assert words(one(parsed(response), "form .errorlist")) == (
        "Too many new tables from this address: try again in an hour."
    )
    assert Table.objects.count() == 2
    assert response["Retry-After"] == "3600"
    other = client.post(reverse("create_table"), {"name": "Four"}, REMOTE_ADDR="10.9.8.7", **EN)
    assert other.status_code == 302


def test_a_limit_reached_holds_however_many_other_addresses_are_counted(client, settings):
    from django.test import RequestFactory

    from matches.limits import allow

    settings.TABLES_PER_HOUR = 2
    for name in ("One", "Two"):
        assert client.post(reverse("create_table"), {"name": name}, **EN).status_code == 302
    for n in range(600):  # once enough to make a cache of counters cull some at random
        other = RequestFactory().post("/", REMOTE_ADDR=f"10.{n // 250}.{n % 250}.1")
        assert allow(other, "create-table", limit=2, window=3600)
    assert client.post(reverse("create_table"), {"name": "Three"}, **EN).status_code == 429


def test_behind_a_proxy_the_limit_counts_each_client_not_the_proxy(client, settings):
    settings.TABLES_PER_HOUR, settings.TRUSTED_PROXIES = 1, 1
    proxy = {"REMOTE_ADDR": "10.0.0.1", **EN}
    new = reverse("create_table")
    # The proxy adds the address it saw; what the client wrote before it is not believed.
    first = {"HTTP_X_FORWARDED_FOR": "203.0.113.7"}
    assert client.post(new, {"name": "One"}, **first, **proxy).status_code == 302
    assert client.post(new, {"name": "Two"}, **first, **proxy).status_code == 429
    spoofed = {"HTTP_X_FORWARDED_FOR": "1.2.3.4, 203.0.113.7"}
    assert client.post(new, {"name": "Three"}, **spoofed, **proxy).status_code == 429
    other = {"HTTP_X_FORWARDED_FOR": "198.51.100.9"}
    assert client.post(new, {"name": "Four"}, **other, **proxy).status_code == 302


def test_pages_holding_the_scorer_link_are_never_stored_by_the_browser(scorer, table, client):
    table_page = scorer.get(reverse("table", args=[table.viewer_token]))
    assert "no-store" in table_page["Cache-Control"]
    join_page = client.get(reverse("join", args=[table.scorer_token]))
    assert "no-store" in join_page["Cache-Control"]
    viewer_page = Client().get(reverse("table", args=[table.viewer_token]))
    assert "no-store" not in viewer_page["Cache-Control"]  # no scorer link there
    assert "private" in client.get("/")["Cache-Control"]  # this phone's own tables


def test_a_phone_keeps_the_tables_it_joined_last_within_a_cookies_room(client):
    tables = [Table.objects.create(name=f"Table {n}") for n in range(access.JOINED_MAX + 5)]
    for table in tables:
        client.post(reverse("join", args=[table.scorer_token]))
    client.post(reverse("join", args=[tables[0].scorer_token]))  # joined again: kept
    joined = client.session[access.JOINED]
    assert len(joined) == access.JOINED_MAX
    assert str(tables[0].pk) in joined and str(tables[-1].pk) in joined
    assert str(tables[1].pk) not in joined


def test_joining_with_an_empty_form_joins_all_the_same(client):
    table = Table.objects.create(name="Bar Sport")
    response = client.post(reverse("join", args=[table.scorer_token]))
    assert response["Location"] == reverse("table", args=[table.viewer_token])
    assert "Bar Sport" in words(parsed(client.get("/", **EN)).select_one(".list"))


def test_a_full_width_name_is_the_same_player(scorer, table):
    add = reverse("add_player", args=[table.viewer_token])
    full_width = "\uff21\uff4c\uff49\uff43\uff45"  # Alice, who plays here
    page = parsed(scorer.post(add, {"name": full_width}, **EN))
    assert errors_of(page, "id_name") == ["Alice already plays at this table."]
    assert table.players.filter(name=full_width).count() == 0


def test_names_differing_only_in_case_beyond_a_to_z_are_one_player(scorer, table):
    add = reverse("add_player", args=[table.viewer_token])
    scorer.post(add, {"name": "Élodie"}, **EN)
    page = parsed(scorer.post(add, {"name": "élodie"}, **EN))
    assert errors_of(page, "id_name") == ["Élodie already plays at this table."]
    scorer.post(add, {"name": "Strauß"}, **EN)
    page = parsed(scorer.post(add, {"name": "STRAUSS"}, **EN))
    assert errors_of(page, "id_name") == ["Strauß already plays at this table."]
    assert sorted(table.players.values_list("name", flat=True)) == sorted(
        ["Alice", "Beppe", "Carla", "Dino", "Élodie", "Strauß"]
    )


def test_a_full_table_says_so_where_a_player_is_added(scorer, table, monkeypatch):
    monkeypatch.setattr(services, "TABLE_PLAYERS_MAX", table.players.count())
    response = scorer.post(reverse("add_player", args=[table.viewer_token]), {"name": "Zeno"}, **EN)
    assert errors_of(parsed(response), "id_name") == [
        "A table holds at most 4 players: merge the ones entered twice, or start a new table."
    ]
    assert not table.players.filter(name="Zeno").exists()


def test_a_name_typed_without_its_accents_is_the_same_player(scorer, table):
    """On a phone without an Italian keyboard "Niccolo Ferrau" is Niccolò Ferraù: typed so in
    a new match he takes his seat, not a second player who splits his stats."""
    scorer.post(reverse("add_player", args=[table.viewer_token]), {"name": "Niccolò Ferraù"})
    html = scorer.post(
        reverse("add_player", args=[table.viewer_token]), {"name": "niccolo ferrau"}, **EN
    ).content.decode()
    assert "Niccolò Ferraù already plays at this table." in html
    data = {"players_per_side": "1", "player_0": "Niccolo Ferrau", "player_1": "Alice"}
    data.update(line="21", tie_rule="higher_total", first_dealer="0")
    assert scorer.post(reverse("new_match", args=[table.viewer_token]), data).status_code == 302
    seated = table.matches.order_by("-pk").first().sides.get(position=0).first_player
    assert seated.name == "Niccolò Ferraù"
    assert table.players.filter(name__startswith="Nicc").count() == 1
    # Letters with a stroke or a slash, which no decomposition takes apart, fold as well.
    scorer.post(reverse("add_player", args=[table.viewer_token]), {"name": "Łukasz Đurić"})
    html = scorer.post(
        reverse("add_player", args=[table.viewer_token]), {"name": "lukasz duric"}, **EN
    ).content.decode()
    assert "Łukasz Đurić already plays at this table." in html
    # Other scripts' vowel signs are letters of another name, not accents.
    scorer.post(reverse("add_player", args=[table.viewer_token]), {"name": "कि"})
    scorer.post(reverse("add_player", args=[table.viewer_token]), {"name": "क"})
    assert table.players.filter(name__in=["कि", "क"]).count() == 2


def test_an_emoji_joined_by_zero_width_joiners_is_a_name(scorer, table):
    add = reverse("add_player", args=[table.viewer_token])
    scorer.post(add, {"name": "👩\u200d🍳 Chef"}, **EN)
    assert table.players.filter(name="👩\u200d🍳 Chef").exists()
    assert errors_of(parsed(scorer.post(add, {"name": "\u200d"}, **EN)), "id_name") == [
        "Type the player's name."
    ]
    assert "Use letters, numbers" in scorer.post(add, {"name": "A\u202eB"}, **EN).content.decode()
    # Nor a character Unicode has not assigned: "Alice" + U+2065 would look like Alice.
    for unknown in ("Alice\u2065", "Bo\U000e01f0", "Cy\uffff"):
        assert "Use letters, numbers" in scorer.post(add, {"name": unknown}, **EN).text
    # An emoji newer than this Python's Unicode (U+1FAE9, of 2024) is a name all the same.
    scorer.post(add, {"name": "Dino \U0001fae9"}, **EN)
    assert table.players.filter(name="Dino \U0001fae9").exists()
    # Scotland's flag is a black flag and tag letters: a name too. A tag alone hides.
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    scorer.post(add, {"name": f"Ewan {scotland}"}, **EN)
    assert table.players.filter(name=f"Ewan {scotland}").exists()
    assert "Use letters, numbers" in scorer.post(add, {"name": "Ewa\U000e0067n"}, **EN).text
    # Bytes that were not UTF-8 arrive as U+FFFD: refused, not stored as "Bepp�".
    body = b"name=Bepp%E9"  # Latin-1, from an old browser or a script
    response = scorer.generic(
        "POST", add, body, content_type="application/x-www-form-urlencoded", **EN
    )
    assert "Use letters, numbers" in response.content.decode()
    assert not table.players.filter(name__contains="\ufffd").exists()
    # The joiner is invisible: with it, "Alice" is still Alice.
    html = scorer.post(add, {"name": "Al\u200dice"}, **EN).content.decode()
    assert "already plays at this table." in html
    # So are emoji variation selectors, and letters that draw as a blank are no name.
    scorer.post(add, {"name": "😀"}, **EN)
    assert "already plays" in scorer.post(add, {"name": "😀\ufe0f"}, **EN).content.decode()
    # Nor are Mongolian variation selectors or Khmer inherent vowels seen: "Alice" again.
    for same in ("Alice\u180b", "Ali\u17b4ce", "\u17b5Alice"):
        assert "already plays" in scorer.post(add, {"name": same}, **EN).content.decode()
    for unseen in ("\ufe0f", "\u3164", "\u2800 \u200d", "\u180b", "\u17b5", "\u0301", "\u20dd"):
        page = parsed(scorer.post(add, {"name": unseen}, **EN))
        assert errors_of(page, "id_name") == ["Type the player's name."], repr(unseen)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("players_per_side", "3", "Pick four players, two a side, or two players."),
        ("players_per_side", None, "Pick four players, two a side, or two players."),
        ("tie_rule", "x", "Pick what happens when both sides pass the line together."),
        ("first_dealer", "9", "Pick who deals first."),
    ],
)
def test_a_new_match_with_a_choice_tampered_with_says_so(scorer, table, field, value, message):
    data = {
        "players_per_side": "2",
        **{f"player_{seat}": name for seat, name in enumerate(["A", "B", "C", "D"])},
        "line": "21",
        "tie_rule": "higher_total",
        "first_dealer": "0",
    }
    data[field] = value
    data = {key: value for key, value in data.items() if value is not None}
    before = Match.objects.count()
    page = parsed(scorer.post(reverse("new_match", args=[table.viewer_token]), data, **EN))
    assert errors_of(page, f"id_{field}") == [message]
    assert Match.objects.count() == before


def test_the_match_list_says_whether_a_claim_was_right(scorer, table):
    from matches import services

    for claimer in (0, 1):
        match = services.start_match(
            table=table,
            players=[["Alice"], ["Beppe"]],
            settings=rules.MatchSettings(claims_allowed=True),
        )
        services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((10, 1), (4, 0)))
        claim = rules.DealEntry((7, 0), (0, 0), kind="claim", side=claimer)  # Alice has 21
        services.record_deal(match_id=match.pk, number=2, entry=claim)
        services.end_match(match=match)
    page = parsed(scorer.get(reverse("table", args=[table.viewer_token]), **EN))
    listed = [words(row) for row in page.select("#matches .list a.row")]
    assert any("· won by Alice (claimed rightly) ·" in row for row in listed)
    assert any("· won by Alice (the other side claimed wrongly) ·" in row for row in listed)


def test_a_new_scorer_link_is_asked_for_twice_and_said_after(scorer, table):
    page = parsed(scorer.get(reverse("table", args=[table.viewer_token]), **EN))
    rotate = page.select("#share details.rotate")[0]
    assert words(rotate.summary) == "New scorer link…"
    assert "stops scoring until it opens the new link" in words(rotate)
    old = table.scorer_token
    response = scorer.post(reverse("rotate_link", args=[table.viewer_token, "scorer"]), **EN)
    assert response["Location"].endswith("?rotated=scorer#rotated")  # the notice takes focus
    table.refresh_from_db()
    assert table.scorer_token != old
    page = parsed(scorer.get(response["Location"].split("#")[0], **EN))
    assert words(one(page, "#rotated")) == (
        "New scorer link made: send it to the phones that score here."
    )
    table.refresh_from_db()
    assert one(page, "#scorer-url")["value"].endswith(f"/join/{table.scorer_token}/")


def test_the_phone_that_makes_a_table_may_name_itself_for_the_history(client):
    client.post(reverse("create_table"), {"name": "Bar Sport", "label": "Marco"})
    table = Table.objects.get()
    data = {"players_per_side": "1", "player_0": "Alice", "player_1": "Beppe"}
    data.update(line="21", tie_rule="higher_total", first_dealer="0")
    client.post(reverse("new_match", args=[table.viewer_token]), data)
    assert table.matches.get().changes.get().by == "Marco"
    # The next table's form offers the same name.
    assert value(parsed(client.get("/", **EN)), "label") == "Marco"


def test_joining_opens_the_match_being_played_when_there_is_just_one(client, match):
    table = match.table
    join = reverse("join", args=[table.scorer_token])
    sheet = reverse("match", args=[table.viewer_token, match.pk])
    assert Client().post(join)["Location"] == sheet
    services.start_match(table=table, players=[["Alice"], ["Beppe"]])  # two under way
    assert Client().post(join)["Location"] == reverse("table", args=[table.viewer_token])


@pytest.fixture
def own_table(client):
    """A table of its own (no players yet), joined by `client` as a scorer."""
    table = services.create_table(name="Bar Sport")
    client.post(reverse("join", args=[table.scorer_token]))
    return table


def entered_twice(table) -> tuple[Player, Player]:
    """Giani and Gianni, the same person entered twice: each played one match."""
    services.start_match(table=table, players=[["Giani", "Alice"], ["Beppe", "Carla"]])
    services.start_match(table=table, players=[["Gianni", "Beppe"], ["Alice", "Carla"]])
    giani, gianni = (Player.objects.get(table=table, name=n) for n in ("Giani", "Gianni"))
    return giani, gianni


def test_renaming_to_another_players_name_offers_to_merge_the_two(client, own_table):
    table = own_table
    giani, gianni = entered_twice(table)
    rename = reverse("rename_player", args=[table.viewer_token, giani.pk])
    page = parsed(client.post(rename, {"name": "gianni"}, **EN))
    # The offer is the answer, and takes focus: the name typed is not marked wrong.
    offer = one(page, "#merge h2")
    assert words(offer) == "Gianni already plays at this table. Is Giani the same person?"
    assert offer.has_attr("data-focus-on-load") and not page.select("[aria-invalid]")
    merge = reverse("merge_player", args=[table.viewer_token, giani.pk])
    assert one(page, "#merge form")["action"] == merge
    assert value(one(page, "#merge"), "into") == str(gianni.pk)
    answer = client.post(merge, {"into": gianni.pk}, **EN)
    assert answer.status_code == 302
    assert answer["Location"].endswith(f"?merged={gianni.pk}#merged")
    assert list(table.players.order_by("name").values_list("name", flat=True)) == [
        "Alice",
        "Beppe",
        "Carla",
        "Gianni",
    ]
    page = parsed(client.get(answer["Location"], **EN))
    assert words(one(page, "#merged")) == "Merged: Gianni now has the matches and stats of both."
    first = Match.objects.filter(table=table).order_by("pk").first()
    url = reverse("match_history", args=[table.viewer_token, first.pk])
    history = parsed(client.get(url, **EN))
    merged = history.select(".changes li")[0]
    assert words(merged.strong) == "Players merged"
    assert [words(d) for d in merged.select("div")] == ["before: Giani", "after: Gianni"]


@pytest.mark.parametrize("into", ["", "abc", "999999", "self"])
def test_a_merge_into_no_other_player_of_the_table_is_refused_in_words(client, own_table, into):
    table = own_table
    giani = services.add_player(table=table, name="Giani")
    into = str(giani.pk) if into == "self" else into
    merge = reverse("merge_player", args=[table.viewer_token, giani.pk])
    page = parsed(client.post(merge, {"into": into}, **EN))
    assert words(one(page, ".notice.error")) == "Choose another player of this table."
    assert table.players.count() == 1


def test_two_players_of_one_match_are_not_merged_and_told_why(client, own_table):
    table = own_table
    services.start_match(table=table, players=[["Giani", "Gianni"], ["Beppe", "Carla"]])
    giani, gianni = (Player.objects.get(table=table, name=n) for n in ("Giani", "Gianni"))
    merge = reverse("merge_player", args=[table.viewer_token, giani.pk])
    page = parsed(client.post(merge, {"into": gianni.pk}, **EN))
    assert words(one(page, "#merge-error")) == (
        "Giani and Gianni played in the same match: they are two people."
    )
    assert table.players.count() == 4


def test_a_second_tap_on_merge_is_told_the_player_was_merged_not_a_404(client, own_table):
    table = own_table
    giani, gianni = entered_twice(table)
    merge = reverse("merge_player", args=[table.viewer_token, giani.pk])
    assert client.post(merge, {"into": gianni.pk}, **EN).status_code == 302
    for late in (
        client.post(merge, {"into": gianni.pk}, **EN),  # the second tap
        client.post(reverse("rename_player", args=[table.viewer_token, giani.pk]), {"name": "G"}),
        client.get(reverse("rename_player", args=[table.viewer_token, giani.pk])),
    ):
        assert late.status_code == 302
        page = parsed(client.get(late["Location"], **EN))
        assert words(one(page, "#player-gone")).startswith(
            "That player is no longer on the list: merged into another already."
        )


def test_no_merge_is_offered_for_two_people_of_one_match(client, own_table):
    table = own_table
    services.start_match(table=table, players=[["Eva", "Dina"], ["Beppe", "Carla"]])
    eva = Player.objects.get(table=table, name="Eva")
    rename = reverse("rename_player", args=[table.viewer_token, eva.pk])
    page = parsed(client.post(rename, {"name": "dina"}, **EN))
    assert words(one(page, "#merge-error")) == (
        "Eva and Dina played in the same match: they are two people."
    )
    assert errors_of(page, "id_name") == ["Dina already plays at this table."]
    assert not page.select("#merge form")  # no button that can only fail


def test_a_rename_that_would_give_both_sides_one_name_is_refused(client, own_table):
    table = own_table
    services.start_match(table=table, players=[["Hugo"], ["Ivo"]], side_names=["", "Zorro"])
    hugo = Player.objects.get(table=table, name="Hugo")
    rename = reverse("rename_player", args=[table.viewer_token, hugo.pk])
    page = parsed(client.post(rename, {"name": "Zorro"}, **EN))
    assert errors_of(page, "id_name") == [
        "Both sides of a match would then be called “Zorro”, and its sheet could not tell "
        "them apart."
    ]
    assert Player.objects.get(pk=hugo.pk).name == "Hugo"
    sides = Match.objects.get(table=table).sides.order_by("position")
    assert list(sides.values_list("name", flat=True)) == ["Hugo", "Zorro"]  # nothing written


def test_adding_and_renaming_a_player_is_said_over_the_list(scorer, table):
    response = scorer.post(reverse("add_player", args=[table.viewer_token]), {"name": "Zoë"})
    zoe = table.players.get(name="Zoë")
    assert response["Location"].endswith(f"?added={zoe.pk}#added")
    added = one(parsed(scorer.get(response["Location"], **EN)), "#added")
    assert words(added) == "Added: Zoë." and added["data-once"] == "added"
    rename = reverse("rename_player", args=[table.viewer_token, zoe.pk])
    response = scorer.post(rename, {"name": "Zoë Bianchi"})
    assert response["Location"].endswith(f"?renamed={zoe.pk}#renamed")
    page = parsed(scorer.get(response["Location"], **EN))
    assert words(one(page, "#renamed")) == "Renamed: Zoë Bianchi, on every sheet and in the stats."
    # Another table's player, or a number of nothing: no notice at all.
    assert not parsed(scorer.get(f"/t/{table.viewer_token}/?added=999999")).select("#added")


def _new_match(scorer, table, **fields):
    data = {"players_per_side": "2", "line": "21", "tie_rule": "higher_total", "first_dealer": "0"}
    data.update(player_0="Alice", player_1="Beppe", player_2="Carla", player_3="Dino")
    url = reverse("new_match", args=[table.viewer_token])
    return scorer.post(url, {**data, **fields}, HTTP_ACCEPT_LANGUAGE="en")


def test_in_due_the_hidden_partner_fields_are_not_read(scorer, table):
    """A partner typed (too long) before switching to two players: its field is hidden then,
    so its error could not be seen, and nothing it holds is used."""
    before = list(table.matches.values_list("pk", flat=True))
    response = _new_match(scorer, table, players_per_side="1", player_2="p" * 41, player_3="\x07")
    assert response.status_code == 302
    match = table.matches.exclude(pk__in=before).get()
    assert match.players_per_side == 1
    assert [side.second_player for side in match.sides.all()] == [None, None]
    assert not table.players.filter(name__startswith="pp").exists()


@pytest.mark.parametrize(
    "names", [{"side_name_0": "Noi", "side_name_1": "noi "}, {"side_name_0": "Beppe & Dino"}]
)
def test_two_sides_of_one_name_are_refused_in_words(scorer, table, names):
    page = parsed(_new_match(scorer, table, **names))
    assert words(one(page, ".errorlist.nonfield")).endswith("give one of them another name.")
    assert table.matches.count() == 1  # the fixture's match alone


def test_the_table_page_drawn_once_for_everyone_shows_every_change_since(scorer, table, match):
    url = reverse("table", args=[table.viewer_token])

    def seen():
        page = parsed(scorer.get(url, **EN))
        matches = [words(row) for row in page.select("#matches .list a.row")]
        players = [words(row).split(" Rename")[0] for row in page.select("#players li")]
        return matches, players

    before, players = seen()
    assert before[0].startswith("Alice & Carla – Beppe & Dino 0–0 · 0 deals · in progress")
    services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((8, 3), (3, 0)))
    assert seen()[0][0].startswith("Alice & Carla – Beppe & Dino 11–3 · 1 deal · in progress")
    services.add_player(table=table, name="Zoë")
    assert "Zoë" in seen()[1] and "Zoë" not in players
    services.rotate_link(table=table, which="viewer")
    assert scorer.get(url).status_code == 404  # the old view link is gone, kept page or not
    # Two loads of the same page differ in nothing but what is each answer's own: the CSRF
    # tokens, a new link's key and the scripts' nonce.
    again = parsed(scorer.get(reverse("table", args=[Table.objects.get().viewer_token]), **EN))
    twice = parsed(scorer.get(reverse("table", args=[Table.objects.get().viewer_token]), **EN))
    for page in (again, twice):
        for own in page.select("[name=csrfmiddlewaretoken], [name=key], script, body"):
            own.attrs = {}
    assert str(again) == str(twice)


def _second_phone_of(client: Client) -> Client:
    """The same phone, as it was before its first request's answer arrived."""
    twin = Client()
    twin.cookies = SimpleCookie(client.cookies.output(header="", sep=";"))
    return twin


@pytest.mark.parametrize("which", ["scorer", "viewer"])
def test_a_double_tap_on_a_new_link_makes_one_and_the_phone_keeps_it(scorer, table, which):
    page = parsed(scorer.get(reverse("table", args=[table.viewer_token]), **EN))
    key = value(one(page, f"form#rotate-{which}"), "key")
    before_answer = _second_phone_of(scorer)
    url = reverse("rotate_link", args=[table.viewer_token, which])
    assert scorer.post(url, {"key": key}).status_code == 302  # its answer never seen
    table.refresh_from_db()
    made = (table.scorer_token, table.viewer_token)
    again = before_answer.post(url, {"key": key}, **EN)
    assert again.status_code == 302
    assert again["Location"] == reverse("table", args=[made[1]]) + f"?rotated={which}#rotated"
    table.refresh_from_db()
    assert (table.scorer_token, table.viewer_token) == made  # no second new link
    page = parsed(before_answer.get(again["Location"].split("#")[0], **EN))
    assert one(page, "#scorer-url")["value"].endswith(f"/join/{made[0]}/")  # it scores


@pytest.mark.parametrize("which", ["scorer", "viewer"])
def test_a_second_tap_that_read_the_table_as_the_first_made_its_link_ends_on_the_new_link(
    scorer, table, which
):
    """The two taps of a double tap at once: the second reads the table, then the first's new
    link is saved, before the second reads it again. Both taps are answered alike."""
    page = parsed(scorer.get(reverse("table", args=[table.viewer_token]), **EN))
    key = value(one(page, f"form#rotate-{which}"), "key")
    second_tap = _second_phone_of(scorer)
    first_tap_answered = []

    def first_tap_lands(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if not first_tap_answered and sql.startswith("SELECT") and '"matches_table"' in sql:
            first_tap_answered.append(None)  # the first tap's own reads come here too
            made = services.rotate_link(table=Table.objects.get(), which=which, key=key)
            first_tap_answered[0] = reverse("table", args=[made.viewer_token])
        return result

    url = reverse("rotate_link", args=[table.viewer_token, which])
    with connection.execute_wrapper(first_tap_lands):
        again = second_tap.post(url, {"key": key}, **EN)
    assert again.status_code == 302
    assert again["Location"] == first_tap_answered[0] + f"?rotated={which}#rotated"
    table.refresh_from_db()
    assert reverse("table", args=[table.viewer_token]) == first_tap_answered[0]  # one new link
    page = parsed(second_tap.get(again["Location"].split("#")[0], **EN))
    assert one(page, "#scorer-url")["value"].endswith(f"/join/{table.scorer_token}/")  # it scores


def test_an_old_scorer_link_cannot_learn_the_new_one_by_another_key(scorer, table):
    outsider = _second_phone_of(scorer)
    url = reverse("rotate_link", args=[table.viewer_token, "scorer"])
    assert scorer.post(url, {"key": "mine"}).status_code == 302
    assert outsider.post(url, {"key": "guess"}).status_code == 403
    assert outsider.post(url, {"key": ""}).status_code == 403


def test_a_match_started_on_another_phone_reaches_the_table_page_by_its_poll(
    db, django_assert_num_queries
):
    """The table's list of matches is polled as the sheet is: unchanged, a 304 for one query;
    a new match or a rematch, the list drawn again with the version it shows."""
    table = services.create_table(name="Bar Sport")
    viewer = Client()
    page = parsed(viewer.get(reverse("table", args=[table.viewer_token]), **EN))
    listed = one(page, "#matches")
    assert words(one(listed, ".list")) == "No matches yet."
    poll, etag = listed["hx-get"], listed["data-poll-etag"]
    assert poll.startswith(reverse("table", args=[table.viewer_token]) + "?poll=1")
    with django_assert_num_queries(2):  # the table's version, as a sheet's poll reads its state
        unchanged = viewer.get(poll, HTTP_IF_NONE_MATCH=etag, **HX)
    assert (unchanged.status_code, unchanged.content, unchanged["ETag"]) == (304, b"", etag)

    match = services.start_match(table=table, players=[["Alice", "Carla"], ["Beppe", "Dino"]])
    answer = viewer.get(poll, HTTP_IF_NONE_MATCH=etag, **HX)
    drawn = one(parsed(answer), "#matches")
    assert words(drawn.select(".list a.row")[0]).startswith(
        "Alice & Carla – Beppe & Dino 0–0 · 0 deals · in progress"
    )
    assert drawn["data-poll-etag"] == answer["ETag"] != etag
    assert drawn["hx-get"] == poll  # it polls on, as it was drawn with the page
    assert not parsed(answer).select("form[method=post], #share")  # the list alone
    assert viewer.get(poll, HTTP_IF_NONE_MATCH=answer["ETag"], **HX).status_code == 304

    sweep = rules.DealEntry((11, 0), (0, 0), kind=rules.DealKind.CAPPOTTO, side=0)
    services.record_deal(match_id=match.pk, number=1, entry=sweep)
    services.end_match(match=match)
    services.rematch(match=match)
    again = parsed(viewer.get(poll, HTTP_IF_NONE_MATCH=answer["ETag"], **HX))
    rows = [words(row) for row in again.select("#matches .list a.row")]
    assert len(rows) == 2 and rows[0].startswith("Alice & Carla – Beppe & Dino 0–0 · 0 deals")


def test_the_table_pages_poll_keeps_the_player_and_page_asked_for(scorer, table, match):
    alice = Player.objects.get(name="Alice")
    url = reverse("table", args=[table.viewer_token]) + f"?player={alice.pk}"
    listed = one(parsed(scorer.get(url, **EN)), "#matches")
    assert listed["hx-get"].endswith(f"?poll=1&player={alice.pk}&page=1")
    poll = scorer.get(listed["hx-get"], HTTP_IF_NONE_MATCH=listed["data-poll-etag"], **HX)
    assert poll.status_code == 304
    # In Italian the same list is another answer.
    italian = {**HX, "HTTP_ACCEPT_LANGUAGE": "it"}
    answer = scorer.get(listed["hx-get"], HTTP_IF_NONE_MATCH=listed["data-poll-etag"], **italian)
    assert answer.status_code == 200 and "in corso" in words(parsed(answer))


# --- Tonight -----------------------------------------------------------------------------


def _tonight_page(client, table):
    return parsed(client.get(reverse("table", args=[table.viewer_token]), **EN))


def test_the_table_page_shows_tonight_s_series_and_la_bella(db):
    from tests.evening import AC, BD, play

    table = services.create_table(name="Osteria")
    first = play(table, [AC, BD], 0, evening=rules.Evening.FIRST_TO_2, stakes=True)
    play(table, [BD, AC], 0, how="cappotto")  # Beppe & Dino sat first: 1 – 1, 2 games
    tonight = one(_tonight_page(Client(), table), "#tonight")
    assert words(one(tonight, "h2")).startswith("Tonight since ")
    assert words(one(tonight, ".tonight-how")) == (
        "Best of three: first to 2 wins · the old stakes"
    )
    assert words(one(tonight, ".series li")) == "Alice & Carla 1 – 1 Beppe & Dino la bella"
    rows = [words(row) for row in tonight.select(".tonight-table tbody tr")]
    assert rows == [
        "Alice & Carla 1 1",
        "Beppe & Dino 1 2",
        "Alice 1 1",
        "Carla 1 1",
        "Beppe 1 2",
        "Dino 1 2",
    ]
    text = one(tonight, "#tonight-text").get_text().splitlines()
    assert text[1] == "Alice & Carla 1 – 1 Beppe & Dino · la bella"
    assert text[2] == "Sides: Alice & Carla 1 (1 game), Beppe & Dino 1 (2 games)"
    assert one(tonight, "#share-tonight")["data-picture"] == reverse(
        "tonight_picture", args=[table.viewer_token]
    )
    play(table, [AC, BD], 1)  # la bella, to Beppe & Dino
    tonight = one(_tonight_page(Client(), table), "#tonight")
    assert words(one(tonight, ".series li")) == (
        "Alice & Carla 1 – 2 Beppe & Dino series won by Beppe & Dino"
    )
    assert first.table_id == table.pk


def test_the_table_page_reads_tonight_in_as_many_queries_for_one_match_as_for_many(
    db, django_assert_num_queries
):
    from django.core.cache import cache

    from tests.evening import AB, AC, BD, CD, play

    table = services.create_table(name="Osteria")
    play(table, [AC, BD], 0, evening=rules.Evening.FIRST_TO_2, stakes=True)
    viewer, url = Client(), reverse("table", args=[table.viewer_token])
    viewer.get(url, **EN)  # the session made
    cache.clear()
    # The table and its matches in play (its version), tonight, its players, and its list of
    # matches (a count, a page, their sides).
    with django_assert_num_queries(7) as one_match:
        viewer.get(url, **EN)
    for winner, sides, how in ((1, [AC, BD], "cappotto"), (0, [AB, CD], "line")) * 3:
        play(table, sides, winner, how=how)
    cache.clear()
    with django_assert_num_queries(len(one_match)):
        many = parsed(viewer.get(url, **EN))
    assert len(many.select("#tonight .series li")) == 4  # two series won, two under way


def test_the_evening_s_first_match_says_how_the_evening_is_counted(scorer, table):
    url = reverse("new_match", args=[table.viewer_token])
    page = parsed(scorer.get(url, **EN))
    assert words(one(page, "#evening-fields > legend")) == "Tonight"
    data = {"players_per_side": "2", "player_0": "Alice", "player_1": "Beppe", "line": "21"}
    data.update(player_2="Carla", player_3="Dino", tie_rule="higher_total", first_dealer="0")
    scorer.post(url, {**data, "evening": "first_to_3", "stakes": "on"}, **EN)
    table.refresh_from_db()
    assert (table.evening, table.stakes) == ("first_to_3", True)
    assert Match.objects.latest("pk").stakes
    # The next match of the evening is counted so already: said, and changed on the table page.
    again = parsed(scorer.get(url, **EN))
    assert not again.select("#evening-fields")
    assert words(one(again, "#evening-counted")) == (
        "Tonight: Best of five: first to 3 wins · the old stakes · change"
    )


def test_a_scorer_changes_how_tonight_is_counted_and_begins_a_new_evening(scorer, table):
    from tests.evening import AC, BD, play

    play(table, [AC, BD], 0)
    page = _tonight_page(scorer, table)
    form = one(page, "#evening-form")
    assert form["action"] == reverse("change_evening", args=[table.viewer_token])
    answer = scorer.post(form["action"], {"evening": "first_to_2", "stakes": "on"}, **EN)
    assert answer["Location"].endswith("?evening=saved#evening")
    page = parsed(scorer.get(answer["Location"], **EN))
    assert words(one(page, "#evening-saved")).startswith("Saved")
    assert words(one(page, ".tonight-how")) == "Best of three: first to 2 wins · the old stakes"
    refused = scorer.post(form["action"], {"evening": "best_of_99"}, **EN)
    assert refused.status_code == 200
    assert errors_of(parsed(refused), "id_evening") == ["Pick how tonight is counted."]
    scorer.post(reverse("new_evening", args=[table.viewer_token]), **EN)
    assert words(one(_tonight_page(scorer, table), "#no-match-tonight")) == (
        "No match tonight yet."
    )


def test_a_viewer_may_not_change_the_evening(client, table):
    for name in ("change_evening", "new_evening"):
        response = client.post(reverse(name, args=[table.viewer_token]), {"evening": "tonight"})
        assert response.status_code == 403
    assert not _tonight_page(client, table).select("#evening-form, #new-evening-form")
