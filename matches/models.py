"""What the sheet stores. Every rule a row must satisfy is also a database constraint.

The scoring lives in `matches.rules`, whose enums the fields store; the labels people read
are given here, beside the fields.
"""

import secrets
from datetime import datetime

from django.db import models
from django.db.models import F, IntegerField, Q
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce, Lower, Mod
from django.db.models.lookups import Exact, GreaterThanOrEqual, LessThanOrEqual
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches import rules
from matches.names import pair_name, sort_key
from matches.rules import Bid, DealKind, EndReason, Evening, Game, Status, TieRule

NAME_MAX = 40
TABLE_NAME_MAX = 60
SIDE_NAME_MAX = 2 * NAME_MAX + 3
# What one match and one table hold: far beyond any evening (a match to 101 is decided by
# about deal 19, and only sides level past the line play on), and little enough that every
# page stays quick, whatever is typed or uploaded.
MATCH_DEALS_MAX = 300
TABLE_PLAYERS_MAX = 500

TIE_RULES = [
    (TieRule.HIGHER_TOTAL, _("Higher total wins; equal totals play another deal")),
    (TieRule.ANOTHER_DEAL, _("Always play another deal")),
]
STATUSES = [
    (Status.IN_PROGRESS, _("In progress")),
    (Status.FINISHED, _("Finished")),
    (Status.ABANDONED, _("Stopped, undecided")),
]
END_REASONS = [
    (EndReason.LINE, _("reached the line")),
    (EndReason.CAPPOTTO, _("cappotto")),
    (EndReason.STRAMAZZO, _("stramazzo")),
    (EndReason.CAPPOTTONE, _("cappottone")),
    (EndReason.STRAMAZZONE, _("stramazzone")),
    (EndReason.CLAIM, _("claim")),
    (EndReason.DEALS, _("the agreed deals played")),
    (EndReason.LAST_IN, _("the last one in")),
    (EndReason.LOWEST, _("the lowest total at the line")),
]
GAMES = [
    (Game.TRESSETTE, _("Tressette")),
    (Game.TERZIGLIO, _("Terziglio")),
    (Game.A_PERDERE, _("Tressette a perdere")),
]
PAYMENTS = [
    (rules.Payment.DIFFERENCE, _("The difference in card points, times the bid")),
    (rules.Payment.FLAT, _("One point, times the bid")),
]
TERZIGLIO_ENDS = [
    (rules.TerziglioEnd.LINE, _("When a balance reaches the line")),
    (rules.TerziglioEnd.DEALS, _("After the agreed number of deals")),
    (rules.TerziglioEnd.STOPPED, _("When the table stops")),
]
A_PERDERE_ENDS = [
    (rules.APerdereEnd.LAST_IN, _("Who reaches the line is out; the last one in wins")),
    (rules.APerdereEnd.LOWEST, _("When the first reaches the line, the lowest total wins")),
]
FRACTIONS = [
    (rules.Fractions.OWN, _("Each player drops their own thirds")),
    (rules.Fractions.TO_LAST_TRICK, _("The thirds left over go to the last trick's taker")),
]
# A Terziglio deal's bid; a deal all three passed is stored as gone "a monte".
A_MONTE = "a_monte"
BIDS = [
    (Bid.CHIAMO, _("chiamo")),
    (Bid.SOLO, _("solo")),
    (Bid.SOLISSIMO, _("solissimo")),
    (A_MONTE, _("a monte")),
]
BIDS_PLAYED = [str(bid) for bid in Bid]
SWEEPS_BY_ONE = [str(kind) for kind in rules.SWEEPS_BY_ONE]
EVENINGS = [
    (Evening.TONIGHT, _("Tonight's tally")),
    (Evening.FIRST_TO_2, _("Best of three: first to 2 wins")),
    (Evening.FIRST_TO_3, _("Best of five: first to 3 wins")),
]
DEAL_KINDS = [
    (DealKind.NORMAL, _("Normal")),
    (DealKind.CAPPOTTO, _("Cappotto")),
    (DealKind.STRAMAZZO, _("Stramazzo")),
    (DealKind.CAPPOTTONE, _("Cappottone")),
    (DealKind.STRAMAZZONE, _("Stramazzone")),
    (DealKind.CLAIM, _("Claim")),
]


def _values(choices: list) -> list[str]:
    return [str(value) for value, _label in choices]


# Every figure a match or a deal keeps per side is one number for each side, in side order:
# two sides at Tressette, three players at Terziglio, three to five a perdere (each a side of
# one).
SIDES = (0, 1)
SEATS = tuple(range(rules.TERZIGLIO_PLAYERS))
A_PERDERE_SEATS = tuple(range(max(rules.A_PERDERE_PLAYERS)))
DEAL_COUNTS = ("declarations", "declared", "sweeps")  # what a match counts of its deals
MATCH_COUNTS = ("totals", *DEAL_COUNTS)  # a match's, per side


class PerSide(models.JSONField):
    """One number for each side, in side order: a list in the database, read as the tuple the
    rules take and give."""

    def from_db_value(self, value, expression, connection):
        found = super().from_db_value(value, expression, connection)
        return tuple(found) if isinstance(found, list) else found


def per_side(sides: int = len(SIDES)) -> tuple[int, ...]:
    """Nothing yet, for each side."""
    return (0,) * sides


def _plus(kept: tuple[int, ...], more: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(a + b for a, b in zip(kept, more, strict=True))


def _each_side(field: str, lookup: str, value: int, sides: tuple[int, ...] = SIDES) -> Q:
    """Each side's number in `field` passes `lookup` against `value` ("gte", 0: at least 0);
    a number missing passes (a perdere's lists hold three to five)."""
    return Q(*(Q(**{f"{field}__{side}__{lookup}": value}) for side in sides))


def _sum(field: str, sides: tuple[int, ...] = SIDES):
    """The sides' numbers in the list `field`, added up by the database."""
    first, *rest = (Cast(KT(f"{field}__{side}"), IntegerField()) for side in sides)
    for number in rest:
        first += number
    return first


# The fewest card points a deal a perdere counts: each player's own fractions dropped.
A_PERDERE_LEAST = min(min(rules.a_perdere_totals(n)) for n in rules.A_PERDERE_PLAYERS)


def _players_a_perdere(field: str) -> Q:
    """A number in `field` for each of three to five players: a third, and no sixth."""
    fewest, most = min(rules.A_PERDERE_PLAYERS), max(rules.A_PERDERE_PLAYERS)
    return Q(**{f"{field}__{fewest - 1}__isnull": False, f"{field}__{most}__isnull": True})


def _a_perdere_sum(field: str):
    """A perdere's three to five numbers in `field`, added up; those missing count 0."""
    first, *rest = (
        Coalesce(Cast(KT(f"{field}__{seat}"), IntegerField()), 0) for seat in A_PERDERE_SEATS
    )
    for number in rest:
        first += number
    return first


def _sums_to_zero(field: str) -> Q:
    """Terziglio's three numbers in `field` add up to 0; one missing (or JSON's null) makes
    the sum NULL, which a check would let through: counted as 1, it fails."""
    return Q(Exact(Coalesce(_sum(field, SEATS), 1), 0))


class NotRestorable(Exception):
    """A deleted deal cannot be put back; the message says why, in words."""


def new_token() -> str:
    """A secret link token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


class Table(models.Model):
    """The group that plays together. No accounts: two secret links give access."""

    name = models.CharField(_("name"), max_length=TABLE_NAME_MAX)
    scorer_token = models.CharField(max_length=64, unique=True, default=new_token)
    viewer_token = models.CharField(max_length=64, unique=True, default=new_token)
    created_at = models.DateTimeField(default=timezone.now)
    # Bumped by a change of its players or links and by a match ending or stopping; its
    # matches have revisions of their own (selectors.table_seen: what the table page, the
    # stats and the exports keep is keyed by both).
    revision = models.PositiveIntegerField(default=1)
    # The last new link: the key its request carried and the token it replaced, so that the
    # same request sent again (a double tap) is told of that link, not given another.
    rotation = models.CharField(max_length=64, blank=True, default="", db_default="")
    rotated_from = models.CharField(max_length=64, blank=True, default="", db_default="")
    # The evening: how it is counted, whether its matches count the old stakes, and when it
    # began (tonight's matches are those started since; None before the first match).
    evening = models.CharField(
        _("evening"),
        max_length=20,
        choices=EVENINGS,
        default=Evening.TONIGHT,
        db_default=Evening.TONIGHT,
    )
    stakes = models.BooleanField(_("stakes"), default=False, db_default=False)
    evening_started_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(evening__in=_values(EVENINGS)), name="table_evening_valid"
            ),
            models.CheckConstraint(condition=Q(name__regex=r"\S"), name="table_name_not_blank"),
            models.CheckConstraint(
                condition=~Q(scorer_token=F("viewer_token")), name="table_tokens_differ"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def players_by_name(self) -> "list[Player]":
        """The table's players in the order people look for a name (names.sort_key)."""
        return sorted(self.players.all(), key=lambda player: sort_key(player.name))

    def last_play(self) -> "datetime | None":
        """When anything was last done to any of its matches (its change log), or a new
        evening was begun: what rules.begins_evening measures the break from."""
        logged = Change.objects.filter(match__table=self).aggregate(at=models.Max("at"))["at"]
        begun = Table.objects.filter(pk=self.pk).values_list("evening_started_at", flat=True)
        return max((at for at in (logged, begun.get()) if at is not None), default=None)

    def first_of_evening(self) -> bool:
        """A match started now would be the first of its evening: one begins now, or one
        has begun (New evening) and no match was started since."""
        if rules.begins_evening(last_play=self.last_play(), now=timezone.now()):
            return True
        if self.evening_started_at is None:
            return True
        return not self.matches.filter(started_at__gte=self.evening_started_at).exists()

    @staticmethod
    def rotation_of(which: str, key: str) -> str:
        """What `rotation` holds once a request with `key` made a new `which` link ("" for
        a request without a key, which no later one can be taken for)."""
        return f"{which}:{key[:32]}" if key else ""


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


class Match(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="matches")
    game = models.CharField(
        _("game"), max_length=20, choices=GAMES, default=Game.TRESSETTE, db_default=Game.TRESSETTE
    )
    line = models.PositiveSmallIntegerField(_("line"), default=rules.DEFAULT_LINE)
    tie_rule = models.CharField(
        _("tie rule"), max_length=20, choices=TIE_RULES, default=TieRule.HIGHER_TOTAL
    )
    claims_allowed = models.BooleanField(_("claims allowed"), default=False)
    declarations_allowed = models.BooleanField(
        _("declarations allowed"), default=True, db_default=True
    )
    # Counted as games by how it was won (rules.STAKES), as its table played when it began.
    stakes = models.BooleanField(_("stakes"), default=False, db_default=False)
    players_per_side = models.PositiveSmallIntegerField(default=2)
    # Terziglio's terms (blank at Tressette): how a deal pays, and when the match ends (at
    # the line, after `deals_agreed` deals, or when the table stops).
    payment = models.CharField(
        _("payment"), max_length=20, choices=PAYMENTS, blank=True, default="", db_default=""
    )
    ends = models.CharField(
        _("the match ends"),
        max_length=20,
        choices=TERZIGLIO_ENDS + A_PERDERE_ENDS,
        blank=True,
        default="",
        db_default="",
    )
    deals_agreed = models.PositiveSmallIntegerField(_("deals"), null=True, blank=True)
    # A perdere's terms (blank at the others): what becomes of the thirds a count leaves
    # over, and whether taking every point (the reversed sweep) charges the others 11 each.
    fractions = models.CharField(
        _("fractions"), max_length=20, choices=FRACTIONS, blank=True, default="", db_default=""
    )
    # (False at the other games; a table playing a perdere plays it unless it says not.)
    reversed_sweep = models.BooleanField(_("reversed sweep"), default=False, db_default=False)
    first_dealer = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=20, choices=STATUSES, default=Status.IN_PROGRESS)
    winner = models.PositiveSmallIntegerField(null=True, blank=True)
    end_reason = models.CharField(max_length=20, choices=END_REASONS, blank=True, default="")
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Where the rules last left it, for the lists that show many matches: each side's total,
    # and the side its deals decide it for (it then waits for End match), else None.
    totals = PerSide(default=per_side)
    decided_for = models.PositiveSmallIntegerField(null=True, blank=True)
    # And what the stats count of its deals, per side: a table's stats read no deal.
    deal_count = models.PositiveIntegerField(default=0)
    declarations = PerSide(default=per_side)  # deals with declarations
    declared = PerSide(default=per_side)  # their points
    sweeps = PerSide(default=per_side)
    # A perdere: for each player the deal after which they went out (reached the line), or
    # None while in; empty at the other games. Who deals next follows from it.
    out_after = PerSide(default=tuple, blank=True)
    # Deals deleted from it here (each logged with the key it was saved with): a save looks
    # among those deletions for its key, a late retry of a deleted deal, only if there are.
    deletions = models.PositiveIntegerField(default=0, db_default=0)
    # Bumped by every change: the sheet's ETag.
    revision = models.PositiveIntegerField(default=1)
    # The rematch begun from this match: a second phone's Rematch opens it, not another.
    next_match = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="previous_match"
    )

    class Meta:
        verbose_name_plural = "matches"
        indexes = [
            models.Index(fields=["table", "status", "-started_at"]),
            # Tonight's matches: those of a table started since its evening began.
            models.Index(fields=["table", "started_at"], name="match_table_started"),
            # A table's version sums its matches' revisions in progress from the index alone
            # (selectors.table_seen: the same condition, else the index is not used).
            models.Index(
                fields=["table", "revision"],
                condition=Q(status=Status.IN_PROGRESS),
                name="match_in_progress_revision",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(line__gte=rules.MIN_LINE, line__lte=rules.MAX_LINE),
                name="match_line_in_range",
            ),
            models.CheckConstraint(condition=Q(game__in=_values(GAMES)), name="match_game_valid"),
            models.CheckConstraint(
                condition=Q(game=Game.TRESSETTE, players_per_side__in=[1, 2])
                | Q(game__in=[Game.TERZIGLIO, Game.A_PERDERE], players_per_side=1),
                name="match_one_or_two_per_side",
            ),
            models.CheckConstraint(
                condition=Q(game=Game.TRESSETTE, first_dealer__lt=2 * F("players_per_side"))
                | Q(game=Game.TERZIGLIO, first_dealer__lt=rules.TERZIGLIO_PLAYERS)
                | Q(game=Game.A_PERDERE, first_dealer__in=A_PERDERE_SEATS),
                name="match_first_dealer_is_a_seat",
            ),
            models.CheckConstraint(
                condition=Q(winner__in=SIDES)
                | Q(game=Game.TERZIGLIO, winner__in=SEATS)
                | Q(game=Game.A_PERDERE, winner__in=A_PERDERE_SEATS),
                name="match_winner_is_a_side",
            ),
            # Tressette's counts are never negative, nor a perdere's totals; Terziglio's
            # balances always sum to 0.
            models.CheckConstraint(
                condition=Q(
                    Q(game=Game.TRESSETTE), *(_each_side(name, "gte", 0) for name in MATCH_COUNTS)
                )
                | Q(Q(game=Game.TERZIGLIO) & _sums_to_zero("totals"))
                | Q(Q(game=Game.A_PERDERE) & _each_side("totals", "gte", 0, A_PERDERE_SEATS)),
                name="match_counts_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(game=Game.TRESSETTE, payment="", ends="", deals_agreed__isnull=True)
                | Q(
                    game=Game.A_PERDERE,
                    claims_allowed=False,
                    payment="",
                    ends__in=_values(A_PERDERE_ENDS),
                    deals_agreed__isnull=True,
                    fractions__in=_values(FRACTIONS),
                )
                | Q(
                    Q(game=Game.TERZIGLIO, claims_allowed=False)
                    & Q(payment__in=_values(PAYMENTS), ends__in=_values(TERZIGLIO_ENDS))
                    & (
                        Q(
                            ends=rules.TerziglioEnd.DEALS,
                            deals_agreed__isnull=False,
                            deals_agreed__gte=rules.MIN_DEALS,
                            deals_agreed__lte=rules.MAX_DEALS,
                        )
                        | (~Q(ends=rules.TerziglioEnd.DEALS) & Q(deals_agreed__isnull=True))
                    )
                ),
                name="match_terziglio_terms",
            ),
            models.CheckConstraint(
                condition=Q(game=Game.A_PERDERE)
                | Q(fractions="", reversed_sweep=False, out_after=[]),
                name="match_a_perdere_terms_its_own",
            ),
            models.CheckConstraint(
                condition=Q(tie_rule__in=_values(TIE_RULES)), name="match_tie_rule_valid"
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
                        end_reason__in=_values(END_REASONS),
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
            # How a match was won is its game's: Terziglio's at the line or after its deals.
            models.CheckConstraint(
                condition=Q(game=Game.TRESSETTE)
                & ~Q(end_reason__in=[EndReason.DEALS, EndReason.LAST_IN, EndReason.LOWEST])
                | Q(game=Game.TERZIGLIO, end_reason__in=["", EndReason.LINE, EndReason.DEALS])
                # A perdere's is its terms' own (APerdereTerms.end_reason: the same values).
                | Q(game=Game.A_PERDERE) & (Q(end_reason="") | Q(end_reason=F("ends"))),
                name="match_end_reason_of_its_game",
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
    def terziglio(self) -> bool:
        return self.game == Game.TERZIGLIO

    @property
    def a_perdere(self) -> bool:
        return self.game == Game.A_PERDERE

    @property
    def seat_count(self) -> int:
        if self.terziglio or self.a_perdere:
            return self.side_count
        return rules.seats(self.players_per_side)

    @property
    def side_count(self) -> int:
        """How many sides: two at Tressette; at Terziglio and a perdere each player is one
        (a perdere's totals hold a number for each)."""
        if self.a_perdere:
            return len(self.totals)
        return rules.TERZIGLIO_PLAYERS if self.terziglio else len(SIDES)

    @property
    def in_progress(self) -> bool:
        return self.status == Status.IN_PROGRESS

    @property
    def finished(self) -> bool:
        return self.status == Status.FINISHED

    @property
    def abandoned(self) -> bool:
        return self.status == Status.ABANDONED

    @property
    def why_closed(self) -> str | None:
        """Why its deals cannot change now, in words; None while it is in progress."""
        if self.abandoned:
            return _("This match was stopped. Reopen it to change it.")
        if self.finished:
            return _("This match is finished. Reopen it to change it.")
        return None

    def deletion_to_restore(self, number: int) -> "Change":
        """The log entry of deal `number`'s deletion, while Restore may put the deal back:
        the match is played, the deal would be the next one, nothing was entered or edited
        since it was deleted (it would stand on other deals than it did), and the log keeps
        it whole (an imported log may not). Else NotRestorable, saying why in words."""
        if (why := self.why_closed) is not None:
            raise NotRestorable(why)
        # The latest deletion logged, by id: an imported log's times may say anything.
        deleted = self.changes.filter(action=Action.DEAL_DELETED, deal_number=number)
        deleted = deleted.order_by("-id").first()
        said = {"number": number}
        if deleted is None:
            raise NotRestorable(_("Deal %(number)s was not deleted: nothing to restore.") % said)
        if number != self.deals.count() + 1:
            raise NotRestorable(
                _("Deal %(number)s can be restored only while it would be the next deal.") % said
            )
        since = (Action.DEAL_RECORDED, Action.DEAL_EDITED)
        if self.changes.filter(pk__gt=deleted.pk, action__in=since).exists():
            raise NotRestorable(
                _("Deal %(number)s can no longer be restored: deals were entered or edited since.")
                % said
            )
        try:
            entry_from_document(deleted.old or {}, self.game)
        except DocumentError:
            raise NotRestorable(
                _("The history does not keep enough of deal %(number)s to restore it.") % said
            ) from None
        return deleted

    def deleted_under(self, idempotency_key: str) -> int | None:
        """The number of the deal last saved under this key and deleted since, or None: a late
        retry of that save is told so, not saved again."""
        if not idempotency_key or not self.deletions:
            return None
        deleted = self.changes.filter(action=Action.DEAL_DELETED, idempotency_key=idempotency_key)
        return deleted.order_by("-id").values_list("deal_number", flat=True).first()

    def restorable_deletion(self) -> "Change | None":
        """The deletion Restore would undo now (of the deal that would be next), or None."""
        try:
            return self.deletion_to_restore(self.deals.count() + 1)
        except NotRestorable:
            return None

    @property
    def standing(self) -> "rules.Standing | rules.TerziglioStanding | rules.APerdereStanding":
        """Where its deals leave it, as it keeps it: what its next deal is checked by."""
        if self.a_perdere:
            dealer = rules.a_perdere_dealer(self.first_dealer, self.deal_count, self.out_after)
            return rules.APerdereStanding(self.totals, self.deal_count, self.out_after,
                                          self.decided_for, dealer)  # fmt: skip
        if self.terziglio:
            dealer = (self.first_dealer + self.deal_count) % rules.TERZIGLIO_PLAYERS
            return rules.TerziglioStanding(self.totals, self.deal_count, self.decided_for, dealer)
        return rules.Standing(self.totals, self.deal_count, self.decided_for)

    def standing_fields(self, standing: rules.Standing, deal: rules.DealEntry) -> dict:
        """What it keeps once `deal` is added and leaves it at `standing` (outcome_fields,
        one deal on)."""
        fields = {
            name: _plus(getattr(self, name), more) for name, more in _deal_counts(deal).items()
        }
        fields |= {
            "decided_for": standing.decided_for,
            "deal_count": standing.deals,
            "totals": standing.totals,
        }
        if isinstance(standing, rules.APerdereStanding):
            fields["out_after"] = standing.out_after
        return fields

    @property
    def settings(self) -> "rules.MatchSettings | rules.TerziglioTerms | rules.APerdereTerms":
        """What the table agreed for it, as its game's rules take it."""
        if self.a_perdere:
            return rules.APerdereTerms(
                self.line, rules.APerdereEnd(self.ends), self.fractions, self.reversed_sweep
            )
        if self.terziglio:
            return rules.TerziglioTerms(
                rules.Payment(self.payment),
                rules.TerziglioEnd(self.ends),
                self.line,
                self.deals_agreed or rules.DEFAULT_DEALS,
            )
        tie_rule = TieRule(self.tie_rule)
        return rules.MatchSettings(
            self.line, tie_rule, self.claims_allowed, self.declarations_allowed
        )

    def match_rules(self, side_names: tuple[str, ...]) -> "rules.MatchRules | rules.TerziglioRules":
        """Its settings, with the sides' names the rules' messages use."""
        if self.a_perdere:
            return rules.APerdereRules(**self.settings.as_dict(), player_names=side_names)
        if self.terziglio:
            return rules.TerziglioRules(**self.settings.as_dict(), player_names=side_names)
        return rules.MatchRules(**self.settings.as_dict(), side_names=side_names)

    def next_deal(self, entry, side_names: tuple[str, ...], *, new: bool) -> tuple:
        """`entry` checked and scored as its next deal (`new`: entered now, not put back),
        from where it stands: (the scored deal, the standing after it)."""
        played = self.match_rules(side_names)
        if self.a_perdere:
            return rules.next_a_perdere_deal(played, self.standing, entry)
        if self.terziglio:
            return rules.next_terziglio_deal(played, self.standing, entry)
        return rules.next_deal(played, self.standing, entry, first_dealer=self.first_dealer,
                               seat_count=self.seat_count, new=new)  # fmt: skip

    def score(
        self,
        entries: list,
        side_names: tuple[str, ...],
        *,
        checked_from: int | None = None,
        new: int | None = None,
    ) -> "rules.Outcome | rules.TerziglioOutcome":
        """Where the match stands after `entries`, under its settings and seats. Deals are
        checked from number `checked_from` on (by default none: stored deals were checked
        when they were stored); `new` is one just entered (see rules.evaluate)."""
        checked_from = len(entries) + 1 if checked_from is None else checked_from
        played = self.match_rules(side_names)
        if self.a_perdere:
            return rules.evaluate_a_perdere(
                played, entries, first_dealer=self.first_dealer, checked_from=checked_from
            )
        if self.terziglio:
            return rules.evaluate_terziglio(
                played, entries, first_dealer=self.first_dealer, checked_from=checked_from
            )
        return rules.evaluate(played, entries, first_dealer=self.first_dealer,
                              seat_count=self.seat_count, checked_from=checked_from,
                              new=new)  # fmt: skip


def settings_fields(
    settings: "rules.MatchSettings | rules.TerziglioTerms | rules.APerdereTerms",
) -> dict:
    """What a match keeps of the settings its table agreed (Match.settings reads them)."""
    if isinstance(settings, rules.APerdereTerms):
        return {
            "game": Game.A_PERDERE,
            "line": settings.line,
            "ends": str(settings.end),
            "fractions": str(settings.fractions),
            "reversed_sweep": settings.reversed_sweep,
        }
    if isinstance(settings, rules.TerziglioTerms):
        by_deals = settings.end is rules.TerziglioEnd.DEALS
        return {
            "game": Game.TERZIGLIO,
            "payment": str(settings.payment),
            "ends": str(settings.end),
            "line": settings.line,
            "deals_agreed": settings.deals if by_deals else None,
        }
    return settings.as_dict()


def outcome_fields(outcome: rules.Outcome) -> dict[str, object]:
    """What a match keeps of where its deals leave it (see Match.totals and on)."""
    fields: dict[str, object] = {
        "decided_for": outcome.winner,
        "deal_count": len(outcome.deals),
        "totals": outcome.totals,
    }
    fields |= dict.fromkeys(DEAL_COUNTS, per_side(len(outcome.totals)))
    if isinstance(outcome, rules.APerdereOutcome):
        fields["out_after"] = outcome.standing.out_after
    for deal in outcome.deals:
        for name, more in _deal_counts(deal.entry).items():
            fields[name] = _plus(fields[name], more)
    return fields


def _deal_counts(entry: rules.DealEntry) -> dict[str, tuple[int, ...]]:
    """What one deal adds to the counts a match keeps of its deals, per side: deals with
    declarations, their points, sweeps. Terziglio and a perdere have none of them."""
    if isinstance(entry, (rules.TerziglioEntry, rules.APerdereEntry)):
        return {}
    declared = entry.declared_points
    return {
        "declarations": tuple(1 if declared[side] else 0 for side in SIDES),
        "declared": tuple(declared[side] for side in SIDES),
        "sweeps": tuple(int(rules.is_sweep(entry.kind) and entry.side == side) for side in SIDES),
    }


class Side(models.Model):
    """One of a match's sides, in seat order: at Tressette position 0 holds seats 0 and 2, 1
    holds 1 and 3; at Terziglio and a perdere each player is a side of one, at their seat."""

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
            # Two sides at Tressette, three players at Terziglio, up to five a perdere (a side
            # knows not its match's game: the services seat each game's count).
            models.CheckConstraint(
                condition=Q(position__in=A_PERDERE_SEATS), name="side_position_is_a_seat"
            ),
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
        """Named after its players, as a side is unless the table names it: a rename or a
        merge of a player renames it too."""
        return self.name == pair_name([p.name for p in self.players])

    @property
    def named_after_pair(self) -> bool:
        """Named after its two players: shown a player a line, so that a long first name
        cannot hide the partner's."""
        return len(self.players) == 2 and self.named_after_players


class Deal(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveIntegerField()
    # Its match's game, which its checks below depend on (a check reads no other row).
    game = models.CharField(
        max_length=20, choices=GAMES, default=Game.TRESSETTE, db_default=Game.TRESSETTE
    )
    kind = models.CharField(max_length=20, choices=DEAL_KINDS, default=DealKind.NORMAL)
    # The sweeping or claiming side; null on a normal deal. At Terziglio the soloist's seat;
    # a perdere, the player who took every point (the reversed sweep), else null.
    side = models.PositiveSmallIntegerField(null=True, blank=True)
    # At Terziglio the soloist's bid, or a monte; blank at Tressette.
    bid = models.CharField(max_length=20, choices=BIDS, blank=True, default="", db_default="")
    # The player who swept alone (cappottone, stramazzone): their seat, on `side`.
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    # Per side, as the rules read them: card points, declared points, and what the deal gave.
    # At Terziglio: the soloist's card points alone (none a monte), no declarations, and
    # what the deal moved each player's balance by. A perdere: each player's card points (0
    # for one out), no declarations, and what the deal charged each.
    card_points = PerSide(blank=True)  # none a monte
    declared_points = PerSide(blank=True)  # none at Terziglio, nor a perdere
    points = PerSide()
    version = models.PositiveIntegerField(default=1)
    idempotency_key = models.CharField(max_length=64, blank=True, default="", db_default="")
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
            models.CheckConstraint(
                condition=Q(kind__in=_values(DEAL_KINDS)), name="deal_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(bid__in=["", *_values(BIDS)]), name="deal_bid_valid"
            ),
            models.CheckConstraint(condition=Q(game__in=_values(GAMES)), name="deal_game_valid"),
            # Terziglio's deals, and theirs alone, name a bid.
            models.CheckConstraint(
                condition=Q(game=Game.TERZIGLIO) & ~Q(bid="") | ~Q(game=Game.TERZIGLIO) & Q(bid=""),
                name="deal_bid_only_at_terziglio",
            ),
            models.CheckConstraint(
                condition=Q(
                    Q(game=Game.TRESSETTE)
                    & (
                        Q(kind=DealKind.NORMAL, side__isnull=True)
                        | (~Q(kind=DealKind.NORMAL) & Q(side__isnull=False, side__in=SIDES))
                    )
                )
                | Q(bid__in=BIDS_PLAYED, kind=DealKind.NORMAL, side__isnull=False, side__in=SEATS)
                | Q(bid=A_MONTE, kind=DealKind.NORMAL, side__isnull=True)
                | Q(
                    Q(game=Game.A_PERDERE, kind=DealKind.NORMAL)
                    & (Q(side__isnull=True) | Q(side__in=A_PERDERE_SEATS))
                ),
                name="deal_side_only_for_sweeps_and_claims",
            ),
            models.CheckConstraint(
                condition=(
                    Q(kind__in=SWEEPS_BY_ONE, seat__isnull=False, seat__lte=3)
                    & Q(side=Mod("seat", 2))
                )
                | (~Q(kind__in=SWEEPS_BY_ONE) & Q(seat__isnull=True)),
                name="deal_seat_only_for_sweeps_by_one",
            ),
            models.CheckConstraint(
                condition=Q(
                    Q(game=Game.TRESSETTE)
                    & _each_side("card_points", "gte", 0)
                    & _each_side("card_points", "lte", rules.CARD_POINTS_PER_DEAL)
                )
                | Q(
                    bid__in=BIDS_PLAYED,
                    card_points__0__isnull=False,
                    card_points__0__gte=0,
                    card_points__0__lte=rules.CARD_POINTS_PER_DEAL,
                )
                | Q(bid=A_MONTE)
                | Q(
                    Q(game=Game.A_PERDERE, declared_points=[])
                    & _each_side("card_points", "gte", 0, A_PERDERE_SEATS)
                    & _each_side("card_points", "lte", rules.CARD_POINTS_PER_DEAL, A_PERDERE_SEATS)
                    & _players_a_perdere("card_points")
                    & _players_a_perdere("points")
                ),
                name="deal_card_points_0_to_11",
            ),
            models.CheckConstraint(
                condition=(
                    # A claim stops early: up to 11, as earlier versions took (now 10).
                    Q(game=Game.TRESSETTE, kind=DealKind.CLAIM)
                    & Q(LessThanOrEqual(_sum("card_points"), rules.CARD_POINTS_PER_DEAL))
                )
                | (
                    Q(game=Game.TRESSETTE)
                    & ~Q(kind=DealKind.CLAIM)
                    & Q(Exact(_sum("card_points"), rules.CARD_POINTS_PER_DEAL))
                )
                | Q(game=Game.TERZIGLIO)
                # A perdere: each player's own fractions dropped, a deal counts 9 to 11.
                | Q(
                    Q(game=Game.A_PERDERE)
                    & Q(GreaterThanOrEqual(_a_perdere_sum("card_points"), A_PERDERE_LEAST))
                    & Q(LessThanOrEqual(_a_perdere_sum("card_points"), rules.CARD_POINTS_PER_DEAL))
                ),
                name="deal_card_points_sum_to_11",
            ),
            # What a Terziglio deal moves the balances by sums to 0, as they do; a perdere
            # charges each player up to the 11 points of a deal.
            models.CheckConstraint(
                condition=Q(
                    Q(game=Game.TRESSETTE)
                    & _each_side("declared_points", "gte", 0)
                    & _each_side("points", "gte", 0)
                )
                | (Q(game=Game.TERZIGLIO) & _sums_to_zero("points"))
                | Q(
                    Q(game=Game.A_PERDERE)
                    & _each_side("points", "gte", 0, A_PERDERE_SEATS)
                    & _each_side("points", "lte", rules.CARD_POINTS_PER_DEAL, A_PERDERE_SEATS)
                ),
                name="deal_points_not_negative",
            ),
        ]

    def __str__(self) -> str:
        return f"Deal {self.number}"

    @property
    def entry(self) -> "rules.DealEntry | rules.TerziglioEntry | rules.APerdereEntry":
        if self.game == Game.A_PERDERE:
            return rules.APerdereEntry(self.card_points, sweeper=self.side)
        if self.bid == A_MONTE:
            return rules.TerziglioEntry()
        if self.bid:
            return rules.TerziglioEntry(self.side, Bid(self.bid), self.card_points[0])
        return rules.DealEntry(
            self.card_points, self.declared_points, self.kind, self.side, self.seat
        )

    def set_scored(self, scored: "rules.ScoredDeal | rules.TerziglioDeal") -> list[str]:
        """Take what the rules scored for this deal; the fields that changed."""
        values = {"points": scored.points, **_entry_fields(scored.entry)}
        changed = [name for name, value in values.items() if getattr(self, name) != value]
        for name in changed:
            setattr(self, name, values[name])
        return changed


def _entry_fields(entry: "rules.DealEntry | rules.TerziglioEntry | rules.APerdereEntry") -> dict:
    """What a deal's row holds of its entry."""
    if isinstance(entry, rules.APerdereEntry):
        return {
            "game": str(Game.A_PERDERE),
            "kind": str(DealKind.NORMAL),
            "side": entry.sweeper,
            "seat": None,
            "bid": "",
            "card_points": entry.card_points,
            "declared_points": (),
        }
    if isinstance(entry, rules.TerziglioEntry):
        played = not entry.a_monte
        return {
            "game": str(Game.TERZIGLIO),
            "kind": str(DealKind.NORMAL),
            "side": entry.soloist,
            "seat": None,
            "bid": str(entry.bid) if played else A_MONTE,
            "card_points": (entry.card_points,) if played else (),
            "declared_points": (),
        }
    return {
        "game": str(Game.TRESSETTE),
        "kind": str(entry.kind),
        "side": entry.side,
        "seat": entry.seat,
        "bid": "",
        "card_points": entry.card_points,
        "declared_points": entry.declared_points,
    }


def deal_document(
    number: int, entry: "rules.DealEntry | rules.TerziglioEntry", points: tuple[int, ...]
) -> dict:
    """A deal as the change log keeps it and the JSON export writes it. A sweep by one player
    names their `seat` too; a deal of any other kind has none, as before there were such
    sweeps. A Terziglio deal names its soloist, bid ("a_monte" when all passed) and the
    soloist's card points; a deal a perdere each player's card points and who took every
    point, if one did (docs/export-format.md)."""
    if isinstance(entry, rules.APerdereEntry):
        return {"number": number, "card_points": list(entry.card_points),
                "sweeper": entry.sweeper, "points": list(points)}  # fmt: skip
    if isinstance(entry, rules.TerziglioEntry):
        bid = A_MONTE if entry.a_monte else str(entry.bid)
        return {"number": number, "bid": bid, "soloist": entry.soloist,
                "card_points": entry.card_points, "points": list(points)}  # fmt: skip
    document = {"number": number, "kind": str(entry.kind), "side": entry.side}
    if entry.seat is not None:
        document["seat"] = entry.seat
    return document | {
        "card_points": list(entry.card_points),
        "declared_points": list(entry.declared_points),
        "points": list(points),
    }


class DocumentError(ValueError):
    """A part of a deal's document that is missing or not what it must be: `field` names it."""

    def __init__(self, field: str) -> None:
        self.field = field
        super().__init__(f"the deal's {field!r} is missing or wrong")


def document_game(document: dict) -> Game:
    """The game a deal's document is of: Terziglio's names a bid, one a perdere who took
    every point (or null), one of Tressette neither."""
    if "bid" in document:
        return Game.TERZIGLIO
    return Game.A_PERDERE if "sweeper" in document else Game.TRESSETTE


def entry_from_document(
    document: dict, game: str
) -> "rules.DealEntry | rules.TerziglioEntry | rules.APerdereEntry":
    """The entry of a deal's document (deal_document) in a match of `game`, or DocumentError
    (a document of another game's deal too: "game")."""
    game = Game(game)
    if document_game(document) is not game:
        raise DocumentError("game")
    if game is Game.TERZIGLIO:
        return _terziglio_entry(document)
    if game is Game.A_PERDERE:
        return _a_perdere_entry(document)

    def pair(field: str) -> tuple[int, int]:
        value = document.get(field)
        if type(value) is not list or len(value) != 2 or not all(map(_whole, value)):
            raise DocumentError(field)
        return value[0], value[1]

    kind, side, seat = document.get("kind"), document.get("side"), document.get("seat")
    if kind not in _values(DEAL_KINDS):
        raise DocumentError("kind")
    if not (side is None or _whole(side)):
        raise DocumentError("side")
    if not (seat is None or _whole(seat)):  # absent: a deal that names no player
        raise DocumentError("seat")
    cards, declared = pair("card_points"), pair("declared_points")
    return rules.DealEntry(cards, declared, DealKind(kind), side, seat)


def _terziglio_entry(document: dict) -> rules.TerziglioEntry:
    bid, soloist, cards = document["bid"], document.get("soloist"), document.get("card_points")
    if bid == A_MONTE:
        if soloist is not None or cards is not None:
            raise DocumentError("bid")
        return rules.TerziglioEntry()
    if bid not in BIDS_PLAYED:
        raise DocumentError("bid")
    if not _whole(soloist):
        raise DocumentError("soloist")
    if not _whole(cards):
        raise DocumentError("card_points")
    return rules.TerziglioEntry(soloist, Bid(bid), cards)


def _a_perdere_entry(document: dict) -> rules.APerdereEntry:
    cards, sweeper = document.get("card_points"), document["sweeper"]
    if type(cards) is not list or not cards or not all(map(_whole, cards)):
        raise DocumentError("card_points")
    if not (sweeper is None or _whole(sweeper)):
        raise DocumentError("sweeper")
    return rules.APerdereEntry(tuple(cards), sweeper=sweeper)


def _whole(value: object) -> bool:
    return type(value) is int and 0 <= value <= 2_147_483_647  # what an integer column holds


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
    # A deal deleted: the idempotency key it was saved with, so that a late retry of that
    # save is told the deal was deleted since, not saved again.
    idempotency_key = models.CharField(max_length=64, blank=True, default="", db_default="")

    class Meta:
        ordering = ["match", "-at", "-id"]
        # A match's latest entries: without it PostgreSQL walks the whole log backwards.
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


class Counted(models.Model):
    """What one address did in one window of a rate limit (matches.limits): counted in the
    database, which forgets no count under pressure as a cache would."""

    scope = models.CharField(max_length=32)
    address = models.CharField(max_length=64)
    window = models.BigIntegerField()  # when the window began, in seconds since 1970
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "address", "window"], name="counted_once")
        ]
        indexes = [models.Index(fields=["window"], name="counted_window")]

    def __str__(self) -> str:
        return f"{self.scope} {self.address}: {self.count}"
