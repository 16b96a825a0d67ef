"""Several phones saving at once: real threads, real connections, a file database or PostgreSQL."""

import functools
import random
import threading

import pytest
from django.db import connection

from matches import rules, services
from matches.models import Action, Deal, Match, Side, pair_name
from tests.factories import MatchFactory

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 8
SUBMISSIONS = 25
DEALS = 16  # at line 101 a match is decided within 18 deals: every deal adds 11 points


def on_threads(work) -> list[BaseException]:
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def run(index: int) -> None:
        try:
            start.wait()
            work(index)
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return errors


def deal_entry(number: int) -> rules.DealEntry:
    return rules.DealEntry(card_points=(5 + number % 2, 6 - number % 2), declared_points=(0, 0))


def submit_all(match_pk: int) -> None:
    """Each phone enters the deals in order, with double taps and retries of earlier ones."""

    def phone(index: int) -> None:
        chance = random.Random(index)
        match = Match.objects.get(pk=match_pk)
        plan = list(range(1, DEALS + 1))
        plan += sorted(chance.choices(plan, k=SUBMISSIONS - DEALS))
        for number in plan:
            services.record_deal(
                match_id=match.pk,
                number=number,
                entry=deal_entry(number),
                idempotency_key=f"d{number}",
            )

    assert on_threads(phone) == []


def test_eight_phones_saving_at_once_make_each_deal_exactly_once():
    match = MatchFactory(line=101)
    submit_all(match.pk)
    numbers = list(Deal.objects.filter(match=match).values_list("number", flat=True))
    assert sorted(numbers) == list(range(1, DEALS + 1))

    submit_all(match.pk)
    assert Deal.objects.filter(match=match).count() == DEALS


def test_eight_phones_saving_the_same_deal_leave_one_and_tell_the_others():
    match = MatchFactory()
    conflicts: list[int] = []

    def phone(index: int) -> None:
        try:
            services.record_deal(
                match_id=match.pk,
                number=1,
                entry=rules.DealEntry(card_points=(index + 1, 10 - index), declared_points=(0, 0)),
                idempotency_key=f"phone-{index}",
            )
        except services.DealConflict as conflict:
            conflicts.append(conflict.deal.number)

    assert on_threads(phone) == []
    assert Deal.objects.filter(match=match).count() == 1
    assert conflicts == [1] * (THREADS - 1)


def first_holds_the_match(monkeypatch, first, then) -> BaseException | None:
    """`first` runs on one phone and is held as it scores the match; `then` runs meanwhile on
    another, which must wait for it. What `then` raised, if anything."""
    scoring, release = threading.Event(), threading.Event()
    match_rules = Match.match_rules  # what every change asks first of the rules

    def held(self, *args, **kwargs):
        if threading.current_thread().name == "first":
            scoring.set()
            release.wait(10)
        return match_rules(self, *args, **kwargs)

    monkeypatch.setattr(Match, "match_rules", held)
    raised: list[BaseException] = []

    def run(work) -> None:
        try:
            work()
        except BaseException as error:
            raised.append(error)
        finally:
            connection.close()

    holder = threading.Thread(target=run, args=(first,), name="first")
    other = threading.Thread(target=run, args=(then,), name="then")
    holder.start()
    assert scoring.wait(10)
    other.start()
    other.join(0.3)
    waited = other.is_alive()
    release.set()
    holder.join(30)
    other.join(30)
    assert waited, "the other phone went ahead of the one holding the match"
    assert len(raised) <= 1
    return raised[0] if raised else None


def test_a_deal_another_phone_saves_while_this_one_holds_the_match_is_a_conflict(monkeypatch):
    match = MatchFactory()
    mine, theirs = deal_entry(1), deal_entry(2)
    save = functools.partial(services.record_deal, match_id=match.pk, number=1)
    raised = first_holds_the_match(
        monkeypatch,
        lambda: save(entry=mine, idempotency_key="a"),
        lambda: save(entry=theirs, idempotency_key="b"),
    )
    assert isinstance(raised, services.DealConflict) and raised.deal.entry == mine
    assert [deal.entry for deal in Deal.objects.filter(match=match)] == [mine]


def test_a_deal_saved_while_another_phone_changes_the_line_is_scored_under_the_new_line(
    monkeypatch,
):
    match = MatchFactory()
    eleven = rules.MatchSettings(11, match.tie_rule, match.claims_allowed, True)
    worked = rules.DealEntry(card_points=(8, 3), declared_points=(3, 0))  # 11 against 3
    raised = first_holds_the_match(
        monkeypatch,
        lambda: services.change_settings(match=match, settings=eleven),
        lambda: services.record_deal(match_id=match.pk, number=1, entry=worked),
    )
    assert raised is None
    match.refresh_from_db()
    assert (match.line, match.totals[0], match.decided_for) == (11, 11, 0)  # decided at 11
    actions = match.changes.order_by("id").values_list("action", flat=True)
    assert list(actions) == [Action.SETTINGS_CHANGED, Action.DEAL_RECORDED]


def test_merges_renames_and_a_rematch_at_once_are_done_or_refused_in_words():
    """Giani, entered twice, is merged both ways, renamed and seated again by a rematch, all
    at once: each is done or refused in words, never half done (on PostgreSQL a merge once
    met the rematch's new sides and failed with a ProtectedError)."""
    first = MatchFactory(sides=[["Giani", "Alice"], ["Beppe", "Carla"]])
    table = first.table
    services.stop_match(match=first)
    services.start_match(table=table, players=[["Gianni", "Dino"], ["Beppe", "Carla"]])
    giani, gianni = (table.players.get(name=name) for name in ("Giani", "Gianni"))
    work = [
        lambda: services.merge_players(player=giani, into=gianni),
        lambda: services.merge_players(player=gianni, into=giani),
        lambda: services.rematch(match=first),
        lambda: services.rename_player(player=giani, name="Gianluca"),
    ]
    errors = on_threads(lambda index: work[index % len(work)]())
    assert all(isinstance(error, services.ServiceError) for error in errors), errors
    assert Match.objects.filter(table=table).count() == 3  # one rematch, however many asked
    first.refresh_from_db()
    names = {player.pk: player.name for player in table.players.all()}
    for side in Side.objects.filter(match__table=table):
        assert all(player.pk in names for player in side.players)
        if len(side.players) == 2:
            assert side.name == pair_name([names[p.pk] for p in side.players])
