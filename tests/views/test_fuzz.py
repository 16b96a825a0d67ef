"""Hostile input on every form: never a 500, never an invalid deal stored."""

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matches import rules
from matches.models import Deal, Match, Table

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
numbers = st.one_of(
    st.integers(-5, 30).map(str),
    st.sampled_from(["", " ", "3.5", "1e3", "٣", "0x1", "9" * 400, "-0", "+3", "½", "\x00"]),
    st.text(max_size=12),
)
names = st.one_of(
    st.text(max_size=80),
    st.sampled_from(
        [
            "<script>alert(1)</script>",
            '" hx-get="/x',
            "🂡🂱 Asso",
            "אליס",
            "x" * 10_000,
            "\u202e\u0007",
        ]
    ),
)


def assert_every_deal_stands(match: Match) -> None:
    deals = list(match.deals.order_by("number"))
    outcome = rules.evaluate(
        match.match_rules(tuple(match.sides.values_list("name", flat=True))),
        [deal.entry for deal in deals],
        first_dealer=match.first_dealer,
        seat_count=match.seat_count,
    )
    assert [d.points for d in deals] == [s.points for s in outcome.deals]
    assert [d.number for d in deals] == list(range(1, len(deals) + 1))


@FUZZ
@given(
    data=st.fixed_dictionaries(
        {
            "number": numbers,
            "key": st.text(max_size=80),
            "kind": st.sampled_from(["normal", "cappotto", "stramazzo", "claim", "", "x"]),
            "side": st.sampled_from(["", "0", "1", "2", "-1", "a"]),
            "card_points_0": numbers,
            "card_points_1": numbers,
            "declared_points_0": numbers,
            "declared_points_1": numbers,
        }
    ),
    count=st.booleans(),
)
def test_the_deal_form_never_breaks_and_never_stores_a_bad_deal(
    scorer, match, deal_url, data, count
):
    if count:
        data |= {"count": "1", "count_side": "0", "aces": data["card_points_0"], "figures": "3"}
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        response = scorer.post(deal_url, data, **headers)
        assert response.status_code in (200, 302)
    assert_every_deal_stands(match)
    match.refresh_from_db()
    assert tuple(match.totals) == (
        sum(d.points[0] for d in Deal.objects.filter(match=match)),
        sum(d.points[1] for d in Deal.objects.filter(match=match)),
    )


@FUZZ
@given(
    data=st.fixed_dictionaries(
        {
            "players_per_side": st.sampled_from(["1", "2", "3", "", "x"]),
            "player_0": names,
            "player_1": names,
            "player_2": names,
            "player_3": names,
            "side_name_0": names,
            "side_name_1": names,
            "line": numbers,
            "tie_rule": st.sampled_from(["higher_total", "another_deal", "", "x"]),
            "claims_allowed": st.sampled_from(["", "on", "x"]),
            "first_dealer": st.sampled_from(["0", "1", "2", "3", "4", "", "-1"]),
        }
    )
)
def test_the_new_match_form_never_breaks(scorer, table, data):
    response = scorer.post(reverse("new_match", args=[table.viewer_token]), data)
    assert response.status_code in (200, 302)
    for match in Match.objects.filter(table=table):
        assert rules.MIN_LINE <= match.line <= rules.MAX_LINE
        assert all(0 < len(side.name) <= 83 for side in match.sides.all())


@FUZZ
@given(name=names, label=names)
def test_table_player_and_join_forms_never_break(client, name, label):
    assert client.post(reverse("create_table"), {"name": name}).status_code in (200, 302, 429)
    table = Table.objects.order_by("-pk").first()
    if table is None:
        return
    assert all(0 < len(t.name) <= 60 for t in Table.objects.all())
    join = client.post(reverse("join", args=[table.scorer_token]), {"label": label})
    assert join.status_code in (200, 302)
    added = client.post(reverse("add_player", args=[table.viewer_token]), {"name": name})
    assert added.status_code in (200, 302)
    settings_url = f"/t/{table.viewer_token}/m/1/settings"
    assert client.post(settings_url, {"line": name}).status_code in (200, 302, 404)
