"""The sheet (matches/views/sheet.py): what each phone sees, its polls, and the actions on a
match (ending, stopping, reopening, a rematch, its settings), with and without HTMX."""

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from matches import rules, services
from matches.models import Match, Player, Table
from matches.views import watched
from tests.factories import MatchFactory
from tests.html import csrf_token, errors_of, one, parsed, said, value, words
from tests.views.conftest import deal_data, scores

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HX = {"HTTP_HX_REQUEST": "true", **EN}


# --- What everyone sees ------------------------------------------------------------------


def test_the_sheet_shows_both_totals_what_each_needs_and_who_deals(scorer, sheet_url, worked):
    page = parsed(scorer.get(sheet_url, **EN))
    assert scores(page) == ["11", "3"]
    assert [words(n) for n in page.select("#live .needs")] == ["needs 10 more", "needs 18 more"]
    assert words(one(page, ".next-dealer")) == "Deal 2: Beppe deals."
    assert words(one(page, "#deal-1")) == "1 Alice 11 8 + 3 3 11–3 ✎"


def test_a_scorer_gets_the_entry_form_and_a_viewer_is_told_it_is_watching(scorer, sheet_url):
    assert parsed(scorer.get(sheet_url, **EN)).select("#deal-form")
    page = parsed(Client().get(sheet_url, **EN))
    assert not page.select("#deal-form")
    assert words(one(page, "#watching")) == (
        "You are watching: this link shows everything and changes nothing."
    )


def test_the_scoreboard_shows_a_pair_a_player_a_line_so_a_long_name_hides_no_partner(client):
    long = "Maria Grazia Annunziata Esposito-Russo"
    match = MatchFactory(sides=[[long, "Bruno"], ["Gianfranco", "Dino"]])
    match.sides.filter(position=1).update(name="I Leoni")  # a name the table gave the side
    page = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN))
    pair, named = page.select(".scoreboard .side-name")
    assert [words(line) for line in pair.select(".clip")] == [long, "& Bruno"]
    assert "pair" not in named["class"] and words(named) == "I Leoni"
    due = MatchFactory(players_per_side=1)
    page = parsed(client.get(reverse("match", args=[due.table.viewer_token, due.pk]), **EN))
    assert words(page.select(".scoreboard .side-name")[0]) == "Alice"


def test_the_deals_head_a_pair_a_player_a_line_too(scorer, sheet_url, worked):
    head = parsed(scorer.get(sheet_url, **EN)).select_one(".deals thead th.side-0")
    assert [words(line) for line in head.select(".clip")] == ["Alice", "& Carla"]


def test_a_long_side_name_is_clipped_not_breaking_the_layout(scorer, match, sheet_url):
    match.sides.filter(position=0).update(name="Alessandra " * 7)
    legend = parsed(scorer.get(sheet_url, **EN)).select_one(".side-entry.side-0 legend .clip")
    assert words(legend).startswith("Alessandra Alessandra")


def test_the_sheet_says_when_the_match_began(scorer, match, sheet_url):
    match.started_at = datetime(2026, 11, 28, 21, 5, tzinfo=ZoneInfo("Europe/Rome"))
    match.save()
    english = parsed(scorer.get(sheet_url, **EN))
    assert words(one(english, ".started")) == "started Nov. 28, 2026, 21:05"
    italian = parsed(scorer.get(sheet_url, HTTP_ACCEPT_LANGUAGE="it"))
    assert words(one(italian, ".started")) == "iniziata: 28 nov 2026 alle 21:05"


def test_a_won_match_says_so_instead_of_what_each_side_needs(scorer, match, sheet_url):
    for number in (1, 2):
        services.record_deal(
            match_id=match.pk, number=number, entry=rules.DealEntry((8, 3), (3, 0))
        )
    page = parsed(scorer.get(sheet_url, **EN))
    assert [words(n) for n in page.select("#live .needs")] == ["match won", ""]
    assert "winner" in one(page, ".score.side-0")["class"]


def test_a_sweepers_points_are_said_to_reach_the_line_not_summed(scorer, match, sheet_url):
    services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((6, 5), (0, 0)))
    cappotto = rules.DealEntry((0, 11), (0, 0), kind=rules.DealKind.CAPPOTTO, side=1)
    services.record_deal(match_id=match.pk, number=2, entry=cappotto)
    row = parsed(scorer.get(sheet_url, **EN)).select_one("#deal-2")
    # Beppe & Dino had 5: the cappotto scores the 16 that take them to 21.
    assert words(row.select_one("td.side-1")) == "16 → 21 Cappotto"
    assert row.select_one("td.side-1 .detail")["title"] == "to the line"
    assert words(row.select_one("td.side-0")) == "0"  # no stray "0 + 0"


def test_a_sweeper_already_past_the_line_scores_0_without_reaching_for_it(scorer, match, sheet_url):
    # 23-23: both at the line, another deal; then Beppe & Dino's cappotto wins it.
    for number, entry in enumerate([(6, 5, 0, 0), (5, 6, 0, 0), (6, 5, 6, 7)], start=1):
        deal = rules.DealEntry(entry[:2], entry[2:])
        services.record_deal(match_id=match.pk, number=number, entry=deal)
    cappotto = rules.DealEntry((0, 11), (3, 0), kind=rules.DealKind.CAPPOTTO, side=1)
    services.record_deal(match_id=match.pk, number=4, entry=cappotto)
    row = parsed(scorer.get(sheet_url, **EN)).select_one("#deal-4")
    assert words(row.select_one("td.side-1")) == "0 Cappotto"


def test_the_chart_writes_each_sides_total_at_the_end_of_its_trace(scorer, sheet_url, worked):
    chart = parsed(scorer.get(sheet_url, **EN)).select_one("#chart")
    assert [words(total) for total in chart.select("text")] == ["11", "3"]
    assert words(chart.select_one("figcaption")) == "■ Alice & Carla ■ Beppe & Dino – – line 21"


def long_match(deals: int, table: Table | None = None) -> tuple[Match, str]:
    """A match at line 101 of `deals` deals, 6 to 5 and 5 to 6 in turn (18 deals: 99 to 99),
    and its sheet's address."""
    match = MatchFactory(line=101, **({"table": table} if table else {}))
    for number in range(1, deals + 1):
        points = (6, 5) if number % 2 else (5, 6)
        entry = rules.DealEntry(points, (0, 0))
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    return match, reverse("match", args=[match.table.viewer_token, match.pk])


def deal_ids(page) -> list[str]:
    return [row["id"] for row in page.select("#deal-rows tr")]


def test_a_long_sheet_sends_its_last_deals_and_links_to_the_first_a_shorter_one_all(client):
    match, url = long_match(12)  # folding 2 would save nothing
    page = parsed(client.get(url, **EN))
    assert not page.select("#fold") and len(deal_ids(page)) == 12
    services.record_deal(match_id=match.pk, number=13, entry=rules.DealEntry((6, 5), (0, 0)))
    page = parsed(client.get(url, **EN))
    assert deal_ids(page) == [f"deal-{number}" for number in range(4, 14)]
    link = one(page, "a#fold")
    assert words(link) == "Show deals 1–3"
    assert link["href"] == link["hx-get"] == f"{url}?deals=all"
    assert one(page, "#all-deals").has_attr("disabled")  # not sent: its polls draw the last
    italian = parsed(client.get(url, HTTP_ACCEPT_LANGUAGE="it"))
    assert words(one(italian, "a#fold")) == "Mostra le smazzate 1–3"


def test_without_scripts_every_deal_is_on_the_sheet_its_link_names(scorer, table):
    _, url = long_match(13, table)
    scorer.get(url, **EN)  # the page of the last deals, first
    page = parsed(scorer.get(f"{url}?deals=all", **EN))
    assert deal_ids(page) == [f"deal-{number}" for number in range(1, 14)]
    assert one(page, "#deal-1 a")["href"] == f"{url}deals/1/edit"  # an early deal's edit too
    link = one(page, "a#fold")
    assert words(link) == "Hide deals 1–3" and link["href"] == url
    assert page.select("#deal-form") and page.select("#live")  # the whole sheet
    assert "all-deals" in one(page, "#live")["hx-include"]


def test_with_htmx_the_link_brings_the_deals_alone_every_one_or_the_last(scorer, table):
    _, url = long_match(13, table)
    shown = scorer.get(f"{url}?deals=all", **HX)
    assert shown["Vary"] and "HX-Request" in shown["Vary"]
    page = parsed(shown)
    assert [section["id"] for section in page.select("section")] == ["rows"]
    assert not page.select("#live, #deal-form, [hx-swap-oob]")
    assert len(deal_ids(page)) == 13 and one(page, "#all-deals")["value"] == "all"
    assert not one(page, "#all-deals").has_attr("disabled")
    assert one(page, "a#fold")["hx-get"] == f"{url}?deals=last"
    hidden = parsed(scorer.get(f"{url}?deals=last", **HX))
    assert len(deal_ids(hidden)) == 10 and words(one(hidden, "a#fold")) == "Show deals 1–3"


def test_a_poll_from_a_phone_that_shows_every_deal_draws_them_all_again(scorer, table):
    match, url = long_match(13, table)
    deal = match.deals.get(number=2)
    services.edit_deal(deal=deal, version=deal.version, entry=rules.DealEntry((3, 8), (0, 0)))
    poll = f"{url}?poll=1&shown=13"
    every = parsed(scorer.get(f"{poll}&deals=all", **HX))
    assert one(every, "#rows")["hx-swap-oob"] == "true"
    assert len(deal_ids(every)) == 13 and words(one(every, "#deal-2 td.side-0 strong")) == "3"
    assert len(deal_ids(parsed(scorer.get(poll, **HX)))) == 10


def test_every_deal_asks_the_database_as_often_as_the_last_ones(
    scorer, table, django_assert_num_queries
):
    for deals in (13, 18):
        _, url = long_match(deals, table)
        # The match's state (as watched, then afresh for a tap on the link); the match, its
        # deals, its log (no evening at this table: no tonight's tally to read).
        asks = ((url, EN, 4), (f"{url}?deals=all", EN, 5), (f"{url}?deals=all", HX, 5))
        for asked, headers, queries in asks:
            scorer.get(asked, **headers)  # its state watched, as a phone's would be
            cache.clear()
            with django_assert_num_queries(queries):
                assert scorer.get(asked, **headers).status_code == 200


def test_the_share_script_comes_with_a_result_to_share_not_with_a_match_in_progress(
    scorer, match, sheet_url
):
    def scripts(page) -> list[str]:
        return [script["src"] for script in page.select("script[src]")]

    decided(match)
    page = parsed(scorer.get(sheet_url, **EN))
    assert page.select("#end-match") and not any("js/share" in src for src in scripts(page))
    answer = parsed(scorer.post(sheet_url + "end", **HX))  # End match, with HTMX
    share = one(answer, "#share-result")["data-script"]  # what sheet.js then fetches
    assert "js/share" in share
    assert share in scripts(parsed(scorer.get(sheet_url, **EN)))


def test_both_sides_at_the_line_say_the_higher_total_won(scorer, match, sheet_url):
    # 11 to 11, then 6 + 4 against 5 + 6: both reach 21 on one deal, 21 to 22.
    for number, entry in enumerate([(6, 5, 0, 0), (5, 6, 0, 0), (6, 5, 4, 6)], start=1):
        services.record_deal(
            match_id=match.pk, number=number, entry=rules.DealEntry(entry[:2], entry[2:])
        )
    decided = parsed(scorer.get(sheet_url, **EN)).select_one(".decided p")
    assert words(decided) == (
        "Both sides have reached the line: Beppe & Dino have the higher total and win the match."
    )
    assert words(decided.select_one("strong")) == "Beppe & Dino"


@pytest.mark.parametrize(
    ("players", "claimer", "verdict"),
    [
        (1, 0, "Alice claimed the line rightly and wins the match."),
        (2, 1, "Beppe & Dino claimed the line wrongly: Alice & Carla win the match."),
    ],
)
def test_a_claim_says_who_claimed_and_who_wins_in_good_english(client, players, claimer, verdict):
    match = MatchFactory(players_per_side=players, claims_allowed=True)
    # Side 0 has 14, then 21 when the claim stops deal 2: its claim is right, side 1's wrong.
    services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((10, 1), (4, 0)))
    claim = rules.DealEntry((7, 0), (0, 0), kind=rules.DealKind.CLAIM, side=claimer)
    services.record_deal(match_id=match.pk, number=2, entry=claim)
    page = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN))
    assert words(page.select_one(".decided p")) == verdict


def test_a_side_name_full_of_markup_is_shown_as_typed(client):
    match = MatchFactory(sides=[["<b>Alice</b>"], ["Beppe"]], players_per_side=1)
    services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((8, 3), (13, 0)))
    page = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN))
    verdict = page.select_one(".decided p")
    assert words(verdict) == "<b>Alice</b> has reached the line and wins the match."
    assert not verdict.select("b")


def test_an_ended_match_won_on_a_wrong_claim_says_who_claimed(client):
    match = MatchFactory(players_per_side=1, claims_allowed=True)
    services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((6, 5), (0, 0)))
    claim = rules.DealEntry((3, 2), (0, 0), kind=rules.DealKind.CLAIM, side=0)
    services.record_deal(match_id=match.pk, number=2, entry=claim)  # 9: wrong
    services.end_match(match=match)
    page = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN))
    assert words(page.select_one(".result")) == (
        "Beppe won the match (claim). Alice claimed the line wrongly."
    )


def test_the_side_question_mentions_claims_only_where_claims_are_allowed(scorer, match, sheet_url):
    question = parsed(scorer.get(sheet_url, **EN)).select_one("#side-choice-label")
    assert words(question) == "Which side swept"
    services.change_settings(match=match, settings=rules.MatchSettings(21, "higher_total", True))
    question = parsed(scorer.get(sheet_url, **EN)).select_one("#side-choice-label")
    # The one for the kind chosen is shown (app.css: .if-claim, .unless-claim).
    assert words(question.select_one(".unless-claim")) == "Which side swept"
    assert words(question.select_one(".if-claim")) == "Which side claimed"


def test_the_entry_form_offers_claims_only_where_allowed_in_the_phones_language(
    scorer, match, sheet_url
):
    def kinds(page) -> list[str]:
        return [field["value"] for field in page.select("#deal-form input[name=kind]")]

    english = parsed(scorer.get(sheet_url, **EN))
    assert kinds(english) == ["normal", "cappotto", "stramazzo", "cappottone", "stramazzone"]
    services.change_settings(match=match, settings=rules.MatchSettings(21, "higher_total", True))
    assert kinds(parsed(scorer.get(sheet_url, **EN)))[-1] == "claim"
    italian = parsed(scorer.get(sheet_url, HTTP_ACCEPT_LANGUAGE="it"))
    assert words(italian.select_one(".side-0 .field legend")) == "Punti carte"
    assert words(italian.select_one("label[for=id_card_points_0]")) == "Oppure scrivili"


def test_the_sheet_reads_as_on_paper_the_deals_then_the_totals_then_the_next_deal(
    scorer, sheet_url, worked
):
    page = parsed(scorer.get(sheet_url, **EN))
    parts = [part["id"] for part in page.select("#sheet > [id]")]
    assert parts[:6] == ["announce", "rows", "live", "elsewhere", "notices", "entry"]
    assert [words(th) for th in page.select("#rows thead th")][1:4] == [
        "Alice & Carla", "Beppe & Dino", "Totals"
    ]  # fmt: skip
    assert not page.select("#recent")  # no strip of last deals without headings


def test_each_side_taps_its_card_points_on_a_pad_of_twelve_keys(scorer, sheet_url):
    page = parsed(scorer.get(sheet_url, **EN))
    for side in (0, 1):
        pad = one(page, f".side-entry.side-{side} .pad")
        keys = pad.select(f"input[type=radio][name=card_pad_{side}]")
        assert [key["value"] for key in keys] == [str(points) for points in range(12)]
        assert [words(key.parent) for key in keys] == [str(points) for points in range(12)]
        assert words(pad.find_parent("fieldset")).startswith("Card points")
    typed = one(page, "#id_card_points_0")
    assert typed["inputmode"] == "numeric"  # 7⅓ is typed: a text field, not a number's
    assert words(one(page, "label[for=id_card_points_0]")) == "Or type them"


def test_the_entry_head_carries_both_totals_and_what_a_sweep_would_make_them(
    scorer, match, sheet_url
):
    for number, entry in enumerate([(6, 5, 0, 0), (5, 6, 0, 0), (6, 5, 6, 7)], start=1):
        deal = rules.DealEntry(entry[:2], entry[2:])
        services.record_deal(match_id=match.pk, number=number, entry=deal)
    page = parsed(scorer.get(sheet_url, **EN))  # 23-23, line 21: both past it already
    tally = one(page, "#entry-next #tally")
    assert words(tally) == "Alice & Carla 23 – Beppe & Dino 23"
    assert (tally["data-totals"], tally["data-sweeps"]) == ("23 23", "23 23")
    assert words(one(page, "#after")) == "Tap one side's card points. After this deal: 23 – 23"
    services.delete_last_deal(match=match, number=3)
    tally = one(parsed(scorer.get(sheet_url, **EN)), "#tally")  # 11-11: a sweep makes 21
    assert (tally["data-totals"], tally["data-sweeps"]) == ("11 11", "21 21")
    assert rules.sweep_points(21, 11) == 10


def test_the_page_names_the_other_sides_card_points_as_the_rules_fill_them_in(scorer, sheet_url):
    form = parsed(scorer.get(sheet_url, **EN)).select_one("#deal-form")
    others = form["data-other-card-points"].split()
    assert others == [str(11 - typed) for typed in range(12)]
    assert others[8] == str(rules.complete_card_points(8, None)[1])


# --- The phones' polls -------------------------------------------------------------------


def test_an_unchanged_sheet_answers_304_to_a_poll(scorer, sheet_url, worked):
    first = scorer.get(sheet_url + "?poll=1", **HX)
    assert first.status_code == 200
    again = scorer.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=first["ETag"], **HX)
    assert again.status_code == 304 and again.content == b""


def test_a_compressed_sheet_still_answers_304_to_its_weak_etag(scorer, sheet_url, worked):
    first = scorer.get(sheet_url + "?poll=1", HTTP_ACCEPT_ENCODING="gzip", **HX)
    assert first["Content-Encoding"] == "gzip" and first["ETag"].startswith('W/"')
    again = scorer.get(
        sheet_url + "?poll=1", HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=first["ETag"], **HX
    )
    assert again.status_code == 304


def test_a_new_deal_changes_the_etag_and_the_poll_shows_it(scorer, sheet_url, deal_url, worked):
    etag = scorer.get(sheet_url + "?poll=1", **HX)["ETag"]
    scorer.post(deal_url, deal_data(number=2), **HX)
    response = scorer.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=etag, **HX)
    assert response.status_code == 200 and parsed(response).select("#deal-2")


def test_a_sheet_may_be_a_second_behind_another_phone_but_never_behind_this_ones_copy(
    scorer, sheet_url, deal_url, worked, settings, monkeypatch
):
    """Opened or polled, the sheet is drawn from the match as this process read it at most a
    second ago; but a reload, a copy the phone holds that is newer, and the phone's own
    change are drawn from the match as it stands."""
    settings.POLL_STALE_SECONDS = 1
    clock = [1000.0]
    monkeypatch.setattr(watched.time, "monotonic", lambda: clock[0])
    poll = sheet_url + "?poll=1&number=2&typing=0"
    etag = scorer.get(poll, **HX)["ETag"]
    other = Client()
    other.post(reverse("join", args=[Table.objects.get().scorer_token]))
    other.post(deal_url, deal_data(number=2), **HX)  # another phone saves deal 2
    clock[0] += 0.9
    assert scorer.get(poll, HTTP_IF_NONE_MATCH=etag, **HX).status_code == 304
    assert not parsed(Client().get(sheet_url, **EN)).select("#deal-2")  # a phone's first look
    reloaded = scorer.get(sheet_url, HTTP_CACHE_CONTROL="max-age=0", **EN)
    assert parsed(reloaded).select("#deal-2")
    # Opened again, the phone's copy is newer than what this process read: not drawn over.
    again = scorer.get(sheet_url, HTTP_IF_NONE_MATCH=reloaded["ETag"], **EN)
    assert again.status_code == 304
    # The sheet this phone's own change leads to shows it (deal 2 decided the match).
    ended = parsed(scorer.post(sheet_url + "end", follow=True, **EN))
    assert words(one(ended, ".result .big")) == "Alice & Carla won the match (reached the line)."
    clock[0] += 0.1  # a second on, every phone is shown the match as it stands
    answer = parsed(Client().get(sheet_url, **EN))
    assert answer.select("#deal-2") and answer.select(".result")


def test_a_phone_that_joins_through_a_new_scorer_link_scores_at_once(
    client, match, sheet_url, settings, monkeypatch
):
    """The state read a moment ago names the link replaced: this phone's newer one is read."""
    settings.POLL_STALE_SECONDS = 1
    monkeypatch.setattr(watched.time, "monotonic", lambda: 1000.0)
    assert not parsed(client.get(sheet_url, **EN)).select("#deal-form")  # watched, as a viewer
    services.rotate_link(table=match.table, which="scorer")
    client.post(reverse("join", args=[Table.objects.get().scorer_token]))
    page = parsed(client.get(sheet_url, **EN))
    assert page.select("#deal-form") and "link" not in words(one(page, "#notices")).lower()


def test_a_changed_sheet_is_read_once_for_every_process_that_polls_it(
    scorer, sheet_url, deal_url, worked, django_assert_num_queries
):
    poll = sheet_url + "?poll=1&number=3&typing=0"
    # Kept by the sheet the save redirects to, in the shared cache.
    scorer.post(deal_url, deal_data(number=2), follow=True, **HX)
    watched.forget()  # as another process, which kept nothing of its own
    with django_assert_num_queries(1):  # the match's revision: the sheet is the cache's
        answer = scorer.get(poll, **HX)
    assert answer.status_code == 200 and parsed(answer).select("#deal-2")
    watched.forget()
    cache.clear()  # nothing kept anywhere: read from the database
    # The revision, then the sheet: the match, deals, log (no evening at this table yet: no
    # tonight's tally to read).
    with django_assert_num_queries(4):
        assert parsed(scorer.get(poll, **HX)).select("#deal-2")


def test_renaming_a_player_changes_the_sheet_every_phone_sees(scorer, sheet_url, worked):
    etag = scorer.get(sheet_url + "?poll=1", **HX)["ETag"]
    services.rename_player(player=Player.objects.get(name="Beppe"), name="Giuseppe")
    response = scorer.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=etag, **HX)
    assert words(one(parsed(response), ".next-dealer")) == "Deal 2: Giuseppe deals."


def test_a_poll_leaves_this_phones_notices_and_its_typing_alone(scorer, sheet_url, worked):
    idle = parsed(scorer.get(sheet_url + "?poll=1&number=2&typing=0", **HX))
    parts = [part["id"] for part in idle.find_all(attrs={"hx-swap-oob": "true"})]
    assert parts == ["live", "elsewhere", "rows", "chart", "entry"]
    typing = parsed(scorer.get(sheet_url + "?poll=1&number=2&typing=1", **HX))
    assert [part["id"] for part in typing.find_all(attrs={"hx-swap-oob": "true"})] == [
        "live",
        "elsewhere",
        "rows",
        "chart",
    ]
    stale = parsed(scorer.get(sheet_url + "?poll=1&number=1&typing=1", **HX))
    assert "Another phone has just entered a deal. Check the sheet before saving yours." in words(
        one(stale, "#elsewhere")
    )


def test_a_scorer_one_deal_behind_is_polled_the_row_added_and_the_next_deal(
    scorer, match, sheet_url, deal_url, worked
):
    """Another phone saved the deal this phone's form is at: the poll draws what that save
    drew for its own phone (the row added, the form moved on), not the whole sheet."""
    shown = Match.objects.get().revision
    page = parsed(scorer.get(sheet_url, **EN))
    assert one(page, "#live")["hx-get"].endswith(f"?poll=1&shown={shown}")
    other = Client()
    other.post(reverse("join", args=[match.table.scorer_token]))
    other.post(deal_url, deal_data(number=2, a="6", b="5", da="0"), **HX)
    response = scorer.get(f"{sheet_url}?poll=1&shown={shown}&number=2&typing=0", **HX)
    page = parsed(response)
    parts = [part["id"] for part in page.find_all(attrs={"hx-swap-oob": "true"}, recursive=False)]
    assert parts == ["live", "elsewhere", "chart", "entry-next", "delete-last", "deal-key"]
    assert response["HX-Trigger-After-Swap"] == "deal:next"
    added = page.find("tbody", attrs={"hx-swap-oob": "beforeend:#deal-rows"})
    assert [str(cell.strong.string) for cell in added.select("td.side-0, td.side-1")] == ["6", "5"]
    assert scores(page) == ["17", "8"] and not page.select("#deal-form, #rows, #notices")
    assert value(page, "number") == "3" and value(page, "shown") == str(shown + 1)
    assert one(page, "#live")["hx-get"].endswith(f"?poll=1&shown={shown + 1}")


def test_what_a_save_drew_for_its_phone_is_drawn_once_for_the_phones_a_deal_behind(
    scorer, match, sheet_url, deal_url, worked
):
    """The row added and the next deal's parts come from what the save drew ({% cache %}),
    the deal marked as new (data-arrived) for the phones a deal behind, all of them alike;
    the key of the deal each phone types next is its own."""
    shown = Match.objects.get().revision
    other = Client()
    other.post(reverse("join", args=[match.table.scorer_token]))
    data = deal_data(number=2, a="6", b="5", da="0", shown=shown, drawn_blank="1")
    saved = parsed(other.post(deal_url, data, follow=True, **HX))
    polled = parsed(scorer.get(f"{sheet_url}?poll=1&shown={shown}&number=2&typing=0", **HX))
    marked = polled.find_all(attrs={"data-arrived": True})
    assert [row.th.contents[0].strip() for row in marked] == ["2"]
    for row in marked:
        del row["data-arrived"]
    for part in ("template", "#chart", "#entry-next", "#delete-last"):
        assert str(one(saved, part)) == str(one(polled, part)), part
    assert value(saved, "number") == value(polled, "number") == "3"
    assert value(saved, "key") != value(polled, "key")  # each phone's next deal, its own key


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("shown={behind}&number=2&typing=1", "typing deal 2: its form is not touched"),
        ("shown={two_behind}&number=2&typing=0", "another change before this deal"),
        ("shown={behind}&number=3&typing=0", "its form is already at deal 3"),
        ("number=2&typing=0", "an older page, which names no revision"),
    ],
)
def test_a_poll_draws_the_whole_sheet_unless_only_the_last_deal_is_new_to_it(
    scorer, match, sheet_url, deal_url, worked, query, why
):
    behind = Match.objects.get().revision
    services.rename_player(player=match.sides.get(position=0).first_player, name="Alba")
    services.rename_player(player=match.sides.get(position=0).first_player, name="Alice")
    behind, two_behind = behind + 2, behind + 1
    scorer.post(deal_url, deal_data(number=2, a="6", b="5", da="0"), **HX)
    assert Match.objects.get().revision == behind + 1  # each rename was a change too
    poll = f"{sheet_url}?poll=1&" + query.format(behind=behind, two_behind=two_behind)
    page = parsed(scorer.get(poll, **HX))
    assert page.select("#rows") and not page.select("template"), why


def test_a_poll_is_told_unchanged_as_viewer_or_scorer_until_the_scorer_link_changes(
    scorer, match, sheet_url, worked
):
    viewer = Client()
    viewer_etag = viewer.get(sheet_url + "?poll=1", **HX)["ETag"]
    scorer_etag = scorer.get(sheet_url + "?poll=1", **HX)["ETag"]
    assert viewer_etag != scorer_etag
    for phone, etag in ((viewer, viewer_etag), (scorer, scorer_etag)):
        assert phone.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=etag, **HX).status_code == 304
    services.rotate_link(table=match.table, which="scorer")
    # The old scorer link no longer scores: its phone is shown the sheet as a viewer sees it.
    answer = scorer.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=scorer_etag, **HX)
    assert answer.status_code == 200 and not parsed(answer).select("#deal-form")
    # As a viewer sees it now (the new link bumped the table's revision, as tonight's does).
    assert answer["ETag"] == viewer.get(sheet_url + "?poll=1", **HX)["ETag"]


def test_a_page_cached_before_joining_is_drawn_again_for_the_scorer(client, match, sheet_url):
    page = client.get(sheet_url, **EN)
    assert not parsed(page).select("#deal-form")
    client.post(reverse("join", args=[match.table.scorer_token]), {"label": "Dino's phone"})
    again = client.get(sheet_url, HTTP_IF_NONE_MATCH=page["ETag"], **EN)
    assert again.status_code == 200 and parsed(again).select("#deal-form")


def test_a_phone_whose_scorer_link_was_replaced_is_told_by_its_next_poll(scorer, match, worked):
    sheet_url = reverse("match", args=[match.table.viewer_token, match.pk])
    poll = sheet_url + "?poll=1&number=2&typing=1"  # even mid-typing
    told = "This table's scorer link has changed: this phone can only watch now."
    assert told not in said(scorer.get(poll, **HX))
    services.rotate_link(table=Table.objects.get(), which="scorer")
    page = parsed(scorer.get(poll, **HX))
    assert told in words(one(page, "#elsewhere"))
    assert one(page, "#entry") and not page.select("#deal-form")  # withdrawn
    assert told in said(scorer.get(sheet_url, **EN))  # and on opening the sheet
    assert "can only watch" not in said(Client().get(poll, **HX))  # a viewer is told nothing


def test_fragments_are_never_kept_by_the_browser_cache(scorer, sheet_url, worked):
    poll = scorer.get(sheet_url + "?poll=1", **HX)
    assert "no-store" in poll["Cache-Control"]
    page = scorer.get(sheet_url, **EN)
    assert "no-store" not in page["Cache-Control"] and "no-cache" in page["Cache-Control"]
    assert page["X-Robots-Tag"] == "noindex, nofollow"


def test_every_load_carries_its_own_idempotency_key_and_csrf_token(scorer, match, sheet_url):
    other = Client()
    other.post(f"/join/{match.table.scorer_token}/", {"label": "Dino"})
    pages = [phone.get(sheet_url, **EN) for phone in (scorer, other, scorer)]
    keys = {value(parsed(page), "key") for page in pages}
    assert len(keys) == 3  # a fresh idempotency key on every load
    tokens = {value(parsed(page), "csrfmiddlewaretoken") for page in pages}
    assert len(tokens) == 3  # masked afresh on every load, though parts of the page are kept


def test_a_sheet_opened_again_is_drawn_from_its_kept_parts_with_its_own_tokens_and_key(
    scorer, sheet_url, worked
):
    """The parts every phone in a role sees at a revision are drawn once ({% cache %}); each
    answer's CSRF tokens, one in each form, and the key of the deal typed next are its own."""
    loads = [scorer.get(sheet_url, **EN) for _ in range(2)]
    drawn = [{template.name for template in load.templates} for load in loads]
    parts = {"matches/_side_name.html", "matches/_deal_fields.html"}
    assert parts <= drawn[0] and not parts & drawn[1]
    pages = [parsed(load) for load in loads]
    assert value(pages[0], "key") != value(pages[1], "key")
    for page in pages:
        tokens = page.select("[name=csrfmiddlewaretoken]")
        forms = [token.find_parent("form")["id"] for token in tokens]
        assert forms == ["deal-form", "actions", "language-form"]
        for own in [*tokens, one(page, "#deal-key")]:
            own.extract()
    assert str(one(pages[0], "#sheet")) == str(one(pages[1], "#sheet"))


def test_a_phone_keeps_its_csrf_secret_in_its_session_and_a_sheet_load_sets_no_cookie(
    table, match, sheet_url, deal_url
):
    """Each page's token is masked from the secret in the phone's session (no cookie of its
    own, set again on every answer): a token an earlier page drew saves a deal, and a form
    sent without one is refused."""
    phone = Client(enforce_csrf_checks=True)
    join = reverse("join", args=[table.scorer_token])
    phone.post(join, {"label": "Carla's phone", "csrfmiddlewaretoken": csrf_token(phone.get(join))})
    loads = [phone.get(sheet_url, **EN) for _ in range(2)]
    assert [dict(load.cookies) for load in loads] == [{}, {}]
    assert set(phone.cookies) == {"sessionid"}
    data = {**deal_data(number=1), "csrfmiddlewaretoken": csrf_token(loads[0])}
    assert phone.post(deal_url, data, **EN).status_code == 302
    assert match.deals.count() == 1
    assert phone.post(deal_url, deal_data(number=2), **EN).status_code == 403
    assert match.deals.count() == 1


def test_a_copy_drawn_for_another_csrf_secret_is_drawn_again_not_answered_304(
    table, sheet_url, deal_url, worked
):
    """A copy of the page holds the tokens of the session it was drawn for: revalidated by
    a session with another secret (a new one, or once the secret key changed) it is drawn
    again, with tokens that session's forms can send."""
    join = reverse("join", args=[table.scorer_token])
    first, second = Client(), Client(enforce_csrf_checks=True)
    for phone in (first, second):  # each session's secret is made as the join page draws it
        phone.post(
            join, {"label": "Carla's phone", "csrfmiddlewaretoken": csrf_token(phone.get(join))}
        )
    page = first.get(sheet_url, **EN)
    assert first.get(sheet_url, HTTP_IF_NONE_MATCH=page["ETag"], **EN).status_code == 304
    again = second.get(sheet_url, HTTP_IF_NONE_MATCH=page["ETag"], **EN)
    assert again.status_code == 200
    data = {**deal_data(number=2), "csrfmiddlewaretoken": csrf_token(again)}
    assert second.post(deal_url, data, **EN).status_code == 302


# --- Ending, stopping, reopening, rematch -------------------------------------------------


def test_the_end_match_button_appears_only_once_decided(scorer, sheet_url, deal_url):
    scorer.post(deal_url, deal_data(number=1), **EN)
    assert not parsed(scorer.get(sheet_url, **EN)).select("#end-match")
    scorer.post(deal_url, deal_data(number=2), **EN)
    page = parsed(scorer.get(sheet_url, **EN))
    assert words(one(page, "#end-match")) == "End match" and not page.select("#deal-form")
    assert words(one(page, "#entry")).startswith("The match is decided: no more deals.")
    assert not page.select("#stop-match")  # a decided match is ended, not stopped


def test_a_side_with_a_name_of_its_own_shows_its_players_on_the_scoreboard(scorer, table):
    players = [["Hugo", "Ivo"], ["Lea", "Mia"]]
    match = services.start_match(table=table, players=players, side_names=["I Lupi", ""])
    page = parsed(scorer.get(reverse("match", args=[table.viewer_token, match.pk]), **EN))
    cards = page.select("#live .score")
    assert words(cards[0].select_one(".side-name")) == "I Lupi"
    assert words(cards[0].select_one(".side-players")) == "Hugo & Ivo"
    assert words(cards[1].select_one(".side-name")) == "Lea & Mia"  # named after them already
    assert not cards[1].select(".side-players")
    assert not page.select("#rows .side-players")  # the deals' header keeps to the name


def test_a_match_won_with_both_sides_past_the_line_says_the_higher_total_won_it(
    scorer, match, sheet_url
):
    for number, a in enumerate((6, 5, 6, 5, 6), start=1):  # 22 to 22, then 28 to 27
        entry = rules.DealEntry(card_points=(a, 11 - a), declared_points=(0, 0))
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    services.end_match(match=match)
    page = parsed(scorer.get(sheet_url, **EN))
    assert words(one(page, ".result .big")) == (
        "Alice & Carla won the match (both past the line, the higher total)."
    )


def test_end_match_banks_the_winner_then_rematch_comes_first(scorer, match, sheet_url, deal_url):
    scorer.post(deal_url, deal_data(number=1), **EN)
    scorer.post(deal_url, deal_data(number=2), **EN)
    response = scorer.post(sheet_url + "end", **EN)
    assert response["Location"] == sheet_url + "?ended=1"
    page = parsed(scorer.get(response["Location"], **EN))
    result = one(page, ".result")
    assert words(result.select_one(".big")) == "Alice & Carla won the match (reached the line)."
    # Ended, the next step is most often a rematch: it comes first, as the main button.
    buttons = [(words(b), b.get("class")) for b in result.select("button")]
    assert buttons == [("Rematch", ["primary"]), ("Reopen", None)]
    assert not page.select("#match-settings")
    assert scorer.post(sheet_url + "rematch", **EN).status_code == 302
    scorer.post(sheet_url + "reopen", **EN)
    match.refresh_from_db()
    assert match.status == "in_progress"


def test_an_undecided_match_can_be_stopped_and_reopen_comes_first(scorer, match, worked):
    sheet_url = reverse("match", args=[match.table.viewer_token, match.pk])
    assert parsed(scorer.get(sheet_url + "settings", **EN)).select("#stop-match")
    page = parsed(scorer.post(sheet_url + "stop", **HX))
    result = one(page, ".result")
    assert words(result.select_one(".big")) == "Stopped at 11–3, undecided."
    # Stopped, it is most often played on another day: Reopen comes first.
    assert [words(b) for b in result.select("button")] == ["Reopen", "Rematch"]
    assert not page.select("#deal-form")
    history = said(scorer.get(sheet_url + "history", **EN))
    assert "Match stopped, undecided" in history and "11–3" in history


def test_phones_on_an_ended_sheet_learn_of_a_rematch_and_of_a_reopen(
    scorer, match, sheet_url, deal_url
):
    """Phones left on an ended sheet see the rematch another phone began (and begin no
    second one), and a reopen brings the entry form and the settings back."""
    scorer.post(deal_url, deal_data(number=1), **EN)
    scorer.post(deal_url, deal_data(number=2), **EN)
    scorer.post(sheet_url + "end", **EN)
    viewer = Client()
    page = parsed(viewer.get(sheet_url, **EN))
    assert one(page, "#live")["hx-get"].endswith("?poll=1&closed=1")
    assert not page.select("#open-rematch")
    etag = viewer.get(sheet_url + "?poll=1&closed=1", **HX)["ETag"]
    again = scorer.post(sheet_url + "rematch", **EN)["Location"]
    poll = viewer.get(sheet_url + "?poll=1&closed=1", HTTP_IF_NONE_MATCH=etag, **HX)
    assert one(parsed(poll), "#open-rematch")["href"] == again  # for a viewer too
    page = parsed(scorer.get(sheet_url, **EN))
    assert page.select("#open-rematch") and words(one(page, ".result .actions")) == "Reopen"
    assert scorer.post(sheet_url + "rematch", **EN)["Location"] == again  # the same one
    scorer.post(sheet_url + "reopen", **EN)
    other = Client()
    other.post(reverse("join", args=[match.table.scorer_token]))
    reopened = parsed(other.get(sheet_url + "?poll=1&closed=1&typing=1", **HX))
    assert "The match is decided: no more deals." in words(one(reopened, "#entry"))
    assert reopened.select("#match-settings") and not reopened.select(".result")


def test_saved_settings_and_a_reopen_are_said_where_focus_can_go(scorer, match, sheet_url):
    page = parsed(
        scorer.post(sheet_url + "settings", {"line": "31", "tie_rule": "higher_total"}, **HX)
    )
    saved = one(page, "#settings-saved")
    assert words(saved) == "Settings saved." and saved["tabindex"] == "-1"
    assert words(one(page, "#live .meta")).startswith("Line 31 ")
    services.stop_match(match=match)
    page = parsed(scorer.post(sheet_url + "reopen", **HX))
    assert words(one(page, "#reopened")) == "Match reopened: play on from here."


# --- The history of changes ----------------------------------------------------------------


def test_the_history_loads_when_opened_and_has_its_own_page(scorer, sheet_url, worked):
    page = parsed(scorer.get(sheet_url, **EN))
    assert one(page, "#history")["hx-get"] == sheet_url + "history"
    assert "Deal 1 recorded" not in words(page)  # not drawn until someone opens it
    fragment = parsed(scorer.get(sheet_url + "history", **HX))
    assert fragment.find().name == "ol"
    assert "Deal 1 recorded" in words(fragment)
    assert words(one(parsed(scorer.get(sheet_url + "history", **EN)), "h1")) == "History of changes"


# --- Every action, with and without HTMX -------------------------------------------------


def decided(match) -> None:
    for number in (1, 2):
        services.record_deal(
            match_id=match.pk, number=number, entry=rules.DealEntry((8, 3), (3, 0))
        )


def finished(match) -> None:
    decided(match)
    services.end_match(match=match)


ACTIONS = {
    # name: (url name, extra url args, set-up, POST data, what an HTMX answer is: the parts,
    # a redirect HTMX follows to the sheet's parts, or a whole new page)
    "record": ("record_deal", [], None, deal_data(), "followed"),
    "delete": ("delete_deal", [2], decided, {}, "parts"),
    "end": ("end_match", [], decided, {}, "parts"),
    "reopen": ("reopen_match", [], finished, {}, "parts"),
    "settings": ("change_settings", [], None, {"line": "31", "tie_rule": "another_deal"}, "parts"),
    "rematch": ("rematch", [], finished, {}, "redirect"),
    "edit": ("edit_deal", [1], decided, deal_data(version="1"), "redirect"),
}


@pytest.mark.parametrize("name", ACTIONS)
@pytest.mark.parametrize("htmx", [False, True])
def test_each_action_answers_a_redirect_without_htmx_and_one_answer_with_it(
    scorer, match, name, htmx
):
    url_name, args, setup, data, answer = ACTIONS[name]
    if setup:
        setup(match)
    url = reverse(url_name, args=[match.table.viewer_token, match.pk, *args])
    response = scorer.post(url, data, **(HX if htmx else EN))
    sheets = f"/t/{match.table.viewer_token}/m/"
    if not htmx or answer == "followed":
        assert response.status_code == 302 and response["Location"].startswith(sheets)
    if htmx and answer == "followed":
        response = scorer.get(response["Location"], **HX)
    if htmx and answer in ("parts", "followed"):
        page = parsed(response)
        parts = [part["id"] for part in page.find_all(attrs={"hx-swap-oob": "true"})]
        assert parts == ["notices", "live", "elsewhere", "rows", "chart", "entry"] + (
            [] if name == "record" else ["settings"]
        )
    elif htmx:
        assert response["HX-Redirect"].startswith(sheets)


@pytest.mark.parametrize(
    ("url_name", "shown", "gone"),
    [
        ("end_match", "Alice & Carla won the match (reached the line).", "End match"),
        ("stop_match", "Stopped at 0–0, undecided.", "Save deal"),
    ],
)
def test_without_javascript_the_sheet_after_an_action_shows_it(
    scorer, match, url_name, shown, gone
):
    if url_name == "end_match":
        decided(match)
    location = scorer.post(reverse(url_name, args=[match.table.viewer_token, match.pk]))["Location"]
    page = said(scorer.get(location, **EN))
    assert shown in page and gone not in page


def test_a_refused_action_is_explained_on_the_sheet(scorer, sheet_url):
    page = parsed(scorer.post(sheet_url + "end", **HX))
    assert words(one(page, ".notice.error")) == (
        "The match is not decided yet: no side has reached the line."
    )


def test_a_refusal_by_the_rules_is_explained_in_the_phones_language(scorer, match, sheet_url):
    services.change_settings(match=match, settings=rules.MatchSettings(21, "higher_total", True))
    claim = rules.DealEntry((3, 0), (0, 0), kind=rules.DealKind.CLAIM, side=1)
    services.record_deal(match_id=match.pk, number=1, entry=claim)
    data = {"line": "21", "tie_rule": "higher_total"}  # claims no longer allowed
    page = parsed(scorer.post(sheet_url + "settings", data, HTTP_ACCEPT_LANGUAGE="it"))
    assert words(one(page, "#settings-form .errorlist")) == (
        "Smazzata 1: In questa partita non ci si può chiamare fuori."
    )
    match.refresh_from_db()
    assert match.claims_allowed
    # The refusal names the deal that stands in the way: the sheet may not show it.
    page = parsed(scorer.post(sheet_url + "settings", data, **EN))
    assert words(one(page, "#settings-form .errorlist")) == (
        "Deal 1: Claims are not allowed in this match."
    )
    # The settings come back as sent (claims unticked), to be mended or left.
    assert value(page, "claims_allowed") == ""


def test_settings_sent_empty_say_what_is_missing(scorer, sheet_url):
    page = parsed(scorer.post(sheet_url + "settings", {}, **EN))
    assert errors_of(page, "id_line") == ["Type the line: the total that wins, like 21."]
    assert errors_of(page, "id_tie_rule") == [
        "Pick what happens when both sides pass the line together."
    ]


def test_a_wrong_line_is_said_in_the_settings_which_keep_what_was_typed(scorer, match, sheet_url):
    data = {"line": "5", "tie_rule": "another_deal", "claims_allowed": "on"}
    page = parsed(scorer.post(sheet_url + "settings", data, **EN))
    settings = one(page, "#settings-form")
    assert errors_of(settings, "id_line") == ["The line must be from 11 to 101, not 5."]
    typed = [value(settings, name) for name in ("line", "tie_rule", "claims_allowed")]
    assert typed == ["5", "another_deal", "on"]
    assert not page.select(".notice.error")  # said once, where it is mended
    match.refresh_from_db()
    assert (match.line, match.tie_rule, match.claims_allowed) == (21, "higher_total", False)


def test_the_match_settings_have_a_page_of_their_own_the_sheet_links_to(scorer, match, sheet_url):
    link = one(parsed(scorer.get(sheet_url, **EN)), "a#match-settings")
    assert words(link) == "Match settings" and link["href"] == sheet_url + "settings"
    page = parsed(scorer.get(link["href"], **EN))
    assert words(one(page, "h1")) == "Match settings"
    assert one(page, "a.crumb")["href"] == sheet_url  # back to the sheet
    form = one(page, "#settings-form")
    assert [value(form, name) for name in ("line", "tie_rule")] == ["21", "higher_total"]
    assert one(page, "#stop-match").find_parent("form")["action"] == sheet_url + "stop"
    saved = scorer.post(link["href"], {"line": "31", "tie_rule": "higher_total"}, **EN)
    assert saved["Location"] == sheet_url + "?settings_saved=1"
    assert words(one(parsed(scorer.get(saved["Location"], **EN)), "#settings-saved"))
    assert Client().get(link["href"], **EN).status_code == 403  # a viewer sets nothing
    assert not parsed(Client().get(sheet_url, **EN)).select("#match-settings")


def test_a_match_over_has_no_settings_page_and_no_way_to_stop_it(scorer, match, sheet_url):
    decided(match)
    page = parsed(scorer.get(sheet_url + "settings", **EN))
    assert not page.select("#stop-match")  # decided: End match, not a stop
    services.end_match(match=match)
    assert scorer.get(sheet_url + "settings", **EN)["Location"] == sheet_url


@pytest.mark.parametrize("line", ["", "x", "3.5", "1" * 50])
def test_a_line_that_is_no_whole_number_is_said_in_words(scorer, sheet_url, line):
    page = parsed(
        scorer.post(sheet_url + "settings", {"line": line, "tie_rule": "higher_total"}, **EN)
    )
    assert errors_of(page, "id_line")[0].startswith(("The line must be", "Type the line"))


# --- Offline ---------------------------------------------------------------------------------


def test_the_deal_form_says_where_the_sheet_stands_for_a_phone_offline(scorer, sheet_url, worked):
    form = one(parsed(scorer.get(sheet_url, **EN)), "#deal-form")
    offline = json.loads(one(form, "#offline-data").get_text())
    assert offline == {
        "number": 2,
        "dealers": ["Alice", "Beppe", "Carla", "Dino"],
        "dealer": 1,
        "totals": [11, 3],
        "sides": ["Alice & Carla", "Beppe & Dino"],
        "players": 2,
        "seat_sides": [0, 1, 0, 1],
        "line": 21,
        "tie": "higher_total",
        "another": False,
    }


# --- A match without declarations (Trešeta at 31) ------------------------------------------


def test_a_match_without_declarations_asks_none_and_refuses_declared_points(
    scorer, match, sheet_url
):
    scorer.post(sheet_url + "settings", {"line": "31", "tie_rule": "higher_total"}, **HX)
    match.refresh_from_db()
    assert (match.line, match.declarations_allowed) == (31, False)
    page = parsed(scorer.get(sheet_url, **EN))
    assert page.select("#id_card_points_0") and not page.select("#id_declared_points_0")
    assert words(one(page, "#live .meta")).startswith("Line 31 ")
    assert "no declarations" in words(one(page, "#live .meta"))
    refused = parsed(scorer.post(sheet_url + "deals", deal_data(da="3"), **HX))
    assert words(one(refused, "#deal-errors")) == (
        "This match is played without declarations: a deal counts card points only."
    )
    assert not match.deals.exists()
    scorer.post(sheet_url + "deals", deal_data(da="", db=""), **HX)
    assert match.deals.get().points == (8, 3)


def test_declarations_are_not_turned_off_under_a_deal_that_declared(
    scorer, match, sheet_url, worked
):
    page = parsed(
        scorer.post(sheet_url + "settings", {"line": "21", "tie_rule": "higher_total"}, **EN)
    )
    assert "Deal 1: This match is played without declarations" in words(page)
    match.refresh_from_db()
    assert match.declarations_allowed
    on = {"line": "21", "tie_rule": "higher_total", "declarations_allowed": "on"}
    assert "Settings saved." in words(parsed(scorer.post(sheet_url + "settings", on, **HX)))


# --- A sweep by one player ------------------------------------------------------------------


def test_a_cappottone_row_names_the_player_and_the_sheet_says_who_swept(scorer, match, sheet_url):
    services.record_deal(match_id=match.pk, number=1, entry=rules.DealEntry((6, 5), (3, 0)))
    alone = rules.DealEntry((11, 0), (0, 4), kind=rules.DealKind.CAPPOTTONE, seat=2)
    services.record_deal(match_id=match.pk, number=2, entry=alone)
    page = parsed(scorer.get(sheet_url, **EN))
    assert words(one(page, "#deal-2 td.side-0")) == "12 → 21 Cappottone Carla"
    assert words(one(page, "#deal-2 td.side-1")) == "4 0 + 4"
    assert words(one(page, ".decided p")) == (
        "Alice & Carla win the match: Carla took every trick alone, a cappottone."
    )
    services.end_match(match=match)
    page = parsed(scorer.get(sheet_url, HTTP_ACCEPT_LANGUAGE="it"))
    assert words(one(page, ".result .big")) == (
        "Alice & Carla hanno vinto la partita (cappottone di Carla)."
    )


def test_the_players_to_name_follow_a_player_renamed_on_another_phone(scorer, table):
    """The blank form is drawn once for all phones: its players' names are part of its key,
    not only its sides' (a side the table named keeps its name when a player is renamed)."""
    players = [["Anna", "Carla"], ["Bruno", "Dino"]]
    match = services.start_match(table=table, players=players, side_names=["", "I Lupi"])
    url = reverse("match", args=[table.viewer_token, match.pk])
    chips = ".player-choice label.chip"
    page = parsed(scorer.get(url, **EN))
    assert [words(chip) for chip in page.select(chips)] == ["Anna", "Bruno", "Carla", "Dino"]
    assert [chip["class"][-1] for chip in page.select(chips)] == ["side-0", "side-1"] * 2
    services.rename_player(player=Player.objects.get(name="Dino"), name="Dino Zoff")
    page = parsed(scorer.get(url, **EN))
    assert [words(chip) for chip in page.select(chips)][-1] == "Dino Zoff"


# --- Tonight -----------------------------------------------------------------------------


def _sheet(client, match):
    return parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN))


def test_every_sheet_of_tonight_shows_its_series_beside_the_line(db):
    from tests.evening import AB, AC, BD, CD, play

    table = services.create_table(name="Osteria")
    first = play(table, [AC, BD], 0, evening=rules.Evening.FIRST_TO_2, stakes=True)
    second = play(table, [BD, AC], 0, how="cappotto")
    bella = services.start_match(table=table, players=[AC, BD])
    viewer = Client()
    line = one(_sheet(viewer, bella), "#live .meta-row #tonight-line summary")
    # In the scoreboard's order (Alice & Carla first here), la bella, and the games so far.
    assert words(line) == "Tonight 1 – 1 (Alice & Carla – Beppe & Dino) · la bella · games 1–2"
    # The sheet of the rivincita, Beppe & Dino first, says the series as it stood after it.
    assert words(one(_sheet(viewer, second), "#tonight-line summary")).startswith(
        "Tonight 1 – 1 (Beppe & Dino – Alice & Carla) · games 2–1"
    )
    assert words(one(_sheet(viewer, first), "#tonight-line summary")).startswith("Tonight 1 – 0")
    # The whole tally, a tap away: fetched when the line opens, else on the table's page.
    fetch = one(_sheet(viewer, bella), "#tonight-line [hx-get]")
    assert one(fetch, "a")["href"] == reverse("table", args=[table.viewer_token]) + "#tonight"
    whole = parsed(viewer.get(fetch["hx-get"], **EN))
    assert words(one(whole, ".series li")) == "Alice & Carla 1 – 1 Beppe & Dino la bella"
    other = play(table, [AB, CD], 1)
    assert words(one(_sheet(viewer, other), "#tonight-line summary")).startswith("Tonight 0 – 1")


def test_a_sheet_polled_draws_tonight_again_when_another_match_ends(db):
    from tests.evening import AB, AC, BD, CD, play, won

    table = services.create_table(name="Osteria")
    playing = services.start_match(table=table, players=[AB, CD])
    url = reverse("match", args=[table.viewer_token, playing.pk]) + "?poll=1"
    viewer = Client()
    etag = viewer.get(url, **HX)["ETag"]
    assert viewer.get(url, HTTP_IF_NONE_MATCH=etag, **HX).status_code == 304
    play(table, [AC, BD], 0)  # at the table's other end
    assert playing.deals.count() == 0 and won(0)
    answer = viewer.get(url, HTTP_IF_NONE_MATCH=etag, **HX)
    assert answer.status_code == 200
    assert words(one(parsed(answer), "#tonight-line summary")).startswith("Tonight 0 – 0")
    tally = reverse("tonight", args=[table.viewer_token])
    series = [words(li) for li in parsed(viewer.get(tally, **EN)).select(".series li")]
    assert series == ["Alice & Beppe 0 – 0 Carla & Dino", "Alice & Carla 1 – 0 Beppe & Dino"]


def test_a_sheet_reads_tonight_in_as_many_queries_for_one_match_as_for_many(
    db, django_assert_num_queries
):
    from tests.evening import AB, AC, BD, CD, play

    table = services.create_table(name="Osteria")
    first = play(table, [AC, BD], 0, evening=rules.Evening.FIRST_TO_3, stakes=True)
    viewer = Client()
    url = reverse("match", args=[table.viewer_token, first.pk])
    viewer.get(url, **EN)
    cache.clear()
    watched.forget()
    # The state, the sheet (3), tonight (1), the result to share (3).
    with django_assert_num_queries(8) as at_one:
        viewer.get(url, **EN)
    for sides, winner in (([AB, CD], 1), ([AC, BD], 1)) * 4:
        play(table, sides, winner, how="cappotto")
    cache.clear()
    watched.forget()
    with django_assert_num_queries(len(at_one)):
        page = parsed(viewer.get(url, **EN))
    assert words(one(page, "#tonight-line summary")).startswith("Tonight 1 – 0")
    tally = reverse("tonight", args=[table.viewer_token])
    assert len(parsed(viewer.get(tally, **EN)).select(".series li")) == 4
