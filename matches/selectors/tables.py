"""A table as its pages see it: its version, and its matches a page at a time."""

from dataclasses import dataclass
from datetime import datetime

from django.core.paginator import Page, Paginator
from django.db.models import Case, OuterRef, Prefetch, Q, Subquery, When
from django.utils.translation import gettext as _

from matches import rules
from matches.models import (
    END_REASONS,
    Deal,
    Match,
    Player,
    Side,
    Table,
)
from matches.selectors.sheet import totals_said

MATCHES_PAGE = 20  # matches a page of a table's list


@dataclass(frozen=True)
class MatchLine:
    """One match in a table's list."""

    id: int
    side_names: tuple[str, ...]  # two sides, or Terziglio's three players
    totals: tuple[int, ...]
    deals: int
    started_at: datetime
    said: str  # "won by … (cappotto)", "stopped, undecided", "in progress" ...
    emphasis: bool  # what it says is a state, not a result: in italics

    @property
    def totals_said(self) -> str:
        return totals_said(self.totals)


def table_seen(token: str) -> Table | None:
    """The table seen through its view link, with `version`: what changes whenever anything
    its pages show changes. That is its own revision, bumped by its players and links and
    by a match ending or stopping (services._leaves_play: the sum would go down, and could
    come back to a value it had), and the sum of the revisions of its matches in progress,
    each bumped by every change to the match; a match started or reopened adds to it. A
    closed match changes otherwise only through its players or a rematch, which bump the
    table's revision too. So the sum is of a match or two, not of the evening's hundreds,
    read from the index of matches in progress: two plain queries, which Django builds in
    less time than one with the sum as a subquery."""
    try:
        found = Table.objects.get(viewer_token=token)
    except Table.DoesNotExist:
        return None
    in_play = Match.objects.filter(table=found, status=rules.Status.IN_PROGRESS)
    found.version = (found.revision, sum(in_play.values_list("revision", flat=True)))
    return found


def table_matches(table: Table, *, player: Player | None, page: str | None) -> Page:
    """The table's matches, twenty a page: in progress first, then finished or stopped,
    newest first; the matches of one player when asked."""
    under_way = Case(When(status=rules.Status.IN_PROGRESS, then=0), default=1)
    matches = Match.objects.filter(table=table).annotate(under_way=under_way)
    matches = matches.order_by("under_way", "-started_at", "-pk")
    if player is not None:
        matches = matches.filter(
            Q(sides__first_player=player) | Q(sides__second_player=player)
        ).distinct()
    # Who claimed, where a claim ended the match: a wrong claim is won by the other side.
    claims = Deal.objects.filter(match=OuterRef("pk"), kind=rules.DealKind.CLAIM)
    matches = matches.annotate(claimed_by=Subquery(claims.values("side")[:1])).prefetch_related(
        Prefetch("sides", queryset=Side.objects.order_by("position").only("match", "name"))
    )
    listed = Paginator(matches, MATCHES_PAGE).get_page(page)
    listed.object_list = [_match_line(match) for match in listed.object_list]
    return listed


def _match_line(match: Match) -> MatchLine:
    names = tuple(side.name for side in match.sides.all())
    if match.status == rules.Status.FINISHED:
        if match.end_reason == rules.EndReason.CLAIM and match.claimed_by is not None:
            right = match.claimed_by == match.winner
            how = _("claimed rightly") if right else _("the other side claimed wrongly")
        else:
            how = str(dict(END_REASONS).get(match.end_reason, match.end_reason))
        won = _("won by %(side)s") % {"side": names[match.winner]}
        said, emphasis = f"{won} ({how})", False
    elif match.status == rules.Status.ABANDONED:
        said, emphasis = _("stopped, undecided"), True
    elif match.decided_for is not None:
        decided = _("decided for %(side)s") % {"side": names[match.decided_for]}
        waiting = _("waiting for End match")
        said, emphasis = f"{decided} · {waiting}", False
    else:
        said, emphasis = _("in progress"), True
    return MatchLine(
        match.pk,
        names,
        match.totals,
        match.deal_count,
        match.started_at,
        said,
        emphasis,
    )
