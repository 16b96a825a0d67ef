import re

import pytest
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches import exports, imports, rules, services
from matches.models import Action, Change, Deal, Match, Player, Table
from matches.rules import Status
from tests.factories import MatchFactory

pytestmark = pytest.mark.django_db

WORKED = rules.DealEntry(card_points=(8, 3), declared_points=(3, 0))


def page(table: Table) -> services.Page:
    """The table's page, sent from by a phone that may change it."""
    return services.Page(table.viewer_token, lambda _: True)


def entry(a: int, b: int, da: int = 0, db: int = 0, **kw) -> rules.DealEntry:
    return rules.DealEntry(card_points=(a, b), declared_points=(da, db), **kw)


def test_it_records_the_worked_deal_with_its_points_and_logs_it():
    match = MatchFactory()
    recorded = services.record_deal(match_id=match.pk, number=1, entry=WORKED, by="Carla's phone")
    assert recorded.created
    assert recorded.deal.points == (11, 3)
    change = Change.objects.get(match=match)
    assert change.action == Action.DEAL_RECORDED
    assert change.by == "Carla's phone"
    assert change.new["points"] == [11, 3]


def test_the_same_idempotency_key_returns_the_deal_already_made():
    match = MatchFactory()
    first = services.record_deal(match_id=match.pk, number=1, entry=WORKED, idempotency_key="tap-1")
    again = services.record_deal(match_id=match.pk, number=1, entry=WORKED, idempotency_key="tap-1")
    assert not again.created
    assert again.deal.pk == first.deal.pk
    assert Deal.objects.filter(match=match).count() == 1


def test_a_deal_sent_again_as_the_next_one_is_the_deal_already_made():
    """Its answer lost, the phone's form moved on to the next deal with what was typed and
    its key: sent again, it is the deal saved, not a second one."""
    match = MatchFactory()
    first = services.record_deal(match_id=match.pk, number=1, entry=WORKED, idempotency_key="k")
    again = services.record_deal(match_id=match.pk, number=2, entry=WORKED, idempotency_key="k")
    assert not again.created
    assert again.deal.pk == first.deal.pk
    assert Deal.objects.filter(match=match).count() == 1
    other = services.record_deal(
        match_id=match.pk, number=2, entry=entry(6, 5), idempotency_key="j"
    )
    assert other.created and other.deal.number == 2


def test_a_deletion_under_a_key_is_found_by_the_number_its_deal_had():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=entry(6, 5), idempotency_key="a")
    services.record_deal(match_id=match.pk, number=2, entry=entry(4, 7), idempotency_key="b")
    services.record_deal(match_id=match.pk, number=3, entry=entry(5, 6))  # no key
    services.delete_last_deal(match=match, number=3)
    services.delete_last_deal(match=match, number=2)
    match.refresh_from_db()
    assert match.deletions == 2
    assert match.deleted_under("b") == 2
    assert match.deleted_under("a") is None  # not deleted
    assert match.deleted_under("") is None  # deal 3 had no key


def test_a_save_reads_the_match_once_locked_then_writes_the_deal_its_log_entry_and_revision():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=entry(6, 5))
    with CaptureQueriesContext(connection) as done:
        services.record_deal(match_id=match.pk, number=2, entry=entry(5, 6),
                             idempotency_key="k", page=page(match.table))  # fmt: skip
    statements = [query["sql"] for query in done.captured_queries
                  if not query["sql"].startswith(("SAVEPOINT", "RELEASE"))]  # fmt: skip
    reads = [sql for sql in statements if sql.startswith("SELECT")]
    written = [re.match(r'(UPDATE|INSERT INTO) "?(\w+)', sql).groups()
               for sql in statements[len(reads):]]  # fmt: skip
    assert statements[: len(reads)] == reads  # every read before the first write
    assert len(reads) == 1  # the match, with the table its page is at
    joined = rf'FROM "?{Match._meta.db_table}"? INNER JOIN "?{Table._meta.db_table}'
    assert re.search(joined, reads[0])
    assert "viewer_token" in reads[0].split("WHERE", 1)[1]
    if connection.vendor == "postgresql":
        assert reads[0].endswith(f'FOR NO KEY UPDATE OF "{Match._meta.db_table}"')
    assert written == [("INSERT INTO", Deal._meta.db_table), ("INSERT INTO", Change._meta.db_table),
                       ("UPDATE", Match._meta.db_table)]  # fmt: skip


def test_a_save_at_another_tables_page_writes_nothing():
    match = MatchFactory()
    with pytest.raises(Match.DoesNotExist):
        services.record_deal(match_id=match.pk, number=1, entry=entry(6, 5),
                             page=page(MatchFactory().table))  # fmt: skip
    assert not Deal.objects.filter(match=match).exists()
    assert not Change.objects.filter(match=match, action=Action.DEAL_RECORDED).exists()


def test_a_save_from_a_phone_that_may_not_change_the_table_writes_nothing():
    match = MatchFactory()
    asked = []

    def may_not(table: Table) -> bool:
        asked.append(table.pk)
        return False

    with pytest.raises(PermissionDenied):
        services.record_deal(match_id=match.pk, number=1, entry=entry(6, 5),
                             page=services.Page(match.table.viewer_token, may_not))  # fmt: skip
    assert asked == [match.table.pk]
    assert not Deal.objects.filter(match=match).exists()
    assert not Change.objects.filter(match=match).exists()
    match.refresh_from_db()
    assert match.revision == 1


def test_a_deal_refused_is_said_in_the_sides_names():
    match = MatchFactory()
    with pytest.raises(rules.DealInvalid) as refused:
        services.record_deal(match_id=match.pk, number=1, entry=entry(6, 4), page=page(match.table))
    names = list(match.sides.values_list("name", flat=True))
    assert any(name in str(refused.value) for name in names)


def test_a_change_to_a_match_read_without_its_lock_is_not_written_as_if_locked():
    match = MatchFactory()
    stale = Match.objects.get(pk=match.pk)
    services.record_deal(match_id=match.pk, number=1, entry=entry(6, 5))
    with pytest.raises(RuntimeError):
        services._changed(stale, status=Status.ABANDONED)
    assert Match.objects.get(pk=match.pk).status == Status.IN_PROGRESS


def test_a_save_sent_again_after_its_deal_was_deleted_is_not_saved_again_until_restored():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=WORKED, idempotency_key="tap-1")
    services.delete_last_deal(match=match, number=1)
    with pytest.raises(services.DeletedSince) as deleted:
        services.record_deal(match_id=match.pk, number=1, entry=WORKED, idempotency_key="tap-1")
    assert deleted.value.number == 1 and not Deal.objects.filter(match=match).exists()
    restored = services.restore_deal(match=match, number=1)
    again = services.record_deal(match_id=match.pk, number=1, entry=WORKED, idempotency_key="tap-1")
    assert not again.created and again.deal.pk == restored.deal.pk  # found saved, under its key


def test_another_phone_saving_the_same_deal_number_is_a_conflict():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=WORKED, idempotency_key="phone-a")
    with pytest.raises(services.DealConflict) as conflict:
        services.record_deal(
            match_id=match.pk, number=1, entry=entry(5, 6), idempotency_key="phone-b"
        )
    assert conflict.value.deal.number == 1
    assert conflict.value.deal.points == (11, 3)
    assert Deal.objects.filter(match=match).count() == 1


def test_a_rule_broken_stores_nothing():
    match = MatchFactory()
    with pytest.raises(rules.DealInvalid):
        services.record_deal(match_id=match.pk, number=1, entry=entry(8, 4))
    assert not Deal.objects.exists()
    assert not Change.objects.exists()


def test_a_deal_number_from_the_future_is_refused():
    match = MatchFactory()
    with pytest.raises(services.StaleChange):
        services.record_deal(match_id=match.pk, number=3, entry=WORKED)


def test_a_match_holds_so_many_deals_and_then_says_so(monkeypatch):
    monkeypatch.setattr(services, "MATCH_DEALS_MAX", 2)
    match = MatchFactory()
    for number in (1, 2):
        services.record_deal(match_id=match.pk, number=number, entry=entry(5, 6))
    with pytest.raises(services.ServiceError, match="at most 2 deals: stop this one"):
        services.record_deal(match_id=match.pk, number=3, entry=entry(5, 6))
    assert match.deals.count() == 2


def test_a_table_holds_so_many_players_and_then_says_so(monkeypatch):
    monkeypatch.setattr(services, "TABLE_PLAYERS_MAX", 4)
    table = MatchFactory().table  # its four players
    with pytest.raises(services.ServiceError, match="at most 4 players: merge the ones"):
        services.add_player(table=table, name="Zeno")
    with pytest.raises(services.ServiceError, match="at most 4 players"):
        services.start_match(table=table, players=[["Zeno", "Alice"], ["Beppe", "Carla"]])
    assert table.players.count() == 4 and table.matches.count() == 1
    # Known players still sit down.
    names = [[p.name for p in table.players.order_by("pk")][i::2] for i in (0, 1)]
    assert services.start_match(table=table, players=names).seat_count == 4


def test_every_change_bumps_the_revision():
    match = MatchFactory()
    before = match.revision
    services.record_deal(match_id=match.pk, number=1, entry=WORKED)
    match.refresh_from_db()
    assert match.revision == before + 1


def test_an_edit_rescores_and_logs_old_and_new_values():
    match = MatchFactory()
    deal = services.record_deal(match_id=match.pk, number=1, entry=WORKED).deal
    edited = services.edit_deal(deal=deal, version=1, entry=entry(6, 5, 4, 0), by="Dino")
    assert edited.points == (10, 5)
    assert edited.version == 2
    change = Change.objects.get(action=Action.DEAL_EDITED)
    assert change.old["points"] == [11, 3]
    assert change.new["points"] == [10, 5]


def test_a_stale_edit_is_refused():
    match = MatchFactory()
    deal = services.record_deal(match_id=match.pk, number=1, entry=WORKED).deal
    services.edit_deal(deal=deal, version=1, entry=entry(6, 5))
    with pytest.raises(services.StaleChange, match="changed on another phone"):
        services.edit_deal(deal=deal, version=1, entry=entry(7, 4))
    deal.refresh_from_db()
    assert deal.card_points == (6, 5)


def test_editing_an_earlier_deal_rescores_a_sweep_after_it():
    match = MatchFactory()
    first = services.record_deal(match_id=match.pk, number=1, entry=entry(6, 5)).deal
    services.record_deal(match_id=match.pk, number=2, entry=entry(11, 0, kind="cappotto", side=0))
    services.edit_deal(deal=first, version=1, entry=entry(9, 2))
    sweep = Deal.objects.get(match=match, number=2)
    assert sweep.points == (21 - 9, 0)


def test_an_edit_that_would_decide_the_match_before_later_deals_is_refused():
    match = MatchFactory()
    first = services.record_deal(match_id=match.pk, number=1, entry=entry(6, 5)).deal
    services.record_deal(match_id=match.pk, number=2, entry=entry(6, 5))
    with pytest.raises(services.ServiceError, match="decided at deal 1, and deals after it"):
        services.edit_deal(deal=first, version=1, entry=entry(11, 0, kind="cappotto", side=0))
    assert Deal.objects.get(pk=first.pk).kind == "normal"


def test_the_same_key_with_other_points_is_a_conflict_not_a_silent_success():
    """A save that got through though its answer was lost, changed and sent again."""
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=entry(6, 5), idempotency_key="k")
    with pytest.raises(services.DealConflict) as conflict:
        services.record_deal(match_id=match.pk, number=1, entry=entry(2, 9), idempotency_key="k")
    assert conflict.value.resent
    assert "already saved from this phone" in conflict.value.message
    assert Deal.objects.get().card_points == (6, 5)


def test_deleting_the_last_deal_keeps_its_values_in_the_log():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=WORKED)
    services.delete_last_deal(match=match, number=1, by="Alice")
    assert not Deal.objects.exists()
    change = Change.objects.get(action=Action.DEAL_DELETED)
    assert change.old["points"] == [11, 3]
    assert change.deal_number == 1


def test_deleting_a_deal_that_is_no_longer_the_last_is_refused():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=WORKED)
    services.record_deal(match_id=match.pk, number=2, entry=WORKED)
    with pytest.raises(services.StaleChange):
        services.delete_last_deal(match=match, number=1)
    assert Deal.objects.count() == 2


def test_a_match_cannot_end_before_it_is_decided():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=WORKED)
    with pytest.raises(services.ServiceError, match="not decided"):
        services.end_match(match=match)
    match.refresh_from_db()
    assert match.status == Status.IN_PROGRESS


def test_end_match_banks_winner_and_reason_then_reopen_undoes_it():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=WORKED)
    services.record_deal(match_id=match.pk, number=2, entry=WORKED)
    ended = services.end_match(match=match, by="Beppe")
    assert (ended.status, ended.winner, ended.end_reason) == ("finished", 0, "line")
    # A second phone's End match, tapped together with the first: ended, nothing changes.
    revision = ended.revision
    assert services.end_match(match=match).revision == revision
    assert Change.objects.filter(match=match, action=Action.MATCH_ENDED).count() == 1
    with pytest.raises(services.MatchClosed):
        services.record_deal(match_id=match.pk, number=3, entry=WORKED)
    reopened = services.reopen_match(match=match)
    assert (reopened.status, reopened.winner, reopened.end_reason) == ("in_progress", None, "")
    actions = list(Change.objects.filter(match=match).values_list("action", flat=True))
    assert Action.MATCH_ENDED in actions
    assert Action.MATCH_REOPENED in actions


def test_a_cappotto_from_behind_ends_the_match_for_the_sweepers():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=entry(1, 10, 0, 7))
    services.record_deal(match_id=match.pk, number=2, entry=entry(11, 0, kind="cappotto", side=0))
    ended = services.end_match(match=match)
    assert (ended.winner, ended.end_reason) == (0, "cappotto")


def test_rematch_keeps_sides_and_settings():
    match = MatchFactory(line=31, claims_allowed=True, first_dealer=3)
    services.stop_match(match=match)
    again = services.rematch(match=match)
    assert again.pk != match.pk
    assert (again.line, again.claims_allowed) == (31, True)
    assert [s.name for s in again.sides.all()] == ["Alice & Carla", "Beppe & Dino"]


@pytest.mark.parametrize(
    ("first", "deals", "next_first"), [(0, 2, 2), (3, 2, 1), (1, 7, 0), (3, 0, 3)]
)
def test_the_rematch_is_dealt_by_the_seat_after_the_last_dealer(first, deals, next_first):
    """The deal goes on passing to the right: deal 1 of the rematch is dealt as deal
    `deals + 1` of this match would have been (with no deal played, the same seat)."""
    match = MatchFactory(line=101, first_dealer=first)
    for number in range(1, deals + 1):
        services.record_deal(match_id=match.pk, number=number, entry=entry(6, 5))
    services.stop_match(match=match)
    assert services.rematch(match=match).first_dealer == next_first


def test_a_second_rematch_opens_the_first_and_the_old_sheet_changes():
    match = MatchFactory()
    with pytest.raises(services.ServiceError, match="still being played"):
        services.rematch(match=match)
    services.stop_match(match=match)
    revision = Match.objects.get(pk=match.pk).revision
    again = services.rematch(match=match)
    match.refresh_from_db()
    assert match.next_match == again and match.revision == revision + 1
    assert services.rematch(match=match) == again  # another phone's tap
    assert services.rematch(match=Match.objects.get(pk=match.pk)) == again
    assert Match.objects.count() == 2
    # Reopened and played on, it will have a rematch of its own.
    services.reopen_match(match=match)
    match.refresh_from_db()
    assert match.next_match is None
    services.stop_match(match=match)
    assert services.rematch(match=match) not in (again, match)


def test_a_rematch_seats_the_same_players_even_where_names_now_compare_alike():
    """A table from before names were compared ignoring accents may hold Niccolo and
    Niccolò as two players: the rematch seats each as he sat, by no name lookup."""
    # Seated: Niccolò; a name lookup would find Niccolo first (he sorts first).
    match = MatchFactory(sides=[["Niccolò"], ["Beppe"]], players_per_side=1)
    Player.objects.create(table=match.table, name="Niccolo")
    services.stop_match(match=match)
    again = services.rematch(match=match)
    assert again.sides.get(position=0).first_player == match.sides.get(position=0).first_player


def test_changing_the_line_re_evaluates_the_outcome():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=WORKED)
    services.record_deal(match_id=match.pk, number=2, entry=WORKED)
    services.change_settings(match=match, settings=rules.MatchSettings(31, "higher_total", False))
    with pytest.raises(services.ServiceError):
        services.end_match(match=match)
    assert Change.objects.filter(action=Action.SETTINGS_CHANGED).get().new["line"] == 31


def test_a_line_that_would_leave_deals_after_the_end_is_refused():
    match = MatchFactory(line=41)
    for number in (1, 2, 3):
        services.record_deal(match_id=match.pk, number=number, entry=WORKED)
    # 11, 22: at line 21 the match ends at deal 2, and deal 3 would be left after the end.
    with pytest.raises(services.ServiceError, match="decided at deal 2, and deals after it"):
        services.change_settings(match=match, settings=rules.MatchSettings(21))
    match.refresh_from_db()
    assert match.line == 41


def test_an_undecided_match_can_be_stopped_then_reopened_to_play_on():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=entry(6, 5))
    services.stop_match(match=match, by="Dino")
    match.refresh_from_db()
    assert (match.status, match.winner, match.end_reason) == ("abandoned", None, "")
    assert match.finished_at is not None
    with pytest.raises(services.MatchClosed):
        services.record_deal(match_id=match.pk, number=2, entry=entry(6, 5))
    services.stop_match(match=match)  # a second tap, here or on another phone: nothing
    services.reopen_match(match=match)
    services.reopen_match(match=match)  # likewise
    services.record_deal(match_id=match.pk, number=2, entry=entry(6, 5))
    actions = list(match.changes.order_by("id").values_list("action", "old", "new"))
    assert [action for action, _, _ in actions].count("match_reopened") == 1
    assert actions[-3:-1] == [
        ("match_stopped", None, {"totals": [6, 5]}),
        ("match_reopened", {"totals": [6, 5]}, None),
    ]


def test_a_decided_match_is_ended_not_stopped():
    match = MatchFactory()
    for number in (1, 2):
        services.record_deal(match_id=match.pk, number=number, entry=WORKED)
    with pytest.raises(services.ServiceError, match="tap End match to bank the result"):
        services.stop_match(match=match)
    match.refresh_from_db()
    assert match.status == "in_progress"


def test_an_edit_saved_unchanged_changes_nothing_and_logs_nothing():
    match = MatchFactory()
    deal = services.record_deal(match_id=match.pk, number=1, entry=WORKED).deal
    match.refresh_from_db()
    revision, changes = match.revision, match.changes.count()
    services.edit_deal(deal=deal, version=deal.version, entry=WORKED)
    match.refresh_from_db()
    assert (match.revision, match.changes.count()) == (revision, changes)
    assert Deal.objects.get().version == deal.version


def test_a_stopped_match_says_it_was_stopped_when_a_deal_comes_in():
    match = MatchFactory()
    services.stop_match(match=match)
    with pytest.raises(services.MatchClosed, match=r"This match was stopped\. Reopen it"):
        services.record_deal(match_id=match.pk, number=1, entry=WORKED)


def test_a_deleted_deal_is_restored_from_the_log_while_it_is_still_the_next():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=WORKED)
    stramazzo = entry(0, 11, kind="stramazzo", side=1)
    services.record_deal(match_id=match.pk, number=2, entry=stramazzo)
    services.delete_last_deal(match=match, number=2)
    restored = services.restore_deal(match=match, number=2, by="Dino")
    assert restored.created
    assert restored.deal.entry == stramazzo
    assert restored.deal.points == (0, 18)  # taken to the line again, as first scored
    assert match.changes.order_by("-id").first().action == "deal_restored"


def test_a_deal_cannot_be_restored_once_another_took_its_place():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=WORKED)
    services.delete_last_deal(match=match, number=1)
    services.record_deal(match_id=match.pk, number=1, entry=entry(6, 5))
    with pytest.raises(services.ServiceError, match="Deal 1 is on the sheet already"):
        services.restore_deal(match=match, number=1)
    assert Deal.objects.get().card_points == (6, 5)
    with pytest.raises(services.ServiceError, match="was not deleted: nothing to restore"):
        services.restore_deal(match=match, number=2)


@pytest.mark.parametrize(
    "old",
    [
        {"points": [1]},
        {"card_points": [3], "declared_points": [0, 0], "kind": "normal", "side": None},
        {"card_points": [0, 11], "declared_points": [0, 3], "kind": "cappotto", "side": 1.0},
        {"card_points": [3, 8, 5], "declared_points": [0, 0], "kind": "normal", "side": None},
        {"card_points": [3, 8], "declared_points": [None, None], "kind": "normal", "side": None},
    ],
)
def test_a_deal_the_log_keeps_too_little_of_is_not_restored(old):
    """An imported log may keep only a deleted deal's points, or values of other types."""
    match = MatchFactory()
    Change.objects.create(match=match, action="deal_deleted", deal_number=1, old=old)
    with pytest.raises(services.ServiceError, match="does not keep enough of deal 1"):
        services.restore_deal(match=match, number=1)
    assert not Deal.objects.exists()
    assert match.restorable_deletion() is None  # so the history offers no Restore


def test_restore_takes_the_latest_deletion_whatever_its_logged_time():
    match = MatchFactory()
    old = {"card_points": [0, 11], "declared_points": [0, 3], "kind": "normal", "side": None}
    Change.objects.create(
        match=match, action="deal_deleted", deal_number=1, old=old, at="2999-01-01T00:00Z"
    )
    services.record_deal(match_id=match.pk, number=1, entry=entry(9, 2))
    services.delete_last_deal(match=match, number=1)
    services.restore_deal(match=match, number=1)
    assert Deal.objects.get().card_points == (9, 2)
    again = services.restore_deal(match=match, number=1)  # a second tap: nothing more
    assert not again.created and Deal.objects.get() == again.deal
    assert match.changes.filter(action="deal_restored").count() == 1


def test_a_deleted_deal_is_not_restored_once_deals_were_entered_or_edited_since():
    """It would stand on other deals than it did: delete 3, delete 2, enter another 2."""
    match = MatchFactory(line=41)
    for number in (1, 2, 3):
        services.record_deal(match_id=match.pk, number=number, entry=entry(6, 5))
    services.delete_last_deal(match=match, number=3)
    services.delete_last_deal(match=match, number=2)
    services.restore_deal(match=match, number=2)  # putting back in turn is fine
    assert match.restorable_deletion().deal_number == 3
    services.delete_last_deal(match=match, number=2)
    services.record_deal(match_id=match.pk, number=2, entry=entry(9, 2))
    assert match.restorable_deletion() is None
    with pytest.raises(services.ServiceError, match="no longer be restored: deals were entered"):
        services.restore_deal(match=match, number=3)
    services.edit_deal(deal=match.deals.get(number=2), version=1, entry=entry(5, 6))
    with pytest.raises(services.ServiceError, match="Deal 2 is on the sheet already"):
        services.restore_deal(match=match, number=2)  # an edit since: not a second tap


def test_a_deal_of_11_to_0_stored_before_it_was_a_sweep_stays_workable():
    """Only a deal typed now is held to "11 against 0 is a sweep": a match kept from before
    still takes edits of its earlier deals, new settings, a restore and an export's import."""
    from tests.factories import DealFactory

    match = MatchFactory(line=41)
    services.record_deal(match_id=match.pk, number=1, entry=entry(6, 5))
    DealFactory(match=match, number=2, card_points=[11, 0], declared_points=[0, 0])
    DealFactory(match=match, number=3, card_points=[6, 5], declared_points=[0, 0])
    services.edit_deal(deal=match.deals.get(number=1), version=1, entry=entry(7, 4))
    services.change_settings(match=match, settings=rules.MatchSettings(51, "higher_total", False))
    services.delete_last_deal(match=match, number=3)
    services.delete_last_deal(match=match, number=2)
    services.restore_deal(match=match, number=2)
    document = imports.read("".join(exports.table_json_chunks(match.table)).encode())
    imported = services.import_table(document=document)
    assert imported.matches.get().deals.get(number=2).card_points == (11, 0)
    # Typed now, it is refused in words, and edited into such a deal too.
    with pytest.raises(rules.DealInvalid) as caught:
        services.record_deal(match_id=match.pk, number=3, entry=entry(0, 11))
    assert caught.value.codes == ["card_points_sweep"]
    with pytest.raises(rules.DealInvalid):
        services.edit_deal(deal=match.deals.get(number=1), version=2, entry=entry(11, 0))


def test_a_match_keeps_which_side_its_deals_decide_it_for():
    decided, open_match, ended = MatchFactory(), MatchFactory(), MatchFactory()
    for match in (decided, ended):
        for number in (1, 2):
            services.record_deal(match_id=match.pk, number=number, entry=WORKED)
    services.record_deal(match_id=open_match.pk, number=1, entry=WORKED)
    services.end_match(match=ended)
    kept = lambda: list(  # noqa: E731
        Match.objects.order_by("pk").values_list("decided_for", flat=True)
    )
    assert kept() == [0, None, 0]
    services.delete_last_deal(match=decided, number=2)  # undecided again
    assert kept() == [None, None, 0]
    sweep = entry(0, 11, kind=rules.DealKind.CAPPOTTO, side=1)  # from behind: side 2 wins
    services.record_deal(match_id=decided.pk, number=2, entry=sweep)
    assert kept() == [1, None, 0]


# --- A sweep by one player: cappottone and stramazzone --------------------------------------


def cappottone(seat: int) -> rules.DealEntry:
    cards = (11, 0) if seat % 2 == 0 else (0, 11)
    return entry(*cards, kind=rules.DealKind.CAPPOTTONE, seat=seat)


def test_a_cappottone_is_stored_with_its_players_seat_and_logged_so():
    match = MatchFactory()
    services.record_deal(match_id=match.pk, number=1, entry=entry(6, 5, 3, 0))
    deal = services.record_deal(match_id=match.pk, number=2, entry=cappottone(3)).deal
    deal.refresh_from_db()
    # Beppe & Dino had 5: Dino's cappottone takes them to the line, 16 more.
    assert (deal.kind, deal.side, deal.seat, deal.points) == ("cappottone", 1, 3, (0, 16))
    logged = Change.objects.get(action=Action.DEAL_RECORDED, deal_number=2).new
    assert logged == {
        "number": 2,
        "kind": "cappottone",
        "side": 1,
        "seat": 3,
        "card_points": [0, 11],
        "declared_points": [0, 0],
        "points": [0, 16],
    }
    # A deal of any other kind is logged as before there were sweeps by one player.
    assert "seat" not in Change.objects.get(deal_number=1).new
    match.refresh_from_db()
    assert (match.decided_for, match.sweeps) == (1, (0, 1))  # a sweep of its side
    ended = services.end_match(match=match)
    assert (ended.winner, ended.end_reason) == (1, "cappottone")


def test_a_cappottone_in_due_is_refused_and_nothing_is_stored():
    match = MatchFactory(players_per_side=1)
    with pytest.raises(rules.DealInvalid) as refused:
        services.record_deal(match_id=match.pk, number=1, entry=cappottone(1))
    assert refused.value.codes == ["sweep_by_one_in_due"]
    assert not Deal.objects.exists() and not Change.objects.exists()


def test_a_sweep_by_one_sent_again_is_the_same_deal_whether_its_side_was_named_or_not():
    match = MatchFactory()
    first = services.record_deal(match_id=match.pk, number=1, entry=cappottone(2),
                                 idempotency_key="tap")  # fmt: skip
    named = entry(11, 0, kind=rules.DealKind.CAPPOTTONE, side=0, seat=2)
    again = services.record_deal(match_id=match.pk, number=1, entry=named, idempotency_key="tap")
    assert (again.created, again.deal.pk) == (False, first.deal.pk)
    other = cappottone(0)  # Alice, not Carla: another deal under the same key
    with pytest.raises(services.DealConflict):
        services.record_deal(match_id=match.pk, number=1, entry=other, idempotency_key="tap")


def test_a_stramazzone_deleted_is_restored_with_its_player():
    match = MatchFactory()
    stramazzone = entry(1, 10, 0, 3, kind=rules.DealKind.STRAMAZZONE, seat=1)
    services.record_deal(match_id=match.pk, number=1, entry=stramazzone, idempotency_key="k")
    services.delete_last_deal(match=match, number=1)
    assert Change.objects.get(action=Action.DEAL_DELETED).old["seat"] == 1
    restored = services.restore_deal(match=match, number=1).deal
    restored.refresh_from_db()
    assert (restored.kind, restored.seat, restored.side, restored.points) == (
        "stramazzone", 1, 1, (1, 21)
    )  # fmt: skip


def test_an_edit_turns_a_cappotto_into_a_cappottone_and_back():
    match = MatchFactory()
    deal = services.record_deal(
        match_id=match.pk, number=1, entry=entry(11, 0, kind=rules.DealKind.CAPPOTTO, side=0)
    ).deal
    edited = services.edit_deal(deal=deal, version=1, entry=cappottone(2), by="Dino")
    edited.refresh_from_db()
    assert (edited.kind, edited.seat, edited.side) == ("cappottone", 2, 0)
    change = Change.objects.get(action=Action.DEAL_EDITED)
    assert ("seat" in change.old, change.new["seat"]) == (False, 2)
    back = entry(11, 0, kind=rules.DealKind.CAPPOTTO, side=0)
    edited = services.edit_deal(deal=edited, version=2, entry=back)
    edited.refresh_from_db()
    assert (edited.kind, edited.seat) == ("cappotto", None)
    match.refresh_from_db()
    assert match.sweeps[0] == 1
