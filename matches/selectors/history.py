"""A match's history: every change to it, in words."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.core.paginator import Page, Paginator
from django.utils.translation import gettext as _

from matches import rules
from matches.models import (
    A_MONTE,
    BIDS,
    END_REASONS,
    EVENINGS,
    Action,
    Change,
    Match,
)
from matches.selectors.sheet import label, terms_said, totals_said

HISTORY_PAGE = 100  # changes a page


@dataclass(frozen=True)
class Logged:
    """One change to a match, in words."""

    id: int
    at: datetime
    what: str
    by: str
    before: str
    after: str
    deal_number: int | None


def match_names(match: Match) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The match's sides' names, and its players' in seat order: one query. At Terziglio
    and a perdere each side is a player, in seat order."""
    rows = match.sides.order_by("position").values_list(
        "name", "first_player__name", "second_player__name"
    )
    names = tuple(name for name, *_players in rows)
    if match.terziglio or match.a_perdere:
        return names, names
    players = [[name for name in seated if name is not None] for _name, *seated in rows]
    return names, tuple(rules.seat_order(players))


def match_changes(
    match: Match,
    side_names: tuple[str, str],
    page: str | None,
    seat_names: Sequence[str] = (),
) -> Page:
    """Every change to a match, newest first, a hundred a page (an imported log may be
    long), each said in words; `seat_names` name who swept alone."""
    changes = Paginator(match.changes.order_by("-at", "-id"), HISTORY_PAGE).get_page(page)
    changes.object_list = [
        _logged(change, side_names, seat_names) for change in changes.object_list
    ]
    return changes


def _logged(change: Change, side_names: tuple[str, str], seat_names: Sequence[str]) -> Logged:
    deal_actions = {
        Action.DEAL_RECORDED: _("Deal %(number)s recorded"),
        Action.DEAL_EDITED: _("Deal %(number)s edited"),
        Action.DEAL_DELETED: _("Deal %(number)s deleted"),
        Action.DEAL_RESTORED: _("Deal %(number)s restored"),
    }
    if change.action in deal_actions:
        what = deal_actions[change.action] % {"number": change.deal_number}
    else:
        what = str(change.get_action_display()).capitalize()
    return Logged(
        id=change.pk,
        at=change.at,
        what=what,
        by=change.by,
        before=describe(change.old, side_names, seat_names),
        after=describe(change.new, side_names, seat_names),
        deal_number=change.deal_number,
    )


def describe(
    values: dict | None, side_names: tuple[str, str], seat_names: Sequence[str] = ()
) -> str:
    """What the log keeps of a change, in words: a deal's points, settings, a result, the
    totals, a player's name. Odd values (an imported log may hold anything) as they are."""
    if not values:
        return ""
    if "bid" in values:  # a deal of Terziglio
        return _describe_solo(values, side_names)
    if "sweeper" in values:  # a deal a perdere
        return _describe_a_perdere(values, side_names)
    if "points" in values:
        return _describe_deal(values, side_names, seat_names)
    if "payment" in values or "fractions" in values:  # Terziglio's terms, or a perdere's
        return terms_said(values)
    if "line" in values:
        tie = {
            rules.TieRule.ANOTHER_DEAL: _("tie: always another deal"),
            rules.TieRule.HIGHER_TOTAL: _("tie: higher total wins"),
        }.get(values.get("tie_rule"), _("tie: higher total wins"))
        claims = _("claims allowed") if values.get("claims_allowed") else _("no claims")
        line = _("line %(line)s") % {"line": values["line"]}
        if values.get("declarations_allowed", True):
            return f"{line}, {tie}, {claims}"
        return f"{line}, {tie}, {claims}, {_('no declarations')}"
    if "evening" in values:  # how the table counts its evening
        counted = dict(EVENINGS).get(values["evening"], values["evening"])
        return f"{counted}, {_('the old stakes')}" if values.get("stakes") else str(counted)
    if "reason" in values:
        return _describe_result(values, side_names)
    if "totals" in values:
        return totals_said(values["totals"])
    return str(values.get("player", ""))


def _describe_deal(values: dict, side_names: tuple[str, str], seat_names: Sequence[str]) -> str:
    kind, side, seat = values.get("kind"), values.get("side"), values.get("seat")
    label = {
        rules.DealKind.CAPPOTTO: _("cappotto"),
        rules.DealKind.STRAMAZZO: _("stramazzo"),
        rules.DealKind.CAPPOTTONE: _("cappottone"),
        rules.DealKind.STRAMAZZONE: _("stramazzone"),
        rules.DealKind.CLAIM: _("claim"),
    }.get(kind, "")
    if type(seat) is int and 0 <= seat < len(seat_names) and kind in rules.SWEEPS_BY_ONE:
        by_one = {
            rules.DealKind.CAPPOTTONE: _("cappottone by %(player)s"),
            rules.DealKind.STRAMAZZONE: _("stramazzone by %(player)s"),
        }
        label = by_one[kind] % {"player": seat_names[seat]}
    parts = []
    for i, name in enumerate(side_names):
        cards, declared, points = (_at(values.get(key), i) for key in
                                   ("card_points", "declared_points", "points"))  # fmt: skip
        swept = side == i and kind != rules.DealKind.CLAIM
        said = f"{name} {cards} + {declared} {'→' if swept else '='} {points}"
        if side == i and label:
            to_line = ", " + _("to the line") if swept else ""
            said += f" ({label}{to_line})"
        parts.append(said)
    return " · ".join(parts)


def _describe_solo(values: dict, player_names: Sequence[str]) -> str:
    """A Terziglio deal: who played alone, the bid and their card points, and what each
    player's balance moved by ("Anna chiamo 7–4 · Anna +6, Bruno -3, Carla -3")."""
    bid, soloist, cards = values.get("bid"), values.get("soloist"), values.get("card_points")
    moved = values.get("points")
    if not isinstance(moved, list) or len(moved) != len(player_names):
        moved = ["?"] * len(player_names)
    changes = ", ".join(
        f"{name} {'+' if type(change) is int and change > 0 else ''}{change}"
        for name, change in zip(player_names, moved, strict=True)
    )
    if bid == A_MONTE:
        return f"{label(BIDS, A_MONTE)} · {changes}"
    seated = type(soloist) is int and 0 <= soloist < len(player_names)
    named = player_names[soloist] if seated else "?"
    # What the other two took, as the rules say it; "?" for a count no deal can hold.
    counted = type(cards) is int and 0 <= cards <= rules.CARD_POINTS_PER_DEAL
    others = rules.TerziglioEntry(card_points=cards).others_card_points if counted else "?"
    return f"{named} {label(BIDS, bid)} {cards}\u2013{others} · {changes}"


def _describe_a_perdere(values: dict, player_names: Sequence[str]) -> str:
    """A deal a perdere: what it charged each player, and who took every point, if one did
    ("Anna 11 · Bruno 11 · Carla 11 · Dino 0 (took every point)")."""
    charged, sweeper = values.get("points"), values.get("sweeper")
    if not isinstance(charged, list) or len(charged) != len(player_names):
        charged = ["?"] * len(player_names)
    said, took = [], _("took every point")
    for seat, (name, points) in enumerate(zip(player_names, charged, strict=True)):
        swept = type(sweeper) is int and seat == sweeper
        said.append(f"{name} {points} ({took})" if swept else f"{name} {points}")
    return " · ".join(said)


def _at(pair: object, index: int) -> object:
    return pair[index] if isinstance(pair, list) and len(pair) == 2 else "?"


def _describe_result(values: dict, side_names: tuple[str, str]) -> str:
    winner, reason = values.get("winner"), values.get("reason")
    said = []
    if type(winner) is int and 0 <= winner < len(side_names):
        said.append(_("won by %(side)s") % {"side": side_names[winner]})
    if reason == rules.EndReason.CLAIM and values.get("claimer") in (0, 1):
        claimer = values["claimer"]
        if claimer == winner:
            said.append(_("claimed rightly"))
        else:
            said.append(_("wrong claim by %(side)s") % {"side": side_names[claimer]})
    else:
        said.append(str(dict(END_REASONS).get(reason, reason)))
    if "totals" in values:
        said.append(totals_said(values["totals"]))
    return " · ".join(said)
