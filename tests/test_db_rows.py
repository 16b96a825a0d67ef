"""db.insert and db.update write a row as Model.save and QuerySet.update would."""

from datetime import UTC, datetime

import pytest
from django.db.models import F

from matches import db, rules
from matches.models import Action, Change, Deal, Match
from tests.factories import MatchFactory

pytestmark = pytest.mark.django_db


def test_insert_stores_every_field_as_save_would_and_gives_the_row_its_id():
    match = MatchFactory()
    at = datetime(2026, 3, 4, 21, 30, 15, 123456, tzinfo=UTC)
    change = Change(match=match, action=Action.DEAL_RECORDED, by="Anna's phone", deal_number=3,
                    at=at, new={"kind": "claim", "points": [7, 4], "note": "è"})  # fmt: skip
    db.insert(change)

    stored = Change.objects.get(pk=change.pk)
    assert (stored.match_id, stored.action, stored.by, stored.deal_number) == (
        match.pk, "deal_recorded", "Anna's phone", 3)  # fmt: skip
    assert (stored.at, stored.old, stored.new) == (at, None, change.new)
    assert stored.idempotency_key == ""
    assert not change._state.adding


def test_insert_of_a_deal_keeps_its_entry():
    match = MatchFactory()
    deal = Deal(match=match, number=1, idempotency_key="k-1")
    entry = rules.DealEntry((7, 4), (3, 0), rules.DealKind.NORMAL, None)
    deal.set_scored(match.score([entry], ("A", "B"), checked_from=1, new=1).deals[-1])
    db.insert(deal)

    assert Deal.objects.get(pk=deal.pk).entry == entry
    assert list(match.deals.values_list("number", "idempotency_key")) == [(1, "k-1")]


def test_update_changes_the_rows_that_match_only_and_counts_them():
    match, other = MatchFactory(revision=4), MatchFactory(revision=4)
    finished = datetime(2026, 3, 4, 22, 0, tzinfo=UTC)
    values = {"revision": 5, "status": rules.Status.ABANDONED, "finished_at": finished,
              "decided_for": None, "next_match": other}  # fmt: skip

    assert db.update(Match, {"pk": match.pk, "revision": 3}, values) == 0
    assert Match.objects.get(pk=match.pk).revision == 4

    assert db.update(Match, {"pk": match.pk, "revision": 4}, values) == 1
    stored = Match.objects.get(pk=match.pk)
    assert (stored.revision, stored.status, stored.decided_for) == (5, "abandoned", None)
    assert (stored.finished_at, stored.next_match_id) == (finished, other.pk)
    assert Match.objects.get(pk=other.pk).revision == 4


def test_what_the_orm_would_refuse_or_write_otherwise_is_refused_and_nothing_written():
    match = MatchFactory(revision=4)
    with pytest.raises(ValueError, match="new rows only"):
        db.insert(Change(pk=match.changes.create(action=Action.MATCH_STARTED).pk, match=match))
    with pytest.raises(TypeError, match="expression"):
        db.update(Match, {"pk": match.pk}, {"revision": F("revision") + 1})
    with pytest.raises(ValueError, match="other than None"):
        db.update(Match, {"pk": match.pk, "decided_for": None}, {"revision": 5})
    with pytest.raises(ValueError, match="Unsaved"):
        db.update(Match, {"pk": match.pk}, {"next_match": Match()})
    assert Match.objects.get(pk=match.pk).revision == 4
    assert match.changes.count() == 1
