import pytest
from django.utils import timezone

from matches import rules, selectors, services
from matches.models import Action, Change, Match, Player, Side, Table
from tests.evening import AB, AC, BD, CD, play
from tests.factories import PlayerFactory, TableFactory

pytestmark = pytest.mark.django_db


def test_a_new_table_gets_two_different_secret_links_of_at_least_128_bits():
    table = services.create_table(name="  Bar Sport ")
    assert table.name == "Bar Sport"
    assert table.scorer_token != table.viewer_token
    assert len(table.scorer_token) * 6 >= 128


def test_rotating_the_scorer_link_stops_the_old_one_at_once():
    table = TableFactory()
    old = table.scorer_token
    services.rotate_link(table=table, which="scorer")
    assert not Table.objects.filter(scorer_token=old).exists()
    assert Table.objects.get(scorer_token=table.scorer_token) == table


def test_a_new_link_asked_twice_with_one_key_is_made_once_and_by_two_phones_once():
    table = TableFactory()
    # Three requests that read the same links: a double tap, and another phone's.
    first, again, other = (Table.objects.get(pk=table.pk) for _ in range(3))
    made = services.rotate_link(table=first, which="scorer", key="tap").scorer_token
    assert services.rotate_link(table=again, which="scorer", key="tap").scorer_token == made
    with pytest.raises(services.LinkChanged):
        services.rotate_link(table=other, which="scorer", key="another phone's")
    assert Table.objects.get().scorer_token == made


def test_player_names_are_unique_per_table_whatever_the_case():
    player = PlayerFactory(name="Alice")
    with pytest.raises(services.NameTaken, match="already plays"):
        services.add_player(table=player.table, name="alice ")
    other = services.add_player(table=player.table, name="Carla")
    with pytest.raises(services.NameTaken):
        services.rename_player(player=other, name="ALICE")
    assert services.rename_player(player=other, name="Carlotta").name == "Carlotta"


def test_a_rename_mends_the_sides_named_after_the_player_and_no_other():
    table = TableFactory()
    pair = services.start_match(table=table, players=[["Alice", "Dino"], ["Beppe", "Carla"]])
    named = services.start_match(
        table=table, players=[["Dino", "Alice"], ["Beppe", "Carla"]], side_names=["I Lupi", ""]
    )
    due = services.start_match(table=table, players=[["Dino"], ["Beppe"]])
    services.rename_player(player=Player.objects.get(table=table, name="Dino"), name="Dinozzo")
    names = lambda match: [side.name for side in match.sides.order_by("position")]  # noqa: E731
    assert names(pair) == ["Alice & Dinozzo", "Beppe & Carla"]
    assert names(named) == ["I Lupi", "Beppe & Carla"]  # a name the table gave stays
    assert names(due) == ["Dinozzo", "Beppe"]
    # Each of those matches' history says so, once.
    logged = Change.objects.filter(action="player_renamed").order_by("match_id")
    assert [(c.match_id, c.old, c.new) for c in logged] == [
        (match.pk, {"player": "Dino"}, {"player": "Dinozzo"}) for match in (pair, named, due)
    ]


def test_a_match_seats_new_and_known_players_and_names_sides():
    table = TableFactory()
    PlayerFactory(table=table, name="Alice")
    match = services.start_match(
        table=table, players=[["alice", "Carla"], ["Beppe", "Dino"]], side_names=["", "I Lupi"]
    )
    sides = list(match.sides.all())
    # Named after the players as the table knows them, not as typed: so a rename follows.
    assert [s.name for s in sides] == ["Alice & Carla", "I Lupi"]
    assert Player.objects.filter(table=table).count() == 4
    assert sides[0].first_player.name == "Alice"
    services.rename_player(player=sides[0].first_player, name="Alicia")
    assert match.sides.get(position=0).name == "Alicia & Carla"
    # A side name typed that is only its players' names spelled otherwise is theirs too.
    again = services.start_match(
        table=table,
        players=[["Alicia", "Carla"], ["Beppe", "Dino"]],
        side_names=["ALICIA & carla", ""],
    )
    assert again.sides.get(position=0).name == "Alicia & Carla"


def test_tressette_in_due_has_one_player_a_side():
    match = services.start_match(table=TableFactory(), players=[["Alice"], ["Beppe"]])
    assert match.seat_count == 2
    assert [s.name for s in match.sides.all()] == ["Alice", "Beppe"]


def test_a_player_cannot_sit_twice():
    with pytest.raises(rules.RuleError, match="only once"):
        services.start_match(table=TableFactory(), players=[["Alice", "Carla"], ["ALICE", "Dino"]])


@pytest.mark.django_db
def test_a_name_typed_exactly_seats_that_player_where_an_old_table_holds_both_spellings():
    table = services.create_table(name="Bar Sport")
    Player.objects.bulk_create(
        [Player(table=table, name="Niccolò"), Player(table=table, name="Niccolo")]
    )
    for typed in ("Niccolo", "Niccolò"):
        match = services.start_match(table=table, players=[[typed], ["Beppe"]])
        assert match.sides.get(position=0).first_player.name == typed


def test_a_player_entered_twice_is_merged_into_the_other_with_every_match():
    table = TableFactory()
    typo = services.start_match(table=table, players=[["Giani", "Alice"], ["Beppe", "Carla"]])
    named = services.start_match(
        table=table, players=[["Beppe", "Giani"], ["Alice", "Carla"]], side_names=["I Lupi", ""]
    )
    right = services.start_match(table=table, players=[["Gianni", "Beppe"], ["Alice", "Carla"]])
    revisions = {m.pk: m.revision for m in Match.objects.filter(table=table)}
    giani, gianni = (Player.objects.get(table=table, name=n) for n in ("Giani", "Gianni"))
    assert services.merge_players(player=giani, into=gianni) == gianni
    assert not Player.objects.filter(pk=giani.pk).exists()
    sides = {
        (side.match_id, side.position): (side.name, [p.name for p in side.players])
        for side in Side.objects.filter(match__table=table)
    }
    assert sides[(typo.pk, 0)] == ("Gianni & Alice", ["Gianni", "Alice"])
    assert sides[(named.pk, 0)] == ("I Lupi", ["Beppe", "Gianni"])  # a name the table gave
    assert sides[(right.pk, 0)] == ("Gianni & Beppe", ["Gianni", "Beppe"])
    # The sheets where Giani sat have changed (they show who deals); the other has not.
    after = {m.pk: m.revision for m in Match.objects.filter(table=table)}
    assert [after[m.pk] - revisions[m.pk] for m in (typo, named, right)] == [1, 1, 0]
    logged = Change.objects.filter(action="players_merged").order_by("match_id")
    assert [(c.match_id, c.old, c.new) for c in logged] == [
        (match.pk, {"player": "Giani"}, {"player": "Gianni"}) for match in (typo, named)
    ]


def test_two_players_of_one_match_are_not_merged():
    table = TableFactory()
    services.start_match(table=table, players=[["Giani", "Gianni"], ["Beppe", "Carla"]])
    giani, gianni = (Player.objects.get(table=table, name=n) for n in ("Giani", "Gianni"))
    with pytest.raises(services.ServiceError, match="played in the same match"):
        services.merge_players(player=giani, into=gianni)
    assert Player.objects.filter(table=table).count() == 4
    other = PlayerFactory()  # another table's
    with pytest.raises(services.ServiceError, match="another player of this table"):
        services.merge_players(player=giani, into=other)


def test_a_player_merged_away_on_another_phone_is_said_so_not_written_to():
    table = TableFactory()
    services.start_match(table=table, players=[["Giani", "Alice"], ["Beppe", "Carla"]])
    services.start_match(table=table, players=[["Gianni", "Beppe"], ["Alice", "Carla"]])
    giani, gianni = (Player.objects.get(table=table, name=n) for n in ("Giani", "Gianni"))
    services.merge_players(player=giani, into=gianni)  # one phone
    for late in (  # another phone, still showing Giani
        lambda: services.merge_players(player=gianni, into=giani),
        lambda: services.rename_player(player=giani, name="Gianluca"),
    ):
        with pytest.raises(services.ServiceError, match="has just been merged into another"):
            late()
    assert sorted(table.players.values_list("name", flat=True)) == [
        "Alice",
        "Beppe",
        "Carla",
        "Gianni",
    ]


def test_the_tables_version_changes_with_every_change_its_pages_show_and_never_comes_back():
    """Its pages are kept by it. The sum it holds is of the matches in progress only: one that
    ends or stops takes its revision out, and the sum could come back to one it had (here,
    each time, after a deal in another match), so its table's revision is bumped."""
    table = TableFactory()
    for name in ("Ann", "Bea", "Cid", "Dan"):
        services.add_player(table=table, name=name)
    seen = []

    def changed():
        seen.append(selectors.table_seen(table.viewer_token).version)

    def start():
        seats = [["Ann", "Bea"], ["Cid", "Dan"]]
        match = services.start_match(table=table, players=seats, settings=rules.MatchSettings(11))
        changed()
        return match

    played, other = start(), start()
    services.record_deal(match_id=played.pk, number=1, entry=rules.DealEntry((6, 5), (0, 0)))
    changed()
    services.record_deal(match_id=other.pk, number=1, entry=rules.DealEntry((8, 3), (3, 0)))  # 11-3
    changed()
    services.end_match(match=Match.objects.get(pk=other.pk))
    changed()
    third = start()
    services.record_deal(match_id=played.pk, number=2, entry=rules.DealEntry((6, 5), (0, 0)))
    changed()
    services.stop_match(match=third)
    changed()
    services.reopen_match(match=Match.objects.get(pk=other.pk))
    changed()
    services.rename_player(player=Player.objects.get(name="Ann"), name="Anna")
    changed()
    assert len(set(seen)) == len(seen) == 10  # each change a new version, none seen twice


def test_a_second_tap_on_end_match_changes_nothing_not_even_the_tables_version():
    table = TableFactory()
    seats = [["Ann", "Bea"], ["Cid", "Dan"]]
    match = services.start_match(table=table, players=seats, settings=rules.MatchSettings(11))
    services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((8, 3), (3, 0)))  # 11-3
    services.end_match(match=Match.objects.get(pk=match.pk))
    ended = selectors.table_seen(table.viewer_token).version
    services.end_match(match=Match.objects.get(pk=match.pk))
    assert selectors.table_seen(table.viewer_token).version == ended


# --- The evening -------------------------------------------------------------------------


def test_the_first_match_begins_the_evening_and_its_rematch_belongs_to_it(db):
    table = services.create_table(name="Osteria")
    first = play(table, [AC, BD], 0, evening=rules.Evening.FIRST_TO_2, stakes=True)
    table.refresh_from_db()
    assert table.evening_started_at == first.started_at
    assert (table.evening, table.stakes, first.stakes) == ("first_to_2", True, True)
    again = services.rematch(match=first)
    table.refresh_from_db()
    assert table.evening_started_at == first.started_at  # the same evening
    assert again.stakes


def test_a_match_after_six_hours_without_play_begins_a_new_evening(db):
    table = services.create_table(name="Osteria")
    first = play(table, [AC, BD], 0)
    hours_ago = timezone.now() - rules.EVENING_BREAK
    Change.objects.filter(match=first).update(at=hours_ago)
    Table.objects.filter(pk=table.pk).update(evening_started_at=hours_ago)
    later = services.start_match(table=table, players=[AC, BD])
    table.refresh_from_db()
    assert table.evening_started_at == later.started_at > first.started_at


def test_changing_how_the_evening_counts_reaches_tonights_matches_in_play_and_is_logged(db):
    table = services.create_table(name="Osteria")
    ended = play(table, [AC, BD], 0)
    playing = services.start_match(table=table, players=[AB, CD])
    revision = Table.objects.get().revision
    services.change_evening(table=table, evening=rules.Evening.FIRST_TO_3, stakes=True, by="Dino")
    table.refresh_from_db()
    assert (table.evening, table.stakes, table.revision) == ("first_to_3", True, revision + 1)
    ended.refresh_from_db(), playing.refresh_from_db()
    assert (ended.stakes, playing.stakes) == (False, True)  # an ended match keeps its count
    logged = playing.changes.get(action=Action.SETTINGS_CHANGED)
    assert (logged.by, logged.old, logged.new) == (
        "Dino",
        {"evening": "tonight", "stakes": False},
        {"evening": "first_to_3", "stakes": True},
    )
    # Asked again, nothing changes.
    services.change_evening(table=table, evening=rules.Evening.FIRST_TO_3, stakes=True)
    assert playing.changes.filter(action=Action.SETTINGS_CHANGED).count() == 1


def test_a_new_evening_begins_now_and_a_reopened_match_changes_the_table(db):
    table = services.create_table(name="Osteria")
    first = play(table, [AC, BD], 0)
    services.new_evening(table=table)
    table.refresh_from_db()
    assert table.evening_started_at > first.started_at
    revision = table.revision
    services.reopen_match(match=first)
    assert Table.objects.get().revision == revision + 1  # tonight's tally changes with it
