"""What the sheet stores. Every rule a row must satisfy is also a database constraint.

The scoring itself lives in `matches.rules`; these models only keep its inputs and results.
"""

import re
import secrets
import unicodedata
from collections.abc import Sequence

from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches import rules

NAME_MAX = 40
TABLE_NAME_MAX = 60
SIDE_NAME_MAX = 2 * NAME_MAX + 3
# What one match and one table hold: far beyond any evening (a match to 101 is decided by
# about deal 19, and only sides level past the line play on), and little enough that every
# page stays quick, whatever is typed or uploaded.
MATCH_DEALS_MAX = 300
TABLE_PLAYERS_MAX = 500


def new_token() -> str:
    """A secret link token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


class Table(models.Model):
    """The group that plays together. No accounts: two secret links give access."""

    name = models.CharField(_("name"), max_length=TABLE_NAME_MAX)
    scorer_token = models.CharField(max_length=64, unique=True, default=new_token)
    viewer_token = models.CharField(max_length=64, unique=True, default=new_token)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(name__regex=r"\S"), name="table_name_not_blank"),
            models.CheckConstraint(
                condition=~Q(scorer_token=F("viewer_token")), name="table_tokens_differ"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def players_by_name(self) -> "list[Player]":
        """The table's players in the order people look for a name (see sort_key)."""
        return sorted(self.players.all(), key=lambda player: sort_key(player.name))


# Characters that change nothing one can see in a name: the joiner and variation selectors
# inside emoji (so 😀 and 😀 + U+FE0F are one name), Mongolian variation selectors, Khmer
# inherent vowels, and letters that draw as a blank.
_UNSEEN = re.compile("[\u200d\u034f\u180b-\u180f\u17b4\u17b5\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_BLANK = "\u3164\u2800\u115f\u1160\uffa0"
# The accents of Latin, Greek and Cyrillic letters, once apart from them (NFD); not the vowel
# signs of scripts such as Devanagari, which make another name.
_ACCENTS = re.compile("[\u0300-\u036f]")
# Letters whose stroke or slash no decomposition takes off: "Łukasz" is Lukasz typed on a
# phone without Polish, as "Niccolò" is Niccolo. Applied after casefold (Ł is ł by then).
_PLAIN = str.maketrans(
    {"đ": "d", "ħ": "h", "\u0131": "i", "ł": "l", "ø": "o", "ŧ": "t", "æ": "ae", "œ": "oe"}
)


def name_key(name: str) -> str:
    """What makes two names the same player: case (beyond A to Z), accents and unseen
    characters do not count. "Élodie" is "elodie"; "Strauß" is "STRAUSS"; "Niccolo" is
    Niccolò typed without accents, "Lukasz" Łukasz. An empty key is no name at all, as are
    marks with no letter to sit on."""
    key = _UNSEEN.sub("", name).strip(f"{_BLANK} \t\n")
    if all(unicodedata.category(char).startswith("M") for char in key):
        return ""
    return _ACCENTS.sub("", unicodedata.normalize("NFD", key)).casefold().translate(_PLAIN)


def sort_key(name: str) -> tuple[str, str]:
    """Where a name goes in a list, as people alphabetise: accents, case and unseen
    characters aside, so Élodie comes between Dino and Zoë (and the name itself breaks ties).
    The database's own order (Lower) knows no better than A to Z on SQLite: lists shown to
    people are sorted with this."""
    letters = unicodedata.normalize("NFKD", _UNSEEN.sub("", name))
    return "".join(c for c in letters if not unicodedata.combining(c)).casefold().translate(
        _PLAIN
    ), name


class Player(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="players")
    name = models.CharField(_("name"), max_length=NAME_MAX)

    class Meta:
        ordering = [Lower("name")]
        constraints = [
            models.UniqueConstraint(
                "table",
                Lower("name"),
                name="player_name_unique_per_table",
                violation_error_message=_("This table already has a player with that name."),
            ),
            models.CheckConstraint(condition=Q(name__regex=r"\S"), name="player_name_not_blank"),
        ]

    def __str__(self) -> str:
        return self.name


class TieRule(models.TextChoices):
    HIGHER_TOTAL = (
        rules.TieRule.HIGHER_TOTAL,
        _("Higher total wins; equal totals play another deal"),
    )
    ANOTHER_DEAL = rules.TieRule.ANOTHER_DEAL, _("Always play another deal")


class Status(models.TextChoices):
    IN_PROGRESS = "in_progress", _("In progress")
    FINISHED = "finished", _("Finished")
    # The evening ended before the rules decided it: no winner; reopened, it plays on.
    ABANDONED = "abandoned", _("Stopped, undecided")


class EndReason(models.TextChoices):
    LINE = rules.EndReason.LINE, _("reached the line")
    CAPPOTTO = rules.EndReason.CAPPOTTO, _("cappotto")
    STRAMAZZO = rules.EndReason.STRAMAZZO, _("stramazzo")
    CLAIM = rules.EndReason.CLAIM, _("claim")


class DealKind(models.TextChoices):
    NORMAL = rules.DealKind.NORMAL, _("Normal")
    CAPPOTTO = rules.DealKind.CAPPOTTO, _("Cappotto")
    STRAMAZZO = rules.DealKind.STRAMAZZO, _("Stramazzo")
    CLAIM = rules.DealKind.CLAIM, _("Claim")


class NotRestorable(Exception):
    """A deleted deal cannot be put back; the message says why, in words."""


class Match(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="matches")
    line = models.PositiveSmallIntegerField(_("line"), default=rules.DEFAULT_LINE)
    tie_rule = models.CharField(
        _("tie rule"), max_length=20, choices=TieRule, default=TieRule.HIGHER_TOTAL
    )
    claims_allowed = models.BooleanField(_("claims allowed"), default=False)
    players_per_side = models.PositiveSmallIntegerField(default=2)
    first_dealer = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=20, choices=Status, default=Status.IN_PROGRESS)
    winner = models.PositiveSmallIntegerField(null=True, blank=True)
    end_reason = models.CharField(max_length=20, choices=EndReason, blank=True, default="")
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The running totals as the rules last scored them, for lists that show many matches; and
    # the side the rules say wins by its deals, once they decide it (a match in progress then
    # waits for End match), else None.
    total_0 = models.PositiveIntegerField(default=0)
    total_1 = models.PositiveIntegerField(default=0)
    decided_for = models.PositiveSmallIntegerField(null=True, blank=True)
    # Bumped by every change: the sheet's ETag, so an unchanged sheet answers 304.
    revision = models.PositiveIntegerField(default=1)
    # The rematch started from this match: a second phone's Rematch opens it, not another.
    next_match = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="previous_match"
    )

    class Meta:
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["table", "status", "-started_at"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(line__gte=rules.MIN_LINE, line__lte=rules.MAX_LINE),
                name="match_line_in_range",
            ),
            models.CheckConstraint(
                condition=Q(players_per_side__in=[1, 2]), name="match_one_or_two_per_side"
            ),
            models.CheckConstraint(
                condition=Q(first_dealer__lt=2 * F("players_per_side")),
                name="match_first_dealer_is_a_seat",
            ),
            models.CheckConstraint(condition=Q(winner__in=[0, 1]), name="match_winner_is_a_side"),
            models.CheckConstraint(
                condition=Q(tie_rule__in=TieRule.values), name="match_tie_rule_valid"
            ),
            models.CheckConstraint(
                condition=(
                    Q(
                        status=Status.IN_PROGRESS,
                        winner__isnull=True,
                        end_reason="",
                        finished_at__isnull=True,
                    )
                    | Q(
                        status=Status.FINISHED,
                        winner__isnull=False,
                        end_reason__in=EndReason.values,
                        finished_at__isnull=False,
                    )
                    | Q(
                        status=Status.ABANDONED,
                        winner__isnull=True,
                        end_reason="",
                        finished_at__isnull=False,
                    )
                ),
                name="match_finished_has_result",
            ),
            # A rematch is begun from an ended or stopped match; reopened, it has none.
            models.CheckConstraint(
                condition=Q(next_match__isnull=True) | ~Q(status=Status.IN_PROGRESS),
                name="match_rematch_only_when_closed",
            ),
        ]

    def __str__(self) -> str:
        return f"Match {self.pk}"

    @property
    def seat_count(self) -> int:
        return rules.seats(self.players_per_side)

    @property
    def is_finished(self) -> bool:
        """Ended or stopped: nothing changes until it is reopened."""
        return self.status != Status.IN_PROGRESS

    @property
    def why_closed(self) -> str | None:
        """Why its deals cannot change now, in words; None while it is in progress."""
        if self.status == Status.ABANDONED:
            return _("This match was stopped. Reopen it to change it.")
        if self.is_finished:
            return _("This match is finished. Reopen it to change it.")
        return None

    def deletion_to_restore(self, number: int) -> "Change":
        """The log entry of deal `number`'s deletion, while Restore may put the deal back:
        the match is played, the deal would be the next one, nothing was entered or edited
        since it was deleted (it would stand on other deals than it did), and the log keeps
        enough of it (an imported log may keep its points only). Else NotRestorable, saying
        why in words."""
        if (why := self.why_closed) is not None:
            raise NotRestorable(why)
        # The latest deletion logged, by id: an imported log's times may say anything.
        deleted = (
            self.changes.filter(action=Action.DEAL_DELETED, deal_number=number)
            .order_by("-id")
            .first()
        )
        if deleted is None:
            raise NotRestorable(
                _("Deal %(number)s was not deleted: nothing to restore.") % {"number": number}
            )
        if number != self.deals.count() + 1:
            raise NotRestorable(
                _("Deal %(number)s can be restored only while it would be the next deal.")
                % {"number": number}
            )
        since = self.changes.filter(
            pk__gt=deleted.pk, action__in=(Action.DEAL_RECORDED, Action.DEAL_EDITED)
        )
        if since.exists():
            raise NotRestorable(
                _("Deal %(number)s can no longer be restored: deals were entered or edited since.")
                % {"number": number}
            )
        try:
            Deal.entry_from_values(deleted.old)
        except (KeyError, TypeError, ValueError):
            raise NotRestorable(
                _("The history does not keep enough of deal %(number)s to restore it.")
                % {"number": number}
            ) from None
        return deleted

    def restorable_deletion(self) -> "Change | None":
        """The deletion Restore would undo now (of the deal that would be next), or None."""
        try:
            return self.deletion_to_restore(self.deals.count() + 1)
        except NotRestorable:
            return None

    def match_rules(self, sides: "list[Side] | None" = None) -> rules.MatchRules:
        sides = sides if sides is not None else list(self.sides.all())
        return rules.MatchRules(
            line=self.line,
            tie_rule=rules.TieRule(self.tie_rule),
            claims_allowed=self.claims_allowed,
            side_names=(sides[0].name, sides[1].name),
        )

    def outcome(self, deals: "list[Deal]", sides: "list[Side] | None" = None) -> rules.Outcome:
        """Where the match stands after `deals` (rows already loaded), as the rules score it:
        stored deals, checked when they were stored, so scored without checking again."""
        return self.score([deal.entry() for deal in deals], sides, checked_from=len(deals) + 1)

    def score(
        self,
        entries: list[rules.DealEntry],
        sides: "list[Side] | None" = None,
        *,
        checked_from: int = 1,
        typed: int | None = None,
    ) -> rules.Outcome:
        """Where the match would stand after `entries`, under its settings and seats; the
        rules check the entries from number `checked_from` on, and `typed` as a deal just
        entered (see rules.evaluate)."""
        return rules.evaluate(
            self.match_rules(sides),
            entries,
            first_dealer=self.first_dealer,
            seat_count=self.seat_count,
            checked_from=checked_from,
            typed=typed,
        )


def pair_name(names: Sequence[str]) -> str:
    """A side's name unless the table gives it one: "Alice & Carla", or "Alice" alone in
    tressette in due."""
    return " & ".join(name.strip() for name in names)


def side_name(typed: str, players: Sequence[str]) -> str:
    """The name a side goes by: the one the table typed, unless it typed none, or only its
    players' names spelled otherwise ("alice & CARLA"); then its players' names as the table
    knows them ("Alice & Carla"), which follow a rename."""
    paired, typed = pair_name(players), typed.strip()
    return paired if name_key(typed) in ("", name_key(paired)) else typed


class Side(models.Model):
    """One of a match's two sides, in seat order: position 0 holds seats 0 and 2, 1 holds 1, 3."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="sides")
    position = models.PositiveSmallIntegerField()
    name = models.CharField(_("side name"), max_length=SIDE_NAME_MAX)
    first_player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    second_player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="side_position_unique"),
            models.CheckConstraint(condition=Q(position__in=[0, 1]), name="side_position_0_or_1"),
            models.CheckConstraint(condition=Q(name__regex=r"\S"), name="side_name_not_blank"),
            models.CheckConstraint(
                condition=~Q(first_player=F("second_player")), name="side_players_differ"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def players(self) -> list[Player]:
        return [p for p in (self.first_player, self.second_player) if p is not None]

    @property
    def named_after_players(self) -> bool:
        """Named after its players ("Alice & Carla", "Alice" in due), as a side is unless the
        table gives it a name: a rename or a merge of a player renames it too."""
        return self.name == pair_name([p.name for p in self.players])

    @property
    def named_after_pair(self) -> bool:
        """Named after its two players: the scoreboard shows them a line each, so that a long
        first name cannot hide the partner's."""
        return len(self.players) == 2 and self.named_after_players


def _per_side(name: str, **kwargs) -> tuple[models.Field, models.Field]:
    return (
        models.PositiveSmallIntegerField(f"{name} (side 1)", **kwargs),
        models.PositiveSmallIntegerField(f"{name} (side 2)", **kwargs),
    )


class Deal(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=20, choices=DealKind, default=DealKind.NORMAL)
    # The sweeping or claiming side; null on a normal deal.
    side = models.PositiveSmallIntegerField(null=True, blank=True)
    card_points_0, card_points_1 = _per_side("card points")
    declared_points_0, declared_points_1 = _per_side("declared points")
    points_0, points_1 = _per_side("points")
    version = models.PositiveIntegerField(default=1)
    idempotency_key = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="deal_number_unique"),
            models.UniqueConstraint(
                fields=["match", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="deal_idempotency_key_unique",
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="deal_number_from_1"),
            models.CheckConstraint(condition=Q(kind__in=DealKind.values), name="deal_kind_valid"),
            models.CheckConstraint(
                condition=(
                    Q(kind=DealKind.NORMAL, side__isnull=True)
                    | (~Q(kind=DealKind.NORMAL) & Q(side__isnull=False, side__in=[0, 1]))
                ),
                name="deal_side_only_for_sweeps_and_claims",
            ),
            models.CheckConstraint(
                condition=Q(
                    card_points_0__gte=0,
                    card_points_1__gte=0,
                    card_points_0__lte=rules.CARD_POINTS_PER_DEAL,
                    card_points_1__lte=rules.CARD_POINTS_PER_DEAL,
                ),
                name="deal_card_points_0_to_11",
            ),
            models.CheckConstraint(
                condition=(
                    Q(kind=DealKind.CLAIM)
                    # Up to 11, as earlier versions took: the rules allow a new claim 10.
                    & Q(
                        card_points_0__lte=rules.CARD_POINTS_PER_DEAL - F("card_points_1"),
                    )
                )
                | (
                    ~Q(kind=DealKind.CLAIM)
                    & Q(card_points_0=rules.CARD_POINTS_PER_DEAL - F("card_points_1"))
                ),
                name="deal_card_points_sum_to_11",
            ),
            models.CheckConstraint(
                condition=Q(
                    declared_points_0__gte=0,
                    declared_points_1__gte=0,
                    points_0__gte=0,
                    points_1__gte=0,
                ),
                name="deal_points_not_negative",
            ),
        ]

    def __str__(self) -> str:
        return f"Deal {self.number}"

    @property
    def card_points(self) -> tuple[int, int]:
        return (self.card_points_0, self.card_points_1)

    @property
    def declared_points(self) -> tuple[int, int]:
        return (self.declared_points_0, self.declared_points_1)

    @property
    def points(self) -> tuple[int, int]:
        return (self.points_0, self.points_1)

    def entry(self) -> rules.DealEntry:
        return rules.DealEntry(
            card_points=self.card_points,
            declared_points=self.declared_points,
            kind=rules.DealKind(self.kind),
            side=self.side,
        )

    @staticmethod
    def entry_from_values(values: dict) -> rules.DealEntry:
        """The entry of a deal as the change log kept it (see values): to restore it.

        ValueError unless it is whole, as this app logs it: an imported log may keep less.
        """

        def whole(value) -> bool:
            return type(value) is int  # not a bool, not a float

        cards, declared, side = values["card_points"], values["declared_points"], values["side"]
        pairs_whole = all(
            type(pair) is list and len(pair) == 2 and all(map(whole, pair))
            for pair in (cards, declared)
        )
        if not pairs_whole or not (side is None or whole(side)):
            raise ValueError("not a deal as this app logs it")
        return rules.DealEntry(
            card_points=tuple(cards),
            declared_points=tuple(declared),
            kind=rules.DealKind(values["kind"]),
            side=side,
        )

    def values(self) -> dict:
        """What the change log keeps of a deal: enough to restore it."""
        return {
            "number": self.number,
            "kind": self.kind,
            "side": self.side,
            "card_points": list(self.card_points),
            "declared_points": list(self.declared_points),
            "points": list(self.points),
        }


class Action(models.TextChoices):
    MATCH_STARTED = "match_started", _("match started")
    DEAL_RECORDED = "deal_recorded", _("deal recorded")
    DEAL_EDITED = "deal_edited", _("deal edited")
    DEAL_DELETED = "deal_deleted", _("deal deleted")
    DEAL_RESTORED = "deal_restored", _("deal restored")
    MATCH_ENDED = "match_ended", _("match ended")
    MATCH_STOPPED = "match_stopped", _("match stopped, undecided")
    MATCH_REOPENED = "match_reopened", _("match reopened")
    SETTINGS_CHANGED = "settings_changed", _("settings changed")
    # At every match the player sat at: the sheets show names.
    PLAYER_RENAMED = "player_renamed", _("player renamed")
    PLAYERS_MERGED = "players_merged", _("players merged")


class Change(models.Model):
    """The append-only change log of a match: nothing done to a match is ever lost."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="changes")
    at = models.DateTimeField(default=timezone.now)
    action = models.CharField(max_length=30, choices=Action)
    by = models.CharField(max_length=NAME_MAX * 2, blank=True)
    deal_number = models.PositiveIntegerField(null=True, blank=True)
    old = models.JSONField(null=True, blank=True)
    new = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["match", "-at", "-id"]
        # A match's latest entries, read by every phone's poll after a change: without it
        # PostgreSQL walks the whole log backwards from the newest entry of any match.
        indexes = [models.Index(fields=["match", "id"], name="change_match_latest")]
        constraints = [
            models.CheckConstraint(
                condition=Q(action__in=Action.values), name="change_action_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()} ({self.at:%Y-%m-%d %H:%M})"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("The change log is append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("The change log is append-only.")
