"""Where a match stands after its deals: the line, ties, sweeps, claims, dealing."""

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.rules import (
    DealEntry,
    DealInvalid,
    DealKind,
    EndReason,
    MatchRules,
    Standing,
    TieRule,
    check_deal,
    declaration_pairs,
    evaluate,
    next_deal,
    sweep_points,
)
from tests.test_rules_scoring import place

NAMES = ("Alice & Carla", "Beppe & Dino")
HIGHER = TieRule.HIGHER_TOTAL
ANOTHER = TieRule.ANOTHER_DEAL


def normal(c0: int, c1: int, d0: int = 0, d1: int = 0) -> DealEntry:
    return DealEntry(card_points=(c0, c1), declared_points=(d0, d1))


def sweep(kind: DealKind, side: int, c0: int, c1: int, d0: int = 0, d1: int = 0) -> DealEntry:
    return DealEntry((c0, c1), (d0, d1), kind, side=side)


def claim(side: int, c0: int, c1: int, d0: int = 0, d1: int = 0) -> DealEntry:
    return DealEntry((c0, c1), (d0, d1), DealKind.CLAIM, side=side)


def rules_for(line: int = 21, tie_rule: TieRule = HIGHER, claims: bool = False) -> MatchRules:
    return MatchRules(line=line, tie_rule=tie_rule, claims_allowed=claims, side_names=NAMES)


def test_an_empty_match_needs_the_whole_line_and_the_first_dealer_deals():
    outcome = evaluate(rules_for(31), [], first_dealer=2)
    assert outcome.totals == (0, 0)
    assert outcome.needs == (31, 31)
    assert not outcome.decided
    assert outcome.winner is None
    assert outcome.reason is None
    assert not outcome.another_deal
    assert (outcome.next_dealer, outcome.next_number) == (2, 1)


def test_the_sheet_shows_running_totals_and_what_each_side_still_needs():
    outcome = evaluate(rules_for(), [normal(8, 3, 3, 0), normal(4, 7, 0, 3)])
    assert [deal.points for deal in outcome.deals] == [(11, 3), (4, 10)]
    assert [deal.totals for deal in outcome.deals] == [(11, 3), (15, 13)]
    assert outcome.needs == (6, 8)
    assert [deal.number for deal in outcome.deals] == [1, 2]
    assert outcome.next_number == 3


# 18 to 18 after two deals: 6 + 4 against 5 + 4, then 5 + 3 against 6 + 3.
LEVEL_18 = [normal(6, 5, 4, 4), normal(5, 6, 3, 3)]
# 29 to 29: a deal of 4 + 7 against 7 + 4 on top of 18 to 18.
LEVEL_29 = [*LEVEL_18, normal(4, 7, 7, 4)]
# 18 to 17: 7 + 4 against 4 + 3, then 4 + 3 against 7 + 3.
AHEAD_18_17 = [normal(7, 4, 4, 3), normal(4, 7, 3, 3)]


@pytest.mark.parametrize(
    ("tie_rule", "deals", "totals", "decided", "winner", "another_deal"),
    [
        # One side alone at the line wins, whatever the tie rule.
        (HIGHER, [*AHEAD_18_17, normal(8, 3)], (26, 20), True, 0, False),
        (ANOTHER, [*AHEAD_18_17, normal(8, 3)], (26, 20), True, 0, False),
        (HIGHER, [*LEVEL_18, normal(1, 10)], (19, 28), True, 1, False),
        # Both reach it on the same deal: the higher total wins ...
        (HIGHER, [*AHEAD_18_17, normal(3, 8)], (21, 25), True, 1, False),
        (HIGHER, [*LEVEL_18, normal(7, 4, 3, 3)], (28, 25), True, 0, False),
        # ... equal totals play another deal, then compare again.
        (HIGHER, LEVEL_29, (29, 29), False, None, True),
        (HIGHER, [*LEVEL_29, normal(6, 5)], (35, 34), True, 0, False),
        (HIGHER, [*LEVEL_29, normal(4, 7, 0, 3)], (33, 39), True, 1, False),
        (HIGHER, [*LEVEL_29, normal(4, 7, 7, 4)], (40, 40), False, None, True),
        (HIGHER, [*LEVEL_29, normal(4, 7, 7, 4), normal(5, 6)], (45, 46), True, 1, False),
        # Always another deal: even different totals play one more deal ...
        (ANOTHER, [*AHEAD_18_17, normal(3, 8)], (21, 25), False, None, True),
        (ANOTHER, [*LEVEL_18, normal(7, 4, 3, 3)], (28, 25), False, None, True),
        (ANOTHER, LEVEL_29, (29, 29), False, None, True),
        # ... after which the higher total wins, even if the lead changed hands ...
        (ANOTHER, [*LEVEL_18, normal(7, 4, 3, 3), normal(2, 9)], (30, 34), True, 1, False),
        (ANOTHER, [*AHEAD_18_17, normal(3, 8), normal(9, 2)], (30, 27), True, 0, False),
        (ANOTHER, [*LEVEL_29, normal(6, 5)], (35, 34), True, 0, False),
        # ... and equal again plays another deal.
        (ANOTHER, [*LEVEL_29, normal(4, 7, 7, 4)], (40, 40), False, None, True),
        (ANOTHER, [*LEVEL_29, normal(4, 7, 7, 4), normal(5, 6)], (45, 46), True, 1, False),
    ],
)
def test_ties_at_the_line(tie_rule, deals, totals, decided, winner, another_deal):
    outcome = evaluate(rules_for(tie_rule=tie_rule), deals)
    assert outcome.totals == totals
    assert outcome.decided is decided
    assert outcome.winner == winner
    assert outcome.another_deal is another_deal
    assert outcome.reason == (EndReason.LINE if decided else None)
    if another_deal:
        assert outcome.needs == (0, 0)
        check_deal(rules_for(tie_rule=tie_rule), deals, normal(6, 5))


# Alice & Carla 1 against Beppe & Dino 20: 1 + 0 against 10 + 10.
BEHIND_1_20 = [normal(1, 10, 0, 10)]


@pytest.mark.parametrize(
    ("line", "deals", "entry", "points", "totals", "winner"),
    [
        # From 1 against 20, a cappotto takes the sweeper exactly to the line.
        (21, BEHIND_1_20, sweep(DealKind.CAPPOTTO, 0, 11, 0), (20, 0), (21, 20), 0),
        # The other side took the last trick: a stramazzo, and its 1 point counts.
        (21, BEHIND_1_20, sweep(DealKind.STRAMAZZO, 0, 10, 1), (20, 1), (21, 21), 0),
        (21, BEHIND_1_20, sweep(DealKind.STRAMAZZO, 0, 11, 0), (20, 0), (21, 20), 0),
        # The other side's declarations count and may pass the line: the sweep still wins.
        # The sweeper's own declarations are recorded but do not change its points.
        (21, BEHIND_1_20, sweep(DealKind.CAPPOTTO, 0, 11, 0, 3, 4), (20, 4), (21, 24), 0),
        # The side ahead sweeps: it needed 1.
        (21, BEHIND_1_20, sweep(DealKind.CAPPOTTO, 1, 0, 11), (0, 1), (1, 21), 1),
        # On the first deal, to a longer line.
        (41, [], sweep(DealKind.CAPPOTTO, 1, 0, 11), (0, 41), (0, 41), 1),
        (41, [], sweep(DealKind.STRAMAZZO, 1, 1, 10, 3, 0), (4, 41), (4, 41), 1),
        # Both past the line and level: a sweep settles it, needing 0 more.
        (21, LEVEL_29, sweep(DealKind.CAPPOTTO, 1, 0, 11, 3, 0), (3, 0), (32, 29), 1),
    ],
)
def test_a_sweep_wins_on_the_spot_whatever_the_totals(line, deals, entry, points, totals, winner):
    outcome = evaluate(rules_for(line), [*deals, entry])
    last = outcome.deals[-1]
    assert last.points == points
    # What the sheet shows a sweep would score before it is saved is what it scores.
    before = outcome.deals[-2].totals[entry.side] if deals else 0
    assert last.points[entry.side] == sweep_points(line, before)
    assert outcome.totals == totals
    assert outcome.decided
    assert outcome.winner == winner
    assert outcome.reason == EndReason(entry.kind)
    assert not outcome.another_deal


@pytest.mark.parametrize(
    ("cards", "field", "said"),
    [
        ((11, 1), "card_points_1", "Beppe & Dino took no tricks, so their card points must be 0."),
        # Both wrong: said once, of the side that swept.
        ((10, 1), "card_points_0", "Alice & Carla took every trick, so their card points are 11."),
        ((10, 0), "card_points_0", "Alice & Carla took every trick, so their card points are 11."),
    ],
)
def test_a_cappottos_wrong_card_points_are_said_of_the_side_at_fault(cards, field, said):
    with pytest.raises(DealInvalid) as caught:
        check_deal(rules_for(), [], sweep(DealKind.CAPPOTTO, 0, *cards))
    [error] = caught.value.errors
    assert (place(error), str(error)) == (field, f"In a cappotto {said}")


# 15 against 13: the worked deal, then 4 against 7 + 3.
CLAIM_BASE = [normal(8, 3, 3, 0), normal(4, 7, 0, 3)]


@pytest.mark.parametrize(
    ("entry", "totals", "winner"),
    [
        # Alice & Carla claim and have 21: right, they win.
        (claim(0, 6, 2), (21, 15), 0),
        (claim(0, 0, 0, 6, 0), (21, 13), 0),
        (claim(0, 9, 1), (24, 14), 0),
        # Alice & Carla claim with 20: wrong, Beppe & Dino win.
        (claim(0, 5, 2), (20, 15), 1),
        (claim(0, 0, 0), (15, 13), 1),
        # Wrong even though the other side passes the line.
        (claim(0, 2, 8), (17, 21), 1),
        # Beppe & Dino claim.
        (claim(1, 1, 5, 0, 3), (16, 21), 1),
        (claim(1, 3, 4), (18, 17), 0),
        # Both pass the line: a right claim wins all the same.
        (claim(1, 6, 4, 0, 4), (21, 21), 1),
        (claim(1, 7, 3, 0, 6), (22, 22), 1),
    ],
)
def test_claims_right_and_wrong(entry, totals, winner):
    outcome = evaluate(rules_for(claims=True), [*CLAIM_BASE, entry])
    assert outcome.totals == totals
    assert outcome.decided
    assert outcome.winner == winner
    assert outcome.reason == EndReason.CLAIM
    assert outcome.deals[-1].points == (
        entry.card_points[0] + entry.declared_points[0],
        entry.card_points[1] + entry.declared_points[1],
    )


def test_a_claim_counts_at_most_10_card_points():
    with pytest.raises(DealInvalid) as caught:
        evaluate(rules_for(claims=True), [*CLAIM_BASE, claim(0, 8, 4)])
    [error] = caught.value.errors
    assert (error.code, error.deal_number) == ("claim_card_points_sum", 3)
    assert str(error) == (
        "A claim stops the deal before the last trick, so card points add up to at most 10: "
        "Alice & Carla 8 + Beppe & Dino 4 = 12."
    )


def test_a_claim_of_a_played_out_deal_is_refused():
    # 6 + 5 is every card point and the last trick: the deal was played out, not stopped.
    with pytest.raises(DealInvalid) as caught:
        evaluate(rules_for(claims=True), [*CLAIM_BASE, claim(0, 6, 5)])
    assert caught.value.codes == ["claim_card_points_sum"]
    outcome = evaluate(rules_for(claims=True), [*CLAIM_BASE, claim(0, 6, 4)])
    assert (outcome.totals, outcome.winner) == ((21, 17), 0)


@pytest.mark.parametrize("tie_rule", [HIGHER, ANOTHER])
def test_no_claim_once_both_sides_stand_at_the_line(tie_rule):
    # 22-21 under "another deal", or 23-23 under either rule: both have reached the line,
    # so a claim could not be wrong; the tie rule settles the next deal.
    tied = [normal(6, 5), normal(5, 6), normal(5, 6, 6, 4)] if tie_rule is ANOTHER else []
    tied = tied or [normal(6, 5), normal(5, 6), normal(6, 5, 6, 7)]
    before = evaluate(rules_for(tie_rule=tie_rule, claims=True), tied)
    assert before.another_deal and min(before.totals) >= 21
    with pytest.raises(DealInvalid) as caught:
        evaluate(rules_for(tie_rule=tie_rule, claims=True), [*tied, claim(1, 0, 0)])
    [error] = caught.value.errors
    assert (error.code, place(error), error.deal_number) == ("claim_after_tie", "kind", 4)
    assert str(error) == (
        "Both sides have already reached the line: the tie rule settles this deal, not a claim."
    )


def test_claims_are_refused_unless_the_match_allows_them():
    with pytest.raises(DealInvalid) as caught:
        check_deal(rules_for(claims=False), CLAIM_BASE, claim(0, 6, 2))
    assert caught.value.codes == ["claims_not_allowed"]
    assert place(caught.value.errors[0]) == "kind"


@pytest.mark.parametrize(
    ("line", "deals", "totals", "decided", "winner"),
    [
        (11, [normal(10, 1, 3, 0)], (13, 1), True, 0),
        (11, [normal(6, 5, 7, 6)], (13, 11), True, 0),
        (11, [normal(6, 5, 3, 3)], (9, 8), False, None),
        (101, [normal(6, 5, 4, 4)] * 10, (100, 90), False, None),
        (101, [*[normal(6, 5, 4, 4)] * 10, normal(1, 10)], (101, 100), True, 0),
        (31, [normal(8, 3, 3, 0)] * 3, (33, 9), True, 0),
        (41, [normal(8, 3, 3, 0)] * 3, (33, 9), False, None),
    ],
)
def test_lines_from_11_to_101(line, deals, totals, decided, winner):
    outcome = evaluate(rules_for(line), deals)
    assert outcome.totals == totals
    assert outcome.decided is decided
    assert outcome.winner == winner
    assert outcome.needs == (max(0, line - totals[0]), max(0, line - totals[1]))


@pytest.mark.parametrize(
    "deals",
    [
        [normal(8, 3, 3, 0), normal(4, 7, 0, 3), normal(9, 2)],
        [*LEVEL_29, normal(6, 5)],
        [*BEHIND_1_20, sweep(DealKind.STRAMAZZO, 0, 10, 1)],
        [normal(1, 10)] * 3,
    ],
)
def test_tressette_in_due_scores_exactly_like_the_partnership_game(deals):
    rules = rules_for()
    two = evaluate(rules, deals, first_dealer=1, seat_count=2)
    four = evaluate(rules, deals, first_dealer=1, seat_count=4)
    assert [d.dealer for d in two.deals] == [(n % 2) for n in range(1, len(deals) + 1)]

    def without_dealers(outcome):
        deals = tuple(dataclasses.replace(d, dealer=0) for d in outcome.deals)
        return dataclasses.replace(outcome, deals=deals, next_dealer=0)

    assert without_dealers(two) == without_dealers(four)
    assert two.decided


def test_no_deal_is_accepted_once_the_match_is_decided():
    deals = [normal(8, 3, 3, 0), normal(4, 7, 0, 3), normal(9, 2)]
    assert evaluate(rules_for(), deals).decided
    with pytest.raises(DealInvalid) as caught:
        check_deal(rules_for(), deals, normal(6, 5))
    [error] = caught.value.errors
    assert (error.code, place(error), error.deal_number) == ("match_decided", "", 4)
    assert str(error) == "The match is already decided: no more deals."
    with pytest.raises(DealInvalid) as caught:
        evaluate(rules_for(), [*deals, normal(6, 5)])
    assert caught.value.codes == ["match_decided"]


def test_editing_an_earlier_deal_rescores_a_later_sweep():
    before = [normal(4, 7), normal(6, 5), sweep(DealKind.CAPPOTTO, 0, 11, 0)]
    assert evaluate(rules_for(), before).deals[-1].points == (11, 0)  # 10 + 11 = 21
    edited = [normal(8, 3), *before[1:]]
    outcome = evaluate(rules_for(), edited)
    assert outcome.deals[-1].points == (7, 0)  # 14 + 7 = 21
    assert outcome.totals == (21, 8)


# --- Hypothesis: whole matches ----------------------------------------------

PAIRS = sorted(declaration_pairs())


@st.composite
def played_out_deals(draw) -> DealEntry:
    mine = draw(st.integers(1, 10))  # 11 against 0 is a sweep, never a deal played out
    return normal(mine, 11 - mine, *draw(st.sampled_from(PAIRS)))


@st.composite
def sweeps_and_claims(draw) -> DealEntry:
    declared = draw(st.sampled_from(PAIRS))
    kind = draw(st.sampled_from([DealKind.CAPPOTTO, DealKind.STRAMAZZO, DealKind.CLAIM]))
    side = draw(st.integers(0, 1))
    cards = [0, 0]
    if kind is DealKind.CLAIM:
        # Stopped before the last trick: 10 card points at most between them.
        cards[side] = draw(st.integers(0, 10))
        cards[1 - side] = draw(st.integers(0, 10 - cards[side]))
    else:
        cards[1 - side] = draw(st.integers(0, 1 if kind is DealKind.STRAMAZZO else 0))
        cards[side] = 11 - cards[1 - side]
    return DealEntry((cards[0], cards[1]), declared, kind, side=side)


matches = st.tuples(
    st.builds(
        MatchRules,
        line=st.integers(11, 101),
        tie_rule=st.sampled_from(list(TieRule)),
        claims_allowed=st.just(True),
        side_names=st.just(NAMES),
    ),
    # Mostly played-out deals, so that matches run long enough to reach the line.
    st.lists(
        st.one_of(*[played_out_deals()] * 5, sweeps_and_claims()),
        min_size=1,
        max_size=40,
    ),
    st.integers(0, 3),
)


def play(rules: MatchRules, entries: list[DealEntry], first_dealer: int) -> list[DealEntry]:
    """Add the entries one by one until the match is decided (no claim once both sides
    stand at the line: the tie rule settles that deal)."""
    played: list[DealEntry] = []
    for entry in entries:
        now = evaluate(rules, played, first_dealer=first_dealer)
        if now.decided:
            break
        if now.another_deal and entry.kind is DealKind.CLAIM:
            continue
        scored = check_deal(rules, played, entry, first_dealer=first_dealer)
        assert scored.number == len(played) + 1
        played.append(entry)
    return played


@given(matches)
def test_valid_deals_are_always_accepted_and_the_totals_are_the_sums(match):
    rules, entries, first_dealer = match
    played = play(rules, entries, first_dealer)
    outcome = evaluate(rules, played, first_dealer=first_dealer)
    assert len(outcome.deals) == len(played)
    running = (0, 0)
    for deal in outcome.deals:
        running = (running[0] + deal.points[0], running[1] + deal.points[1])
        assert deal.totals == running
        assert min(deal.points) >= 0
    assert outcome.totals == running
    assert outcome.needs == tuple(max(0, rules.line - total) for total in running)
    assert outcome.next_number == len(played) + 1


@given(matches)
def test_a_decided_match_stays_decided_and_refuses_another_deal(match):
    rules, entries, first_dealer = match
    played = play(rules, entries, first_dealer)
    outcome = evaluate(rules, played, first_dealer=first_dealer)
    assert evaluate(rules, played, first_dealer=first_dealer) == outcome
    if not outcome.decided:
        assert outcome.winner is None and outcome.reason is None
        return
    assert outcome.winner in (0, 1)
    assert not outcome.another_deal
    # Every deal before the last one left the match open.
    for n in range(len(played)):
        assert not evaluate(rules, played[:n], first_dealer=first_dealer).decided
    for entry in entries[len(played) :] or [normal(6, 5)]:
        with pytest.raises(DealInvalid) as caught:
            check_deal(rules, played, entry, first_dealer=first_dealer)
        assert caught.value.codes == ["match_decided"]


@given(matches)
def test_a_match_is_won_by_the_line_only_when_the_winner_reached_it(match):
    rules, entries, first_dealer = match
    outcome = evaluate(rules, play(rules, entries, first_dealer), first_dealer=first_dealer)
    if outcome.reason == EndReason.LINE:
        winner, loser = outcome.winner, 1 - outcome.winner
        assert outcome.totals[winner] >= rules.line
        assert outcome.totals[winner] > outcome.totals[loser] or outcome.totals[loser] < rules.line
    if outcome.reason in (EndReason.CAPPOTTO, EndReason.STRAMAZZO):
        assert outcome.totals[outcome.winner] >= rules.line
        assert outcome.deals[-1].entry.side == outcome.winner


def test_stored_deals_are_scored_as_they_stand_and_only_new_ones_checked():
    # An earlier version stored a claim of 11 card points; today's rules refuse it.
    stored = [normal(8, 3, 3, 0), claim(0, 6, 5)]
    with pytest.raises(DealInvalid):
        evaluate(rules_for(claims=True), stored)
    outcome = evaluate(rules_for(claims=True), stored, checked_from=3)
    assert (outcome.totals, outcome.winner, outcome.reason) == ((17, 8), 1, EndReason.CLAIM)
    # A deal from `checked_from` on is checked as ever.
    with pytest.raises(DealInvalid) as caught:
        evaluate(rules_for(claims=True), [normal(8, 3), normal(8, 4)], checked_from=2)
    assert caught.value.errors[0].deal_number == 2


# --- The next deal from where the match stands ---------------------------------------


@st.composite
def any_deals(draw) -> list[DealEntry]:
    """Deals as phones send them, valid or not: played out, sweeps and claims."""
    pairs = sorted(declaration_pairs())

    def one() -> DealEntry:
        kind = draw(st.sampled_from([DealKind.NORMAL] * 6 + [*DealKind]))
        mine = draw(st.integers(0, 11))
        cards = (mine, draw(st.sampled_from([11 - mine, max(0, 10 - mine), 11 - mine])))
        declared = draw(st.sampled_from(pairs))
        side = None if kind is DealKind.NORMAL else draw(st.integers(0, 1))
        seat = side if kind in (DealKind.CAPPOTTONE, DealKind.STRAMAZZONE) else None
        return DealEntry(cards, declared, kind, side, seat)

    return [one() for _ in range(draw(st.integers(1, 12)))]


@given(any_deals(), st.sampled_from([11, 21, 31]), st.sampled_from([HIGHER, ANOTHER]))
def test_the_next_deal_from_the_kept_standing_is_what_replaying_every_deal_gives(
    entries, line, tie_rule
):
    """What a save checks and scores from the totals a match keeps is what evaluate() gives
    replaying the match from its first deal: the same refusal, the same row, the same
    side decided for."""
    rules = rules_for(line, tie_rule, claims=True)
    standing, stored = Standing((0, 0), 0), []
    for entry in entries:
        try:
            replayed = evaluate(rules, [*stored, entry], checked_from=len(stored) + 1,
                                new=len(stored) + 1)  # fmt: skip
        except DealInvalid as invalid:
            with pytest.raises(DealInvalid) as again:
                next_deal(rules, standing, entry)
            assert again.value.codes == invalid.codes
            continue
        deal, standing = next_deal(rules, standing, entry)
        assert deal == replayed.deals[-1]
        assert standing == Standing(replayed.totals, len(replayed.deals), replayed.winner)
        stored.append(entry)
