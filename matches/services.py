"""Every write the app makes. Each service is atomic and asks `matches.rules` first.

Views, forms, commands and the admin call these; none of them writes a model directly.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import batched

from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches import exports, rules
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
    Status,
    Table,
    TieRule,
    name_key,
    new_token,
    pair_name,
    side_name,
)
from matches.sheet import forget_state


class ServiceError(Exception):
    """A refusal the person can act on; `message` is already in words."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(str(message))


class DealConflict(ServiceError):
    """Another phone already recorded the deal number this phone was showing, or (`resent`)
    this phone did, with other points: a save that got through although its answer was lost,
    then changed and sent again."""

    def __init__(self, deal: Deal, *, resent: bool = False) -> None:
        self.deal = deal
        self.resent = resent
        message = (
            _("Deal %(number)s was already saved from this phone, with other points.")
            if resent
            else _("Deal %(number)s was just entered on another phone.")
        )
        super().__init__(message % {"number": deal.number})


class StaleChange(ServiceError):
    """The phone acted on a sheet that has changed since it was shown."""


class MatchClosed(ServiceError):
    """The match is finished: reopen it first."""


class NameTaken(ServiceError):
    """A player's name must be unique at a table, whatever its case. `player` has it."""

    def __init__(self, message: str, player: Player) -> None:
        super().__init__(message)
        self.player = player


@dataclass(frozen=True)
class Recorded:
    """What record_deal did. A new deal comes with the match as it now stands, and its outcome."""

    deal: Deal
    created: bool
    match: Match | None = None
    outcome: rules.Outcome | None = None


# --- Tables and players -------------------------------------------------------


@atomic
def create_table(*, name: str) -> Table:
    return Table.objects.create(name=name.strip())


def table_for_scorer_link(*, token: str) -> Table | None:
    return Table.objects.filter(scorer_token=token).first()


@atomic
def rotate_link(*, table: Table, which: str) -> Table:
    """A new scorer or view-only link; the old one stops working at once."""
    field = {"scorer": "scorer_token", "viewer": "viewer_token"}[which]
    setattr(table, field, new_token())
    table.save(update_fields=[field])
    forget_state(table.matches.values_list("pk", flat=True))
    return table


def _lock_players(table: Table, *players: Player) -> list[Player]:
    """Those seating, adding, renaming or merging players at `table` take turns; `players`
    are read again once it is this one's turn (another phone may have renamed one, or merged
    it away, meanwhile).

    No key update: it waits for the others changing players, not for writes that merely
    point at the table (a new deal, say). Always before any match's lock: one order for all.
    """
    Table.objects.select_for_update(no_key=True).only("pk").get(pk=table.pk)
    fresh = Player.objects.in_bulk([player.pk for player in players])
    if len(fresh) < len(players):
        raise ServiceError(
            _("This player has just been merged into another: look at the list of players again.")
        )
    return [fresh[player.pk] for player in players]


def _named(table: Table, name: str, *, exclude: int | None = None) -> Player | None:
    """The table's player of this name, compared as the import compares them (name_key).

    Not `iexact`: SQLite folds only A to Z, so "Élodie" and "élodie" would both get in, and
    the table's own export could not be imported again. A table has a few dozen players.
    Every caller is about to add or rename one: the table's row is locked first, so two
    phones adding "Élodie" and "élodie" at once take turns and the second is told.
    """
    _lock_players(table)
    wanted = name_key(name)
    alike = [
        player for player in table.players.exclude(pk=exclude) if name_key(player.name) == wanted
    ]
    # The very name first: a table from before accents were set aside may hold both spellings.
    exact = [player for player in alike if player.name == name.strip()]
    return (exact or alike or [None])[0]


def _taken(player: Player) -> NameTaken:
    return NameTaken(_("%(name)s already plays at this table.") % {"name": player.name}, player)


@atomic
def add_player(*, table: Table, name: str) -> Player:
    if (same := _named(table, name)) is not None:
        raise _taken(same)
    return _new_player(table, name)


@atomic
def rename_player(*, player: Player, name: str, by: str = "") -> Player:
    name = name.strip()
    (player,) = _lock_players(player.table, player)
    if (same := _named(player.table, name, exclude=player.pk)) is not None:
        raise _taken(same)
    was, player.name = player.name, name
    # Before the name is saved: the sides still hold the old one.
    _reseat(player, player, was=was, action=Action.PLAYER_RENAMED, by=by)
    player.save(update_fields=["name"])
    return player


@atomic
def merge_players(*, player: Player, into: Player, by: str = "") -> Player:
    """One person entered twice ("Giani" beside "Gianni"): `player`'s matches become
    `into`'s, whose stats then count them all, and `player` leaves the table's list. It
    cannot be undone; the history of each of those matches says it was done.

    Refused when both sat at one match: they are two people, not one.
    """
    if into.table_id != player.table_id or into.pk == player.pk:
        raise ServiceError(_("Choose another player of this table."))
    player, into = _lock_players(player.table, player, into)
    if (refusal := merge_refusal(player=player, into=into)) is not None:
        raise ServiceError(refusal)
    _reseat(player, into, was=player.name, action=Action.PLAYERS_MERGED, by=by)
    player.delete()
    return into


def _named_apart(names: Sequence[str]) -> None:
    """The sheet, its messages and the exports tell a match's two sides apart by name."""
    if name_key(names[0]) == name_key(names[1]):
        raise ServiceError(
            _("Both sides are called “%(name)s”: give one of them another name.")
            % {"name": names[1]}
        )


def merge_refusal(*, player: Player, into: Player) -> str | None:
    """Why `player` cannot be merged into `into` (both sat at one match), or None."""
    theirs = Side.objects.filter(_seated(player)).values("match_id")
    if Side.objects.filter(_seated(into), match_id__in=theirs).exists():
        return _("%(player)s and %(into)s played in the same match: they are two people.") % {
            "player": player.name,
            "into": into.name,
        }
    return None


def _seated(player: Player) -> Q:
    return Q(first_player=player) | Q(second_player=player)


def _reseat(player: Player, seated: Player, *, was: str, action: str, by: str) -> None:
    """Wherever `player` (called `was`) sat, `seated` sits now: the same player renamed, or
    another one merged into. A side named after its players ("Alice & Dino", unless the table
    named it) takes their names as they now are, so a rename mends a typo on every sheet;
    every sheet they sit at has changed (they show who deals), and its history says why."""
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
    for first, second in batched(sides, 2, strict=True):  # every match has two sides
        if name_key(first.name) == name_key(second.name):
            raise ServiceError(
                _(
                    "Both sides of a match would then be called “%(name)s”, and its sheet could "
                    "not tell them apart."
                )
                % {"name": second.name}
            )
    Side.objects.bulk_update(sides, ["first_player", "second_player", "name"])
    Match.objects.filter(pk__in=matches).update(revision=F("revision") + 1)
    forget_state(matches)
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


def _player_named(table: Table, name: str) -> Player:
    return _named(table, name) or _new_player(table, name)


def _new_player(table: Table, name: str) -> Player:
    """A player who joins the table (whose row _named has locked), while there is room."""
    if table.players.count() >= TABLE_PLAYERS_MAX:
        raise ServiceError(
            _(
                "A table holds at most %(max)s players: merge the ones entered twice, "
                "or start a new table."
            )
            % {"max": TABLE_PLAYERS_MAX}
        )
    return Player.objects.create(table=table, name=name.strip())


# --- Matches ------------------------------------------------------------------


@atomic
def start_match(
    *,
    table: Table,
    players: Sequence[Sequence[str]],
    side_names: Sequence[str] = ("", ""),
    line: int = rules.DEFAULT_LINE,
    tie_rule: str = TieRule.HIGHER_TOTAL,
    claims_allowed: bool = False,
    first_dealer: int = 0,
    by: str = "",
) -> Match:
    """Two sides of one or two players each, by name; new names join the table."""
    per_side = len(players[0])
    if len(players) != 2 or per_side not in (1, 2) or len(players[1]) != per_side:
        raise ServiceError(_("Each side needs the same number of players: one or two."))
    names = [name_key(name) for side in players for name in side]
    if len(set(names)) != len(names):
        raise ServiceError(_("A player can sit only once at a match."))
    seated = [[_player_named(table, name) for name in side] for side in players]
    named = [
        side_name(typed or "", [player.name for player in side])
        for typed, side in zip(side_names, seated, strict=True)
    ]
    _named_apart(named)
    return _seat(
        table,
        seated,
        named,
        line=line,
        tie_rule=tie_rule,
        claims_allowed=claims_allowed,
        first_dealer=first_dealer,
        by=by,
    )


def _seat(
    table: Table,
    seated: list[list[Player]],
    side_names: list[str],
    *,
    line: int,
    tie_rule: str,
    claims_allowed: bool,
    first_dealer: int,
    by: str,
) -> Match:
    """A new match of these players and sides, checked already."""
    match = Match.objects.create(
        table=table,
        line=rules.check_line(line),
        tie_rule=TieRule(tie_rule),
        claims_allowed=claims_allowed,
        players_per_side=len(seated[0]),
        first_dealer=first_dealer,
    )
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
    _log(match, Action.MATCH_STARTED, by, new=_settings(match))
    return match


def _settings(match: Match) -> dict:
    return {
        "line": match.line,
        "tie_rule": match.tie_rule,
        "claims_allowed": match.claims_allowed,
    }


def _log(match: Match, action: str, by: str, **values) -> Change:
    return Change.objects.create(match=match, action=action, by=by[:80], **values)


def _lock(match: Match) -> Match:
    """The match row, locked until the transaction ends.

    PostgreSQL takes a row lock; on SQLite writers take turns (see matches.db).
    """
    return Match.objects.select_for_update(no_key=True).get(pk=match.pk)


def _touch(match: Match, scored: rules.Outcome | None = None, **fields) -> None:
    """Save `fields` (and the totals the rules `scored`, and the side they say wins once they
    decide the match) and bump the revision.

    The revision is the sheet's ETag: every phone's next poll sees the change.
    """
    if scored is not None:
        # The rules name a winner only once they decide the match.
        fields.update(total_0=scored.totals[0], total_1=scored.totals[1], decided_for=scored.winner)
    Match.objects.filter(pk=match.pk).update(revision=F("revision") + 1, **fields)
    forget_state([match.pk])
    # The row is locked (see _lock): nobody else changed the revision since it was read.
    match.revision += 1
    for name, value in fields.items():
        setattr(match, name, value)


def _deals(match: Match) -> list[Deal]:
    return list(match.deals.order_by("number"))


def _open(match: Match) -> None:
    if (why := match.why_closed) is not None:
        raise MatchClosed(why)


@atomic
def record_deal(
    *,
    match: Match,
    number: int,
    entry: rules.DealEntry,
    idempotency_key: str = "",
    by: str = "",
    sides: Sequence[Side] | None = None,
    action: str = Action.DEAL_RECORDED,
) -> Recorded:
    """Record deal `number`, the one the phone was showing, exactly once.

    The same idempotency key again (a double tap, a retry) returns the deal it made.
    Another phone's deal already at `number` raises DealConflict; nothing is written.
    `sides`, when the caller has them, spares reading them again: their names are in messages.
    `action` is what the log calls it (a deal put back is logged as restored).
    """
    match = _lock(match)
    deals = _deals(match)
    if idempotency_key:
        done = next((deal for deal in deals if deal.idempotency_key == idempotency_key), None)
        if done is not None and done.entry() != entry:
            raise DealConflict(done, resent=True)
        if done is not None:
            return Recorded(done, created=False)
    _open(match)
    if number <= len(deals):
        raise DealConflict(deals[number - 1])
    if number != len(deals) + 1:
        # Deals were deleted on another phone meanwhile; the form comes back numbered anew.
        raise StaleChange(
            _(
                "Another phone deleted a deal meanwhile: this one is now deal %(number)s. "
                "Check the sheet, then save again."
            )
            % {"number": len(deals) + 1}
        )
    if number > MATCH_DEALS_MAX:
        raise ServiceError(
            _(
                "A match holds at most %(max)s deals: stop this one, undecided, and start "
                "a new match."
            )
            % {"max": MATCH_DEALS_MAX}
        )
    # Every deal so far and the new one, which alone is checked (the others were checked
    # when they were stored); the outcome is what the sheet shows next.
    outcome = match.score(
        [*(deal.entry() for deal in deals), entry],
        sides,
        checked_from=len(deals) + 1,
        typed=len(deals) + 1 if action == Action.DEAL_RECORDED else None,  # a restore is not
    )
    scored = outcome.deals[-1]
    deal = Deal.objects.create(
        match=match,
        number=number,
        idempotency_key=idempotency_key,
        **_deal_fields(entry, scored.points),
    )
    _log(match, action, by, deal_number=number, new=deal.values())
    _touch(match, scored=outcome)
    return Recorded(deal, created=True, match=match, outcome=outcome)


@atomic
def restore_deal(*, match: Match, number: int, by: str = "") -> Recorded:
    """Put back deal `number`, deleted a moment ago, as the change log kept it, while
    Match.deletion_to_restore allows; else refused in words (the log still keeps it). A
    second tap (this phone's or another's) changes nothing.
    """
    match = _lock(match)
    existing = match.deals.filter(number=number).first()
    if existing is not None:
        last = match.changes.filter(deal_number=number).order_by("-id").first()
        if last is not None and last.action == Action.DEAL_RESTORED:
            return Recorded(existing, created=False)
        raise ServiceError(
            _("Deal %(number)s is on the sheet already: nothing to restore.") % {"number": number}
        )
    try:
        deleted = match.deletion_to_restore(number)
    except NotRestorable as why:
        raise ServiceError(str(why)) from None
    entry = Deal.entry_from_values(deleted.old)
    return record_deal(match=match, number=number, entry=entry, by=by, action=Action.DEAL_RESTORED)


def _deal_fields(entry: rules.DealEntry, points: tuple[int, int]) -> dict:
    return {
        "kind": str(entry.kind),
        "side": entry.side,
        "card_points_0": entry.card_points[0],
        "card_points_1": entry.card_points[1],
        "declared_points_0": entry.declared_points[0],
        "declared_points_1": entry.declared_points[1],
        "points_0": points[0],
        "points_1": points[1],
    }


@atomic
def edit_deal(*, deal: Deal, version: int, entry: rules.DealEntry, by: str = "") -> Deal:
    """Change a recorded deal; the whole match is scored again.

    `version` is the deal's version the phone was showing: a stale edit is refused.
    """
    match = _lock(deal.match)
    _open(match)
    deals = _deals(match)
    current = next((d for d in deals if d.pk == deal.pk), None)
    if current is None or current.version != version:
        raise StaleChange(
            _("Deal %(number)s was changed on another phone meanwhile. Check it and try again.")
            % {"number": deal.number}
        )
    if entry == current.entry():
        return current  # saved unchanged: nothing to log, no phone needs to redraw
    entries = [entry if d.pk == current.pk else d.entry() for d in deals]
    old = current.values()
    result = _rescored(match, entries, checked_from=current.number, typed=current.number)
    _store_scores(deals, result)
    Deal.objects.filter(pk=current.pk).update(version=F("version") + 1)
    current.version += 1
    _log(match, Action.DEAL_EDITED, by, deal_number=current.number, old=old, new=current.values())
    _touch(match, scored=result)
    return current


def _rescored(
    match: Match, entries: list[rules.DealEntry], checked_from: int = 1, typed: int | None = None
) -> rules.Outcome:
    """The whole match scored again, after an edit (checked from the edited deal on: the
    deals after it stand on it) or under new settings (every deal checked).

    A change that decides the match before its last deal would strand the deals after it:
    that is refused in words, naming the deal where the match would now end.
    """
    try:
        return match.score(entries, checked_from=checked_from, typed=typed)
    except rules.DealInvalid as invalid:
        if invalid.codes != ["match_decided"]:
            raise
        decided = invalid.errors[0].deal_number - 1
        raise ServiceError(
            _(
                "With this change the match is decided at deal %(number)s, "
                "and deals after it are on the sheet: delete them first."
            )
            % {"number": decided}
        ) from None


def _store_scores(deals: Sequence[Deal], result: rules.Outcome) -> None:
    """Write back what the rules scored: an edit can change later deals (a sweep's points)."""
    for row, scored in zip(deals, result.deals, strict=True):
        fields = _deal_fields(scored.entry, scored.points)
        changed = {key: value for key, value in fields.items() if getattr(row, key) != value}
        if changed:
            Deal.objects.filter(pk=row.pk).update(**changed)
            for key, value in changed.items():
                setattr(row, key, value)


@atomic
def delete_last_deal(
    *, match: Match, number: int, by: str = "", revision: int | None = None
) -> Change:
    """Delete the last deal, naming it: a deal another phone just added is never hit.
    Undo also names the `revision` its phone was shown: since then, another phone may have
    deleted that deal and entered another under its number.
    Returns the log's entry of it (a deletion the other phones are told of)."""
    match = _lock(match)
    _open(match)
    if revision is not None and revision != match.revision:
        raise StaleChange(
            _("The sheet has changed since deal %(number)s was saved: check it before undoing.")
            % {"number": number}
        )
    last = match.deals.order_by("-number").first()
    if last is None or last.number != number:
        raise StaleChange(
            _("Deal %(number)s is no longer the last deal. Check the sheet and try again.")
            % {"number": number}
        )
    logged = _log(match, Action.DEAL_DELETED, by, deal_number=number, old=last.values())
    last.delete()
    deals = _deals(match)
    _touch(match, scored=match.outcome(deals))
    return logged


@atomic
def end_match(*, match: Match, by: str = "") -> Match:
    """Bank the result; only once the rules say the match is decided. Two phones tapping
    End match together both see it ended: the second changes nothing."""
    match = _lock(match)
    if match.status == Status.FINISHED:
        return match
    _open(match)
    result = match.outcome(_deals(match))
    if not result.decided:
        raise ServiceError(
            _("The match is not decided yet: play another deal.")
            if result.another_deal
            else _("The match is not decided yet: no side has reached the line.")
        )
    _touch(
        match,
        status=Status.FINISHED,
        winner=result.winner,
        end_reason=result.reason.value,
        finished_at=timezone.now(),
    )
    _log(
        match,
        Action.MATCH_ENDED,
        by,
        new={
            "winner": result.winner,
            "reason": result.reason.value,
            "totals": result.totals,
            **({"claimer": result.claimer} if result.claimer is not None else {}),
        },
    )
    return match


@atomic
def stop_match(*, match: Match, by: str = "") -> Match:
    """Stop a match the rules have not decided (the evening is over): no winner, and it
    counts in no stats. Reopened, it plays on from where it stopped. A second tap (this
    phone's or another's) changes nothing."""
    match = _lock(match)
    if match.status == Status.ABANDONED:
        return match
    _open(match)
    result = match.outcome(_deals(match))
    if result.decided:
        raise ServiceError(_("The match is decided: tap End match to bank the result."))
    _touch(match, status=Status.ABANDONED, finished_at=timezone.now())
    _log(match, Action.MATCH_STOPPED, by, new={"totals": result.totals})
    return match


@atomic
def reopen_match(*, match: Match, by: str = "") -> Match:
    """Play on an ended or stopped match. A second tap (this phone's or another's) changes
    nothing."""
    match = _lock(match)
    if not match.is_finished:
        return match
    if match.status == Status.FINISHED:
        old = {"winner": match.winner, "reason": match.end_reason}
    else:
        old = {"totals": (match.total_0, match.total_1)}
    # Played on, it will have a rematch of its own, not the one begun before.
    _touch(
        match,
        status=Status.IN_PROGRESS,
        winner=None,
        end_reason="",
        finished_at=None,
        next_match=None,
    )
    _log(match, Action.MATCH_REOPENED, by, old=old)
    return match


@atomic
def rematch(*, match: Match, by: str = "") -> Match:
    """A new match of an ended or stopped one: the same players, sides and settings; the
    deal passes on to the right, as it would have for one more deal. Once started, the same
    rematch for every phone that asks (until the match is reopened)."""
    _lock_players(match.table)  # it seats them: not while they are renamed or merged
    match = _lock(match)
    if not match.is_finished:
        raise ServiceError(_("This match is still being played: end or stop it first."))
    if match.next_match_id is not None:
        return Match.objects.get(pk=match.next_match_id)
    sides = list(match.sides.select_related("first_player", "second_player"))
    again = _seat(
        match.table,
        [side.players for side in sides],  # as they sat: no name is looked up again
        [side.name for side in sides],
        **_settings(match),
        first_dealer=rules.dealer_for(
            match.deals.count() + 1, first_dealer=match.first_dealer, seat_count=match.seat_count
        ),
        by=by,
    )
    _touch(match, next_match=again)  # the phones still showing this sheet are told
    return again


@atomic
def change_settings(
    *, match: Match, line: int, tie_rule: str, claims_allowed: bool, by: str = ""
) -> Match:
    """Change the line, tie rule or claims; the deals so far must still stand under them."""
    match = _lock(match)
    _open(match)
    old = _settings(match)
    match.line, match.tie_rule, match.claims_allowed = line, TieRule(tie_rule), claims_allowed
    deals = _deals(match)
    result = _rescored(match, [deal.entry() for deal in deals])
    _store_scores(deals, result)
    new = _settings(match)
    if new != old:
        _touch(
            match,
            scored=result,
            line=line,
            tie_rule=tie_rule,
            claims_allowed=claims_allowed,
        )
        _log(match, Action.SETTINGS_CHANGED, by, old=old, new=new)
    return match


def import_table(*, document: dict) -> Table:
    """A new table, with new links, from a JSON export (see docs/export-format.md).

    The whole file is checked first, every deal by the rules, which also score it: nothing is
    written unless all of it is right, else exports.ImportInvalid lists what is wrong. The
    check reads no table, so it runs before the write transaction: on SQLite every other
    writer would wait for it.
    """
    return _write_import(exports.validate_document(document))


@atomic
def _write_import(valid: exports.TableImport) -> Table:
    table = Table.objects.create(name=valid.name)
    players = {
        player.name: player
        for player in Player.objects.bulk_create(
            Player(table=table, name=name) for name in valid.players
        )
    }
    matches = Match.objects.bulk_create(
        Match(
            table=table,
            line=imported.match_rules.line,
            tie_rule=imported.match_rules.tie_rule,
            claims_allowed=imported.match_rules.claims_allowed,
            players_per_side=len(imported.players[0]),
            first_dealer=imported.first_dealer,
            status=imported.status,
            winner=imported.winner,
            end_reason=imported.end_reason,
            started_at=imported.started_at,
            finished_at=imported.finished_at,
            total_0=imported.outcome.totals[0],
            total_1=imported.outcome.totals[1],
            decided_for=imported.outcome.winner,
        )
        for imported in valid.matches
    )
    pairs = list(zip(matches, valid.matches, strict=True))
    for match, imported in pairs:
        if imported.rematch is not None:
            match.next_match = matches[imported.rematch - 1]
    Match.objects.bulk_update([m for m in matches if m.next_match is not None], ["next_match"])
    Side.objects.bulk_create(
        Side(
            match=match,
            position=position,
            name=imported.match_rules.side_names[position],
            first_player=players[names[0]],
            second_player=players[names[1]] if len(names) == 2 else None,
        )
        for match, imported in pairs
        for position, names in enumerate(imported.players)
    )
    deals = (
        Deal(match=match, number=scored.number, **_deal_fields(scored.entry, scored.points))
        for match, imported in pairs
        for scored in imported.outcome.deals
    )
    changes = (
        Change(
            match=match,
            at=entry.at,
            action=entry.action,
            by=entry.by,
            deal_number=entry.deal_number,
            old=entry.old,
            new=entry.new,
        )
        for match, imported in pairs
        for entry in imported.log
    )
    # In batches, so 100,000 deals never sit in memory as model instances all at once.
    for batch in batched(deals, 1000, strict=False):
        Deal.objects.bulk_create(batch)
    for batch in batched(changes, 1000, strict=False):
        Change.objects.bulk_create(batch)
    return table
