"""Every write the app makes. Each service writes in one transaction, asks `matches.rules`
first, logs what it did to a match and bumps the match's revision (`_changed`): every phone's
next poll sees it.

Views, forms, commands and the admin call these; none of them writes a model directly. A
refusal the person can act on is a ServiceError, in words from MESSAGES; a broken rule is
the rules' own RuleError or DealInvalid.
"""

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from operator import attrgetter
from typing import TYPE_CHECKING

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from matches import rules
from matches.db import atomic
from matches.models import (
    MATCH_DEALS_MAX,
    TABLE_PLAYERS_MAX,
    Action,
    Change,
    Deal,
    Match,
    NotRestorable,
    Player,
    Side,
    Table,
    deal_document,
    entry_from_document,
    new_token,
    outcome_fields,
    per_side,
    settings_fields,
)
from matches.names import name_key, pair_name, side_name

if TYPE_CHECKING:
    from matches.imports import MatchImport, TableImport


MESSAGES = {
    "other_game": gettext_noop("This page is of another match: reload it and try again."),
    "another_phone": gettext_noop("Deal %(number)s was just entered on another phone."),
    "resent": gettext_noop("Deal %(number)s was already saved from this phone, with other points."),
    "renumbered": gettext_noop(
        "Another phone deleted a deal meanwhile: this one is now deal %(number)s. "
        "Check the sheet, then save again."
    ),
    "too_many_deals": gettext_noop(
        "A match holds at most %(max)s deals: stop this one, undecided, and start a new match."
    ),
    "edited_meanwhile": gettext_noop(
        "Deal %(number)s was changed on another phone meanwhile. Check it and try again."
    ),
    "decided_before_last": gettext_noop(
        "With this change the match is decided at deal %(number)s, and deals after it are on "
        "the sheet: delete them first."
    ),
    "undo_stale": gettext_noop(
        "The sheet has changed since deal %(number)s was saved: check it before undoing."
    ),
    "not_last": gettext_noop(
        "Deal %(number)s is no longer the last deal. Check the sheet and try again."
    ),
    "restore_on_sheet": gettext_noop(
        "Deal %(number)s is on the sheet already: nothing to restore."
    ),
    "not_decided": gettext_noop("The match is not decided yet: no side has reached the line."),
    "not_decided_tie": gettext_noop("The match is not decided yet: play another deal."),
    "decided_stop": gettext_noop("The match is decided: tap End match to bank the result."),
    "still_played": gettext_noop("This match is still being played: end or stop it first."),
    "name_taken": gettext_noop("%(name)s already plays at this table."),
    "merged_meanwhile": gettext_noop(
        "This player has just been merged into another: look at the list of players again."
    ),
    "other_player": gettext_noop("Choose another player of this table."),
    "same_match": gettext_noop(
        "%(player)s and %(into)s played in the same match: they are two people."
    ),
    "sides_alike": gettext_noop(
        "Both sides of a match would then be called “%(name)s”, and its sheet could not tell "
        "them apart."
    ),
    "table_full": gettext_noop(
        "A table holds at most %(max)s players: merge the ones entered twice, or start a new table."
    ),
}


class ServiceError(Exception):
    """A refusal the person can act on: `code` from MESSAGES, `message` in words."""

    def __init__(self, code: str, **params: object) -> None:
        self.code = code
        self.params = params
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return _(MESSAGES[self.code]) % self.params


class DealConflict(ServiceError):
    """Another phone already recorded the deal number this phone was showing, or this phone
    did (`resent`), with other points: a save that got through though its answer was lost."""

    def __init__(self, deal: Deal, *, resent: bool = False) -> None:
        self.deal = deal
        self.resent = resent
        super().__init__("resent" if resent else "another_phone", number=deal.number)


class StaleChange(ServiceError):
    """The phone acted on a sheet that has changed since it was shown."""


class DeletedSince(Exception):
    """A retry of a save that got through, of a deal deleted since: it is not saved again
    (the sheet says so, with Restore)."""

    def __init__(self, number: int) -> None:
        self.number = number
        super().__init__(number)


class MatchClosed(ServiceError):
    """The match is ended or stopped, or a deal cannot be restored: said in words."""

    def __init__(self, why: str) -> None:
        self.why = why
        super().__init__("closed")

    @property
    def message(self) -> str:
        return self.why


class NameTaken(ServiceError):
    """A player's name is unique at a table, whatever its case: `player` has it."""

    def __init__(self, player: Player) -> None:
        self.player = player
        super().__init__("name_taken", name=player.name)


@dataclass(frozen=True)
class Recorded:
    """What record_deal did: the deal, whether this call made it (not a retry's) and, if it
    did, the match's revision it left."""

    deal: Deal
    created: bool
    revision: int | None = None


@dataclass(frozen=True)
class Page:
    """The table's page a change is sent from: the view token in its address, and whether the
    phone sending it may change that table (views.access.can_score)."""

    token: str
    may_change: Callable[[Table], bool]


# --- The log and the revision ------------------------------------------------------------


def _log(match: Match, action: str, by: str, **values) -> Change:
    return Change.objects.create(match=match, action=action, by=by[:80], **values)


def _changed(match: Match, outcome: rules.Outcome | None = None, **fields) -> None:
    """Save `fields`, and where the rules now leave the match (its totals, the side its
    deals decide it for), and bump the revision. The match was read with its lock
    (`_lock`), so it is still at the revision read: a match read otherwise is refused."""
    if outcome is not None:
        fields.update(outcome_fields(outcome))
    at_revision = Match.objects.filter(pk=match.pk, revision=match.revision)
    if not at_revision.update(revision=F("revision") + 1, **fields):
        raise RuntimeError(f"{match} changed under its lock: read it with _lock")
    match.revision += 1
    for name, value in fields.items():
        setattr(match, name, value)


def _leaves_play(match: Match) -> None:
    """The match is ending or stopping: it leaves the matches in progress whose revisions its
    table's version sums (selectors.table_seen), and the sum could come back to a value it
    had, so the table's revision is bumped, unless the match is closed already (a second
    tap changes nothing). Before the match's lock, as _table_changed."""
    table = Table.objects.filter(matches__pk=match.pk, matches__status=rules.Status.IN_PROGRESS)
    table.update(revision=F("revision") + 1)


def _lock(match_id: int, page: Page | None = None) -> Match:
    """The match, read with its row locked until the transaction ends: every change to a
    match starts here, so changes to one match take turns. PostgreSQL takes a row lock; on
    SQLite writers take turns already (see matches.db). Sent from a table's `page`, the match
    is read with its table, in the one query: a match of another table raises
    Match.DoesNotExist, and a phone that may not change the table PermissionDenied."""
    matches = Match.objects.select_for_update(no_key=True, of=("self",))
    if page is None:
        return matches.get(pk=match_id)
    match = matches.select_related("table").get(pk=match_id, table__viewer_token=page.token)
    if not page.may_change(match.table):
        raise PermissionDenied
    return match


def _open(match: Match) -> None:
    if (why := match.why_closed) is not None:
        raise MatchClosed(why)


# Each game's deal, as the rules take it.
_ENTRIES = {
    rules.Game.TRESSETTE: rules.DealEntry,
    rules.Game.TERZIGLIO: rules.TerziglioEntry,
    rules.Game.A_PERDERE: rules.APerdereEntry,
}


def _of_its_game(match: Match, entry: object) -> None:
    """A deal of the match's own game (a page of another match sent it: refused in words)."""
    if type(entry) is not _ENTRIES[rules.Game(match.game)]:
        raise ServiceError("other_game")


def _side_names(match: Match) -> tuple[str, ...]:
    return tuple(match.sides.order_by("position").values_list("name", flat=True))


def _deals(match: Match) -> list[Deal]:
    return list(match.deals.order_by("number"))


def _document(deal: Deal) -> dict:
    return deal_document(deal.number, deal.entry, deal.points)


def _scored(match: Match, deals: Sequence[Deal]) -> rules.Outcome:
    """The match as its stored deals leave it."""
    return match.score([deal.entry for deal in deals], _side_names(match))


# --- Tables and players ------------------------------------------------------------------


@atomic
def create_table(*, name: str) -> Table:
    return Table.objects.create(name=name.strip())


class LinkChanged(Exception):
    """The phone asked for a new link with links another phone has just replaced."""


@atomic
def rotate_link(*, table: Table, which: str, key: str = "") -> Table:
    """A new scorer or view-only link; the old one stops working at once. The same `key`
    again (a double tap) makes no other: the table is returned with the link it made.
    Asked with links replaced meanwhile (two phones at once), LinkChanged."""
    field = {"scorer": "scorer_token", "viewer": "viewer_token"}[which]
    seen = (table.scorer_token, table.viewer_token)
    _table_changed(table.pk)  # the row locked: two at once take turns
    table.refresh_from_db(fields=["scorer_token", "viewer_token", "rotation", "rotated_from"])
    done = Table.rotation_of(which, key)
    if done and table.rotation == done:
        return table
    if (table.scorer_token, table.viewer_token) != seen:
        raise LinkChanged
    table.rotated_from, table.rotation = getattr(table, field), done
    setattr(table, field, new_token())
    table.save(update_fields=[field, "rotation", "rotated_from"])
    return table


def _table_changed(table_id: int) -> None:
    """Its players or links change: the table's revision is bumped (a change to a match in
    progress bumps the match's, one ending or stopping the table's: selectors.table_seen),
    which takes the table's row lock until the transaction ends. Always before any match's
    lock: one order for all. No key update: a new match, say, need not wait."""
    Table.objects.filter(pk=table_id).update(revision=F("revision") + 1)


def _lock_players(table: Table, *players: Player) -> list[Player]:
    """Those seating, adding, renaming or merging players at `table` take turns; `players`
    are read again once it is this one's turn (another phone may have renamed one, or
    merged it away)."""
    _table_changed(table.pk)
    fresh = Player.objects.in_bulk([player.pk for player in players])
    if len(fresh) < len(players):
        raise ServiceError("merged_meanwhile")
    return [fresh[player.pk] for player in players]


def _named(table: Table, name: str, *, exclude: int | None = None) -> Player | None:
    """The table's player of this name, compared as names.name_key compares them (not
    `iexact`: SQLite folds only A to Z). The table's row is locked first, so two phones
    adding "Élodie" and "élodie" at once take turns and the second is told."""
    _lock_players(table)
    wanted = name_key(name)
    alike = [p for p in table.players.exclude(pk=exclude) if name_key(p.name) == wanted]
    # The very name first: a table from before accents were set aside may hold both spellings.
    exact = [player for player in alike if player.name == name.strip()]
    return (exact or alike or [None])[0]


@atomic
def add_player(*, table: Table, name: str) -> Player:
    if (same := _named(table, name)) is not None:
        raise NameTaken(same)
    return _new_player(table, name)


def _new_player(table: Table, name: str) -> Player:
    """A player who joins the table (whose row _named has locked), while there is room."""
    if table.players.count() >= TABLE_PLAYERS_MAX:
        raise ServiceError("table_full", max=TABLE_PLAYERS_MAX)
    return Player.objects.create(table=table, name=name.strip())


@atomic
def rename_player(*, player: Player, name: str, by: str = "") -> Player:
    name = name.strip()
    (player,) = _lock_players(player.table, player)
    if (same := _named(player.table, name, exclude=player.pk)) is not None:
        raise NameTaken(same)
    was, player.name = player.name, name
    _reseat(player, player, was=was, action=Action.PLAYER_RENAMED, by=by)
    player.save(update_fields=["name"])
    return player


@atomic
def merge_players(*, player: Player, into: Player, by: str = "") -> Player:
    """One person entered twice ("Giani" beside "Gianni"): `player`'s matches become
    `into`'s, and `player` leaves the table. Refused when both sat at one match: they are
    two people. It cannot be undone; each match's history says it was done."""
    if into.table_id != player.table_id or into.pk == player.pk:
        raise ServiceError("other_player")
    player, into = _lock_players(player.table, player, into)
    if (refusal := merge_refusal(player=player, into=into)) is not None:
        raise refusal
    _reseat(player, into, was=player.name, action=Action.PLAYERS_MERGED, by=by)
    player.delete()
    return into


def _seated(player: Player) -> Q:
    return Q(first_player=player) | Q(second_player=player)


def merge_refusal(*, player: Player, into: Player) -> ServiceError | None:
    """Why `player` cannot be merged into `into` (both sat at one match), or None."""
    theirs = Side.objects.filter(_seated(player)).values("match_id")
    if Side.objects.filter(_seated(into), match_id__in=theirs).exists():
        return ServiceError("same_match", player=player.name, into=into.name)
    return None


def _reseat(player: Player, seated: Player, *, was: str, action: str, by: str) -> None:
    """Wherever `player` (called `was`) sat, `seated` sits now: the same player renamed, or
    another merged into. A side named after its players takes their names as they now are;
    every sheet they sit at has changed, and its history says why."""
    matches = set(Side.objects.filter(_seated(player)).values_list("match_id", flat=True))
    both = Side.objects.filter(match_id__in=matches).order_by("match_id", "position")
    sides = list(both.select_related("first_player", "second_player"))
    for side in sides:
        named_after_players = side.named_after_players
        for seat in ("first_player", "second_player"):
            if getattr(side, f"{seat}_id") == player.pk:
                setattr(side, seat, seated)
        if named_after_players:
            side.name = pair_name([p.name for p in side.players])
    for _match, seats in groupby(sides, key=attrgetter("match_id")):
        seen: set[str] = set()
        for side in seats:  # two sides, or Terziglio's three players
            if name_key(side.name) in seen:
                raise ServiceError("sides_alike", name=side.name)
            seen.add(name_key(side.name))
    Side.objects.bulk_update(sides, ["first_player", "second_player", "name"])
    Match.objects.filter(pk__in=matches).update(revision=F("revision") + 1)
    Change.objects.bulk_create(
        Change(
            match_id=match,
            action=action,
            by=by[:80],
            old={"player": was},
            new={"player": seated.name},
        )
        for match in sorted(matches)
    )


# --- Matches -----------------------------------------------------------------------------


@atomic
def start_match(
    *,
    table: Table,
    players: Sequence[Sequence[str]],
    side_names: Sequence[str] = ("", ""),
    settings: "rules.MatchSettings | rules.TerziglioTerms | rules.APerdereTerms" = (
        rules.DEFAULT_SETTINGS
    ),
    first_dealer: int = 0,
    evening: rules.Evening | None = None,
    stakes: bool | None = None,
    by: str = "",
) -> Match:
    """Two sides of one or two players each, by name (Terziglio's terms: three sides of
    one; a perdere's, three to five); new names join the table. A side given no name (or only
    its players') is named after its players. `evening` and `stakes`, where given (the
    evening's first match), are how the table counts tonight."""
    game = settings_fields(settings).get("game", rules.Game.TRESSETTE)
    named = [side_name(typed, side) for typed, side in zip(side_names, players, strict=False)]
    named += [side_name("", side) for side in players[len(named) :]]
    if errors := rules.seating_errors(players, named, first_dealer, game):
        raise errors[0]
    seated = [
        [_named(table, name) or _new_player(table, name) for name in side] for side in players
    ]
    names = [
        side_name(typed, [player.name for player in side])
        for typed, side in zip(named, seated, strict=True)
    ]
    return _seat(table, seated, names, settings=settings, first_dealer=first_dealer, by=by,
                 evening=evening, stakes=stakes)  # fmt: skip


def _seat(
    table: Table,
    seated: list[list[Player]],
    side_names: list[str],
    *,
    settings: "rules.MatchSettings | rules.TerziglioTerms | rules.APerdereTerms",
    first_dealer: int,
    by: str,
    evening: rules.Evening | None = None,
    stakes: bool | None = None,
) -> Match:
    """A new match of these players and sides, checked already; the first after a break
    begins the table's evening (rules.begins_evening). It counts the stakes as the table
    does now. The table's row is locked already (_lock_players)."""
    now = timezone.now()
    table = _evening_of(table.pk, now)
    if evening is not None or stakes is not None:
        table = _set_evening(table, evening=evening, stakes=stakes, by=by)
    match = Match(
        table=table,
        stakes=table.stakes,
        started_at=now,
        players_per_side=len(seated[0]),
        first_dealer=first_dealer,
        **settings_fields(settings),
    )
    match.totals = match.declarations = match.declared = match.sweeps = per_side(len(seated))
    if match.a_perdere:
        match.out_after = (None,) * len(seated)  # everyone in
    match.save(force_insert=True)
    Side.objects.bulk_create(
        Side(
            match=match,
            position=position,
            name=side_names[position],
            first_player=players[0],
            second_player=players[1] if len(players) == 2 else None,
        )
        for position, players in enumerate(seated)
    )
    _log(match, Action.MATCH_STARTED, by, new=settings.as_dict())
    return match


def record_deal(
    *,
    match_id: int,
    number: int,
    entry: rules.DealEntry,
    idempotency_key: str = "",
    by: str = "",
    action: str = Action.DEAL_RECORDED,
    page: Page | None = None,
) -> Recorded:
    """Record deal `number`, the one the phone was showing, exactly once.

    The same idempotency key again (a double tap, a retry) returns the deal it made; of a
    deal deleted since, DeletedSince. Another phone's deal already at `number` raises
    DealConflict; nothing is written. `action` is what the log calls it (a deal put back
    is logged as restored). Sent from a table's `page`, a match of another table is not
    found, and a phone that may not change it is refused (_lock).
    """
    try:
        return _record(match_id, number, entry, idempotency_key, by, action, page)
    except IntegrityError:
        # The key is a deal's already: a retry of a deal saved under the number before. The
        # insert said so, and its transaction is undone; what became of the key is read anew.
        if (retried := _resent(match_id, entry, idempotency_key, action)) is None:
            raise
        return retried


@atomic
def _record(
    match_id: int,
    number: int,
    entry: rules.DealEntry,
    idempotency_key: str,
    by: str,
    action: str,
    page: Page | None,
) -> Recorded:
    match = _lock(match_id, page)
    _of_its_game(match, entry)
    if not _plainly_next(match, number) and (
        retried := _retry_of(match, entry, idempotency_key, action)
    ):
        return retried
    _open(match)
    if number <= match.deal_count:
        raise DealConflict(match.deals.get(number=number))
    if number != match.deal_count + 1:  # deals were deleted on another phone meanwhile
        raise StaleChange("renumbered", number=match.deal_count + 1)
    if number > MATCH_DEALS_MAX:
        raise ServiceError("too_many_deals", max=MATCH_DEALS_MAX)
    # Checked and scored from where the match stands, as it keeps it: its earlier deals
    # were checked when they were saved, and every change to them keeps the standing.
    scored, standing = _next_deal(match, entry, new=action == Action.DEAL_RECORDED)
    deal = Deal(match=match, number=number, idempotency_key=idempotency_key)
    deal.set_scored(scored)
    deal.save(force_insert=True)
    _log(match, action, by, deal_number=number, new=_document(deal))
    _changed(match, **match.standing_fields(standing, entry))
    return Recorded(deal, created=True, revision=match.revision)


def _next_deal(
    match: Match, entry: rules.DealEntry, *, new: bool
) -> tuple[rules.ScoredDeal, rules.Standing]:
    """The rules' score of `entry` as the match's next deal (`new`: not a restore). Only a
    refusal names the sides, so their names are read only then."""

    def scored(side_names: tuple[str, ...]) -> tuple[rules.ScoredDeal, rules.Standing]:
        return match.next_deal(entry, side_names, new=new)

    try:
        return scored(("",) * match.side_count)  # names are said only in a refusal
    except rules.DealInvalid:
        return scored(_side_names(match))  # refused again, in the sides' names


@atomic
def _resent(match_id: int, entry: rules.DealEntry, key: str, action: str) -> Recorded | None:
    return _retry_of(_lock(match_id), entry, key, action)


def _plainly_next(match: Match, number: int) -> bool:
    """Deal `number` is the next of a match in play, not yet decided, none of whose deals
    were ever deleted: a key sent again is then of a deal saved, and its insert says so."""
    return (
        match.in_progress
        and match.decided_for is None
        and not match.deletions
        and number == match.deal_count + 1
    )


def _retry_of(match: Match, entry: rules.DealEntry, key: str, action: str) -> Recorded | None:
    """What became of the deal saved under `key`, if one was: the deal itself, sent again
    (a double tap, a retry); DealConflict if sent again with other points; DeletedSince if
    deleted since (a restore, saved under the key of the deal it puts back, is no retry).
    None for a deal never saved, or sent without a key."""
    if not key:
        return None
    saved = match.deals.filter(idempotency_key=key).first()
    if saved is not None:
        if saved.entry != entry:
            raise DealConflict(saved, resent=True)
        return Recorded(saved, created=False)
    deleted = match.deleted_under(key) if action == Action.DEAL_RECORDED else None
    if deleted is not None:
        raise DeletedSince(deleted)
    return None


@atomic
def restore_deal(*, match: Match, number: int, by: str = "") -> Recorded:
    """Put back deal `number`, deleted a moment ago, as the log kept it, while
    Match.deletion_to_restore allows. A second tap (any phone's) changes nothing."""
    match = _lock(match.pk)
    existing = match.deals.filter(number=number).first()
    if existing is not None:
        last = match.changes.filter(deal_number=number).order_by("-id").first()
        if last is not None and last.action == Action.DEAL_RESTORED:
            return Recorded(existing, created=False)
        raise ServiceError("restore_on_sheet", number=number)
    try:
        deleted = match.deletion_to_restore(number)
    except NotRestorable as why:
        raise MatchClosed(str(why)) from None
    entry = entry_from_document(deleted.old, match.game)
    # Under the key it was saved with: a late retry of that save finds it saved.
    key, action = deleted.idempotency_key, Action.DEAL_RESTORED
    return record_deal(match_id=match.pk, number=number, entry=entry, idempotency_key=key, by=by,
                       action=action)  # fmt: skip


@atomic
def edit_deal(*, deal: Deal, version: int, entry: rules.DealEntry, by: str = "") -> Deal:
    """Change a recorded deal; the whole match is scored again. `version` is the deal's
    version the phone was showing: a stale edit is refused."""
    match = _lock(deal.match_id)
    _open(match)
    _of_its_game(match, entry)
    deals = _deals(match)
    current = next((d for d in deals if d.pk == deal.pk), None)
    if current is None or current.version != version:
        raise StaleChange("edited_meanwhile", number=deal.number)
    if entry == current.entry:
        return current  # saved unchanged: nothing to log, no phone needs to draw it again
    old = _document(current)
    entries = [entry if d.pk == current.pk else d.entry for d in deals]
    outcome = _rescored(match, deals, entries, checked_from=current.number, new=current.number)
    Deal.objects.filter(pk=current.pk).update(version=F("version") + 1)
    current.version += 1
    new = _document(current)
    _log(match, Action.DEAL_EDITED, by, deal_number=current.number, old=old, new=new)
    _changed(match, outcome)
    return current


def _rescored(
    match: Match,
    deals: Sequence[Deal],
    entries: list[rules.DealEntry],
    *,
    checked_from: int = 1,
    new: int | None = None,
) -> rules.Outcome:
    """The whole match scored again, after an edit (checked from the edited deal on: those
    after it stand on it) or under new settings (every deal), and what changed stored: an
    edit can change a later sweep's points. A change that decides the match before its
    last deal would strand the deals after it: refused, naming the deal."""
    try:
        outcome = match.score(entries, _side_names(match), checked_from=checked_from, new=new)
    except rules.DealInvalid as invalid:
        if invalid.codes != ["match_decided"]:
            raise
        number = invalid.errors[0].deal_number - 1
        raise ServiceError("decided_before_last", number=number) from None
    for deal, scored in zip(deals, outcome.deals, strict=True):
        if changed := deal.set_scored(scored):
            Deal.objects.filter(pk=deal.pk).update(
                **{name: getattr(deal, name) for name in changed}
            )
    return outcome


@atomic
def delete_last_deal(
    *, match: Match, number: int, by: str = "", revision: int | None = None
) -> Change:
    """Delete the last deal, naming it: a deal another phone just added is never hit. Undo
    also names the `revision` its phone was shown: since then another phone may have
    deleted that deal and entered another under its number. Returns the log's entry."""
    match = _lock(match.pk)
    _open(match)
    if revision is not None and revision != match.revision:
        raise StaleChange("undo_stale", number=number)
    deals = _deals(match)
    if not deals or deals[-1].number != number:
        raise StaleChange("not_last", number=number)
    last = deals[-1]
    logged = _log(match, Action.DEAL_DELETED, by, deal_number=number, old=_document(last),
                  idempotency_key=last.idempotency_key)  # fmt: skip
    last.delete()
    _changed(match, _scored(match, deals[:-1]), deletions=match.deletions + 1)
    return logged


@atomic
def end_match(*, match: Match, by: str = "") -> Match:
    """Bank the result, once the rules say the match is decided. Two phones tapping End
    match together both see it ended: the second changes nothing."""
    _leaves_play(match)
    match = _lock(match.pk)
    if match.finished:
        return match
    _open(match)
    outcome = _scored(match, _deals(match))
    if not outcome.decided:
        raise ServiceError("not_decided_tie" if outcome.another_deal else "not_decided")
    reason = outcome.reason
    _changed(
        match, status=rules.Status.FINISHED, winner=outcome.winner, end_reason=reason,
        finished_at=timezone.now(),
    )  # fmt: skip
    result = {"winner": outcome.winner, "reason": str(reason), "totals": outcome.totals}
    if outcome.claimer is not None:
        result["claimer"] = outcome.claimer
    _log(match, Action.MATCH_ENDED, by, new=result)
    return match


@atomic
def stop_match(*, match: Match, by: str = "") -> Match:
    """Stop a match the rules have not decided (the evening is over): no winner, no stats.
    Reopened, it plays on. A second tap (any phone's) changes nothing."""
    _leaves_play(match)
    match = _lock(match.pk)
    if match.abandoned:
        return match
    _open(match)
    outcome = _scored(match, _deals(match))
    if outcome.decided:
        raise ServiceError("decided_stop")
    _changed(match, status=rules.Status.ABANDONED, finished_at=timezone.now())
    _log(match, Action.MATCH_STOPPED, by, new={"totals": outcome.totals})
    return match


@atomic
def reopen_match(*, match: Match, by: str = "") -> Match:
    """Play on an ended or stopped match; it loses the rematch begun from it. A second tap
    (any phone's) changes nothing."""
    _table_changed(match.table_id)  # it counts in tonight's tally no more, for now
    match = _lock(match.pk)
    if match.in_progress:
        return match
    if match.finished:
        old = {"winner": match.winner, "reason": match.end_reason}
    else:
        old = {"totals": match.totals}
    _changed(
        match, status=rules.Status.IN_PROGRESS, winner=None, end_reason="", finished_at=None,
        next_match=None,
    )  # fmt: skip
    _log(match, Action.MATCH_REOPENED, by, old=old)
    return match


@atomic
def rematch(*, match: Match, by: str = "") -> Match:
    """A new match of an ended or stopped one: the same players, sides and settings; the
    deal passes on to the right, as it would have for one more deal. Once begun, the same
    rematch for every phone that asks (until the match is reopened)."""
    _lock_players(match.table)  # it seats them: not while they are renamed or merged
    match = _lock(match.pk)
    if match.in_progress:
        raise ServiceError("still_played")
    if match.next_match_id is not None:
        return Match.objects.get(pk=match.next_match_id)
    sides = list(match.sides.select_related("first_player", "second_player"))
    if match.a_perdere:  # everyone in again: to the right of the last deal's dealer
        dealer = rules.a_perdere_rematch_dealer(
            match.first_dealer, match.deal_count, match.out_after
        )
    else:
        dealer = rules.dealer_for(
            match.deals.count() + 1, first_dealer=match.first_dealer, seat_count=match.seat_count
        )
    again = _seat(
        match.table,
        [side.players for side in sides],  # as they sat: no name is looked up again
        [side.name for side in sides],
        settings=match.settings,
        first_dealer=dealer,
        by=by,
    )
    _changed(match, next_match=again)  # the phones still showing this sheet are told
    return again


@atomic
def change_settings(
    *,
    match: Match,
    settings: "rules.MatchSettings | rules.TerziglioTerms | rules.APerdereTerms",
    by: str = "",
) -> Match:
    """Change the line, tie rule or claims; the deals so far must still stand under them."""
    match = _lock(match.pk)
    _open(match)
    if settings_fields(settings).get("game", rules.Game.TRESSETTE) != match.game:
        raise ServiceError("other_game")
    old = match.settings
    if settings == old:
        return match
    fields = settings_fields(settings)
    for name, value in fields.items():
        setattr(match, name, value)
    deals = _deals(match)
    outcome = _rescored(match, deals, [deal.entry for deal in deals])
    _changed(match, outcome, **fields)
    _log(match, Action.SETTINGS_CHANGED, by, old=old.as_dict(), new=settings.as_dict())
    return match


# --- The evening -------------------------------------------------------------------------


def _evening_of(table_id: int, now: datetime) -> Table:
    """The table as a match starting `now` finds it, its evening begun anew after a break."""
    if rules.begins_evening(last_play=Table(pk=table_id).last_play(), now=now):
        Table.objects.filter(pk=table_id).update(evening_started_at=now)
    return Table.objects.get(pk=table_id)


def _tonight_in_play(table: Table) -> list[Match]:
    """Tonight's matches still being played, locked, oldest first."""
    if table.evening_started_at is None:
        return []
    ids = (
        Match.objects.filter(
            table=table, status=rules.Status.IN_PROGRESS, started_at__gte=table.evening_started_at
        )
        .order_by("started_at", "pk")
        .values_list("pk", flat=True)
    )
    return [_lock(pk) for pk in ids]


def _evening_settings(table: Table) -> dict:
    """How the table counts its evening, as the change log keeps it."""
    return {"evening": str(table.evening), "stakes": table.stakes}


def _set_evening(
    table: Table, *, evening: rules.Evening | None, stakes: bool | None, by: str
) -> Table:
    """How the table counts its evening from now on; tonight's matches still being played
    take the stakes too (they are not decided yet), and their logs say it. Its row is locked
    (_table_changed) first."""
    _table_changed(table.pk)
    table = Table.objects.get(pk=table.pk)
    old = _evening_settings(table)
    table.evening = rules.Evening(evening if evening is not None else table.evening)
    table.stakes = table.stakes if stakes is None else stakes
    new = _evening_settings(table)
    if new == old:
        return table
    table.save(update_fields=["evening", "stakes"])
    for match in _tonight_in_play(table):
        _changed(match, stakes=table.stakes)
        _log(match, Action.SETTINGS_CHANGED, by, old=old, new=new)
    return table


@atomic
def change_evening(*, table: Table, evening: rules.Evening, stakes: bool, by: str = "") -> Table:
    """Count the evening otherwise: tonight's tally or series first to 2 or 3; the stakes
    on or off. Asked twice, the second changes nothing."""
    return _set_evening(table, evening=evening, stakes=stakes, by=by)


@atomic
def new_evening(*, table: Table) -> Table:
    """A new evening begins now (a scorer says so): tonight's tally starts again from the
    next match started."""
    _table_changed(table.pk)
    table = Table.objects.get(pk=table.pk)
    table.evening_started_at = timezone.now()
    table.save(update_fields=["evening_started_at"])
    return table


# Rows an import writes in one transaction: on SQLite, a save on another table waits for at
# most one such batch, not for the whole import. More rows a batch made those saves wait
# visibly longer in the benchmark's large import (docs/performance.md).
IMPORT_BATCH_ROWS = 200


def import_table(*, document: "TableImport") -> Table:
    """A new table, with new links, from an export checked whole by matches.imports (which
    reads no table, so it runs before any transaction). Written a few matches at a time, a
    transaction each, so that other phones' saves go in between; should one fail, the table
    goes again, whole. No phone knows its links before it is all written."""
    table, players = _imported_table(document)
    try:
        made: list[Match] = []
        for batch in _import_batches(document.matches):
            made += _imported_matches(table, players, batch)
            time.sleep(0.001)  # a writer waiting for the lock takes it now
        _imported_rematches(made, document.matches)
    except BaseException:
        _forget_import(table)
        raise
    return table


@atomic
def _imported_table(document: "TableImport") -> tuple[Table, dict[str, Player]]:
    table = Table.objects.create(
        name=document.name,
        evening=document.evening,
        stakes=document.stakes,
        evening_started_at=document.evening_started_at,
    )
    players = Player.objects.bulk_create(
        Player(table=table, name=name) for name in document.players
    )
    return table, {player.name: player for player in players}


def _import_batches(matches: Sequence["MatchImport"]) -> list[list["MatchImport"]]:
    """The matches in batches of about IMPORT_BATCH_ROWS rows (its deals and its log)."""
    batches: list[list[MatchImport]] = [[]]
    rows = 0
    for imported in matches:
        if rows >= IMPORT_BATCH_ROWS:
            batches.append([])
            rows = 0
        batches[-1].append(imported)
        rows += 1 + len(imported.outcome.deals) + len(imported.log)
    return batches


@atomic
def _imported_matches(
    table: Table, players: dict[str, Player], batch: list["MatchImport"]
) -> list[Match]:
    matches = Match.objects.bulk_create(
        Match(
            table=table,
            players_per_side=len(imported.players[0]),
            first_dealer=imported.first_dealer,
            status=imported.status,
            winner=imported.winner,
            end_reason=imported.end_reason or "",
            started_at=imported.started_at,
            finished_at=imported.finished_at,
            stakes=imported.stakes,
            **outcome_fields(imported.outcome),
            **settings_fields(imported.settings),
        )
        for imported in batch
    )
    pairs = list(zip(matches, batch, strict=True))
    Side.objects.bulk_create(
        Side(
            match=match,
            position=position,
            name=imported.side_names[position],
            first_player=players[names[0]],
            second_player=players[names[1]] if len(names) == 2 else None,
        )
        for match, imported in pairs
        for position, names in enumerate(imported.players)
    )
    Deal.objects.bulk_create(
        _imported_deal(match, scored)
        for match, imported in pairs
        for scored in imported.outcome.deals
    )
    Change.objects.bulk_create(
        Change(match=match, at=entry.at, action=entry.action, by=entry.by,
               deal_number=entry.deal_number, old=entry.old, new=entry.new)
        for match, imported in pairs
        for entry in imported.log
    )  # fmt: skip
    return matches


@atomic
def _imported_rematches(made: list[Match], matches: Sequence["MatchImport"]) -> None:
    """Each match begun as another's rematch, linked to it (it may be in a later batch)."""
    linked = []
    for match, imported in zip(made, matches, strict=True):
        if imported.rematch is not None:
            match.next_match = made[imported.rematch - 1]
            linked.append(match)
    Match.objects.bulk_update(linked, ["next_match"], batch_size=500)


@atomic
def _forget_import(table: Table) -> None:
    """An import that failed part way: nothing of it stays."""
    Match.objects.filter(table=table).delete()
    table.delete()


def _imported_deal(match: Match, scored: rules.ScoredDeal) -> Deal:
    deal = Deal(match=match, number=scored.number)
    deal.set_scored(scored)
    return deal
