import re

import pytest
from django.test import Client
from django.urls import reverse

from matches import rules, services
from matches.models import Change, Deal, Match
from tests.factories import MatchFactory
from tests.views.conftest import deal_data

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HX = {"HTTP_HX_REQUEST": "true", **EN}


def test_the_sheet_shows_both_totals_and_who_deals(scorer, sheet_url, worked):
    html = scorer.get(sheet_url, **EN).content.decode()
    assert "Alice &amp; Carla" in html
    assert re.search(r'class="total">11<', html)
    assert re.search(r'class="total">3<', html)
    assert "needs 10 more" in html
    assert "Deal 2: <strong>Beppe</strong> deals." in html


def test_saving_a_deal_without_htmx_redirects_to_the_sheet(scorer, sheet_url, deal_url):
    response = scorer.post(deal_url, deal_data(), **EN)
    assert response.status_code == 302
    assert response["Location"].endswith("?saved=1")
    assert Deal.objects.get().points == (11, 3)
    page = scorer.get(response["Location"], **EN).content.decode()
    assert "Deal 1 saved." in page
    assert "Undo" in page


def test_saving_a_deal_with_htmx_answers_the_sheet_fragment(scorer, deal_url):
    response = scorer.post(deal_url, deal_data(), **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="sheet">')
    assert "<html" not in html
    assert "HX-Request" in response["Vary"]


def test_one_sides_card_points_fill_in_the_other(scorer, deal_url):
    scorer.post(deal_url, deal_data(b="", da="", db=""), **EN)
    assert Deal.objects.get().card_points == (8, 3)


def test_it_refuses_card_points_summing_to_12_inline_and_stores_nothing(scorer, deal_url):
    response = scorer.post(deal_url, deal_data(a="8", b="4"), **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Card points, the last trick included, must add up to 11" in html
    assert not Deal.objects.exists()
    assert 'value="8"' in html and 'value="4"' in html  # what was typed is kept


def test_it_refuses_a_declaration_of_5_beside_its_field(scorer, deal_url):
    html = scorer.post(deal_url, deal_data(da="5"), **HX).content.decode()
    assert 'id="id_declared_points_0-error"' in html
    assert "5 is not a declaration total" in html
    assert "Alice &amp; Carla: 5" not in html  # the column says whose field it is
    assert not Deal.objects.exists()
    html = scorer.post(deal_url, deal_data(a="12", b="0"), **HX).content.decode()
    assert "<li>Card points cannot be more than 11.</li>" in html


def test_a_cappotto_with_10_typed_for_the_sweeper_is_said_of_that_field(scorer, deal_url):
    """Left blank, the other side's points are not 11 minus the 10 (a blank field blamed)."""
    data = deal_data(a="10", b="", da="", db="", kind="cappotto", side="0")
    html = scorer.post(deal_url, data, **HX).content.decode()
    assert 'id="id_card_points_0-error"' in html
    assert 'id="id_card_points_1-error"' not in html
    assert "Alice &amp; Carla took every trick, so their card points are 11." in html
    assert not Deal.objects.exists()
    scorer.post(deal_url, {**data, "card_points_0": "11"}, **HX)
    assert Deal.objects.get().card_points == (11, 0)


def test_a_claim_with_no_card_points_typed_asks_for_them_with_0_for_none(scorer, match, deal_url):
    match.claims_allowed = True
    match.save()
    data = deal_data(a="", b="", da="21", db="", kind="claim", side="0")
    html = scorer.post(deal_url, data, **HX).content.decode()
    assert "A claim counts the card points taken so far: type them (0 for a side" in html
    assert not Deal.objects.exists()
    scorer.post(deal_url, {**data, "card_points_0": "0"}, **HX)
    assert Deal.objects.get().card_points == (0, 0)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-1", "cannot be negative"),
        ("2.5", "whole number"),
        ("abc", "must be a number"),
        ("1" * 5000 + ".5", "too large"),  # was a 500: int() of 5,000 digits
    ],
)
def test_bad_numbers_get_a_message_in_words(scorer, deal_url, value, message):
    html = scorer.post(deal_url, deal_data(a=value), **HX).content.decode()
    assert message in html
    assert not Deal.objects.exists()


def test_a_double_tap_makes_one_deal(scorer, deal_url):
    scorer.post(deal_url, deal_data(key="same"), **HX)
    scorer.post(deal_url, deal_data(key="same"), **HX)
    assert Deal.objects.count() == 1


def test_a_second_phone_saving_the_same_deal_is_told_and_shown_it(scorer, deal_url):
    scorer.post(deal_url, deal_data(key="phone-a"), **HX)
    html = scorer.post(deal_url, deal_data(a="5", b="6", key="phone-b"), **HX).content.decode()
    assert "Deal 1 was just entered on another phone." in html
    assert Deal.objects.count() == 1
    # What this phone typed is said, with the way to put it there; it is not offered for
    # deal 2, where a second tap of Save would enter the same hand twice.
    assert (
        "Yours were not saved: Alice &amp; Carla 5 + 3, Beppe &amp; Dino 6 + 0. "
        "If they are the right ones, edit deal 1."
    ) in html
    assert '/deals/1/edit">Edit deal 1</a>' in html
    assert 'name="number" id="deal-number" value="2"' in html
    assert 'id="id_card_points_0" value=""' in html
    assert 'id="typing" value="0"' in html


def test_a_second_phone_that_typed_the_very_same_deal_keeps_nothing_to_save_twice(scorer, deal_url):
    scorer.post(deal_url, deal_data(key="phone-a"), **HX)
    html = scorer.post(deal_url, deal_data(key="phone-b"), **HX).text  # the same points
    assert "Deal 1 was just entered on another phone." in html
    assert "The same points as yours: nothing more to do." in html
    assert 'name="number" id="deal-number" value="2"' in html
    assert 'id="id_card_points_0" value=""' in html  # a blank form for deal 2
    assert 'id="typing" value="0"' in html
    assert Deal.objects.count() == 1


def test_a_conflict_on_the_deal_that_decides_the_match_keeps_nothing_for_later(scorer, deal_url):
    scorer.post(deal_url, deal_data(number=1, key="a-1"), **HX)
    scorer.post(deal_url, deal_data(number=2, key="a-2"), **HX)  # 22 to 6: decided
    html = scorer.post(deal_url, deal_data(number=2, a="5", b="6", key="b-2"), **HX).text
    assert "Yours were not saved: Alice &amp; Carla 5 + 3" in html


def test_the_end_match_button_appears_only_once_decided(scorer, sheet_url, deal_url):
    scorer.post(deal_url, deal_data(number=1), **EN)
    assert "End match" not in scorer.get(sheet_url, **EN).content.decode()
    scorer.post(deal_url, deal_data(number=2), **EN)
    html = scorer.get(sheet_url, **EN).content.decode()
    assert "End match" in html
    assert 'id="deal-form"' not in html


def test_end_match_banks_the_winner_then_reopen_and_rematch(scorer, match, sheet_url, deal_url):
    scorer.post(deal_url, deal_data(number=1), **EN)
    scorer.post(deal_url, deal_data(number=2), **EN)
    scorer.post(sheet_url + "end", **EN)
    html = scorer.get(sheet_url, **EN).content.decode()
    assert "won the match" in html
    # Ended, the next step is most often a rematch: it comes first, as the main button.
    assert re.search(r'class="primary" type="submit">Rematch<.*type="submit">Reopen<', html, re.S)
    response = scorer.post(sheet_url + "rematch", **EN)
    assert response.status_code == 302
    scorer.post(sheet_url + "reopen", **EN)
    match.refresh_from_db()
    assert match.status == "in_progress"


def test_a_closed_sheet_polls_too_and_learns_of_a_rematch_or_a_reopen(
    client, scorer, match, sheet_url, deal_url
):
    """Phones left on an ended sheet see the rematch another phone started (and do not start
    a second one), and a reopen brings the entry form back (the page reloads)."""
    scorer.post(deal_url, deal_data(number=1), **EN)
    scorer.post(deal_url, deal_data(number=2), **EN)
    scorer.post(sheet_url + "end", **EN)
    viewer = client.__class__()
    page = viewer.get(sheet_url, **EN).content.decode()
    assert "?poll=1&amp;closed=1" in page and "Open the rematch" not in page
    etag = viewer.get(sheet_url + "?poll=1&closed=1", **HX)["ETag"]
    again = scorer.post(sheet_url + "rematch", **EN)["Location"]
    poll = viewer.get(sheet_url + "?poll=1&closed=1", HTTP_IF_NONE_MATCH=etag, **HX)
    assert poll.status_code == 200
    assert f'href="{again}"' in poll.content.decode()  # "Open the rematch", for a viewer too
    html = scorer.get(sheet_url, **EN).content.decode()
    assert (
        "Open the rematch" in html
        and reverse("rematch", args=[match.table.viewer_token, match.pk]) not in html
    )
    assert scorer.post(sheet_url + "rematch", **EN)["Location"] == again
    scorer.post(sheet_url + "reopen", **EN)
    poll = viewer.get(sheet_url + "?poll=1&closed=1", **HX)
    assert poll["HX-Refresh"] == "true"
    assert viewer.get(sheet_url + "?poll=1", **HX).status_code == 200  # open: no reload


def test_an_unchanged_sheet_answers_304_to_a_poll(scorer, sheet_url, worked):
    first = scorer.get(sheet_url + "?poll=1", **HX)
    assert first.status_code == 200
    etag = first["ETag"]
    again = scorer.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=etag, **HX)
    assert again.status_code == 304
    assert again.content == b""


def test_the_phones_polls_after_a_change_read_it_once_and_a_new_scorer_link_counts_at_once(
    scorer, sheet_url, table, worked, django_assert_num_queries
):
    other = Client()
    other.post(reverse("join", args=[table.scorer_token]))
    poll = sheet_url + "?poll=1&number=2&typing=0"
    first = scorer.get(poll, **HX).content.decode()
    # The next phone's poll of that revision: the match, its sides, outcome and last change
    # are those the first phone's poll read; only the match's revision is asked.
    with django_assert_num_queries(1):
        second = other.get(poll, **HX).content.decode()
    assert 'id="deal-form"' in second and 'id="deal-1"' in second
    assert second.count("Delete deal 1") == first.count("Delete deal 1") == 1
    # A new scorer link: both phones may only watch, from their very next poll.
    services.rotate_link(table=table, which="scorer")
    for phone in (scorer, other):
        watching = phone.get(poll, **HX).content.decode()
        assert 'id="deal-form"' not in watching
        assert "This table's scorer link has changed" in watching


def test_the_sheet_a_phone_is_sent_to_after_its_change_shows_it_whatever_process_answers(
    scorer, sheet_url, match, worked
):
    scorer.get(sheet_url + "?poll=1", **HX)
    entry = rules.DealEntry(card_points=(5, 6), declared_points=(3, 0))
    services.edit_deal(deal=worked, version=worked.version, entry=entry)
    page = scorer.get(sheet_url + "?edited=1", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Deal 1 edited." in page
    assert "5 + 3" in page and "8 + 3" not in page


def test_a_new_deal_changes_the_etag_and_the_poll_shows_it(scorer, sheet_url, deal_url, worked):
    etag = scorer.get(sheet_url + "?poll=1", **HX)["ETag"]
    scorer.post(deal_url, deal_data(number=2), **HX)
    response = scorer.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=etag, **HX)
    assert response.status_code == 200
    assert 'id="deal-2"' in response.content.decode()


def test_a_poll_refreshes_the_entry_form_unless_the_phone_is_typing(scorer, sheet_url, worked):
    idle = scorer.get(sheet_url + "?poll=1&number=1&typing=0", **HX).content.decode()
    assert '<section id="entry" hx-swap-oob="true">' in idle
    typing = scorer.get(sheet_url + "?poll=1&number=1&typing=1", **HX).content.decode()
    assert '<section id="entry"' not in typing
    assert '<section id="rows" hx-swap-oob="true">' in typing
    assert "Another phone has just entered a deal" in typing


def test_editing_a_deal_logs_old_and_new_values(scorer, match, worked):
    url = f"/t/{match.table.viewer_token}/m/{match.pk}/deals/1/edit"
    form = scorer.get(url, **EN).content.decode()
    assert 'value="8"' in form
    response = scorer.post(url, deal_data(a="6", b="5", da="4", version="1"), **EN)
    assert response.status_code == 302
    assert Deal.objects.get().points == (10, 5)
    change = Change.objects.get(action="deal_edited")
    assert (change.old["points"], change.new["points"]) == ([11, 3], [10, 5])
    assert response["Location"].endswith("/?edited=1")
    assert "Deal 1 edited." in scorer.get(response["Location"], **EN).content.decode()


def test_an_edit_that_crossed_another_phones_is_said_and_saving_again_replaces_it(
    scorer, match, worked
):
    url = f"/t/{match.table.viewer_token}/m/{match.pk}/deals/1/edit"
    entry = rules.DealEntry(card_points=(8, 3), declared_points=(7, 0))
    services.edit_deal(deal=worked, version=1, entry=entry)  # another phone, first
    mine = deal_data(a="6", b="5", da="4", version="1")
    html = scorer.post(url, mine, **EN).content.decode()
    assert (
        "Deal 1 was changed on another phone meanwhile: it now gives Alice &amp; Carla 15, "
        "Beppe &amp; Dino 3. What you typed is kept below: save again to replace that change."
    ) in html
    assert 'name="version" value="2"' in html and 'value="6"' in html
    assert Deal.objects.get().points == (15, 3)
    response = scorer.post(url, {**mine, "version": "2"}, **EN)
    assert response.status_code == 302
    assert Deal.objects.get().points == (10, 5)


def test_an_edit_of_a_deal_deleted_and_entered_anew_meanwhile_replaces_nothing_unseen(
    scorer, match, worked
):
    url = f"/t/{match.table.viewer_token}/m/{match.pk}/deals/1/edit"
    page = scorer.get(url).content.decode()
    assert f'name="deal" value="{worked.pk}"' in page
    services.delete_last_deal(match=match, number=1)
    entry = rules.DealEntry(card_points=(5, 6), declared_points=(0, 0))
    anew = services.record_deal(match=match, number=1, entry=entry).deal  # version 1 too
    mine = deal_data(a="6", b="5", version="1", deal=str(worked.pk))
    html = scorer.post(url, mine, **EN).content.decode()
    assert "Deal 1 was changed on another phone meanwhile: it now gives" in html
    assert Deal.objects.get().points == (5, 6)
    assert f'name="deal" value="{anew.pk}"' in html  # saving again replaces it, knowingly
    assert scorer.post(url, {**mine, "deal": str(anew.pk)}, **EN).status_code == 302
    assert Deal.objects.get().points == (9, 5)  # 6 + 3 declared, as typed


def test_an_edit_of_a_deal_deleted_meanwhile_says_so(scorer, match, worked):
    url = f"/t/{match.table.viewer_token}/m/{match.pk}/deals/1/edit"
    scorer.get(url)
    deal = worked
    services.delete_last_deal(match=match, number=1)
    response = scorer.post(url, deal_data(a="6", b="5", version="1"), **EN)
    assert response["Location"].endswith("/?gone=1")
    assert not Deal.objects.filter(pk=deal.pk).exists()
    html = scorer.get(response["Location"], **EN).content.decode()
    assert (
        "Deal 1 was deleted on another phone, so your change was not saved. The match history "
        "keeps it."
    ) in html
    assert f'action="/t/{match.table.viewer_token}/m/{match.pk}/deals/1/restore"' in html
    assert scorer.get(url)["Location"].endswith("/?gone=1")  # the page itself, opened late
    # Once it cannot be put back (say, a crafted address), the notice offers nothing.
    html = scorer.get(response["Location"].replace("gone=1", "gone=7"), **EN).text
    assert "There is no deal 7 on the sheet now: another phone may have deleted it." in html
    assert "/restore" not in html


@pytest.mark.parametrize(
    ("close", "message"),
    [
        (services.end_match, "This match is finished. Reopen it to change it."),
        (services.stop_match, "This match was stopped. Reopen it to change it."),
    ],
)
def test_the_edit_page_of_a_closed_match_says_so_before_anything_is_typed(
    scorer, match, worked, close, message
):
    url = f"/t/{match.table.viewer_token}/m/{match.pk}/deals/1/edit"
    assert "Reopen it" not in scorer.get(url, **EN).text
    if close is services.end_match:
        services.record_deal(match=match, number=2, entry=worked.entry)
    close(match=match)
    html = scorer.get(url, **EN).text
    assert message in html
    # Nothing can be saved: the deal is shown, not offered for typing; the sheet has Reopen.
    assert "Save changes" not in html and '<fieldset class="bare" disabled>' in html
    assert 'class="button primary block" href="/t/' in html


def test_undo_deletes_the_deal_just_saved_and_the_log_keeps_it(scorer, match, sheet_url, worked):
    response = scorer.post(sheet_url + "deals/1/delete", **EN)
    assert response.status_code == 302
    assert not Deal.objects.exists()
    assert Change.objects.get(action="deal_deleted").old["points"] == [11, 3]
    html = scorer.get(sheet_url + "history", **EN).content.decode()
    assert "Deal 1 deleted" in html
    assert (
        'before: Alice &amp; Carla <span class="nowrap">8 + 3 = 11</span> · '
        'Beppe &amp; Dino <span class="nowrap">3 + 0 = 3</span>'
    ) in html


def test_undo_puts_the_deal_just_saved_back_in_the_form_to_correct(scorer, sheet_url, deal_url):
    saved = scorer.post(deal_url, deal_data(a="8", da="3", key="phone-a"), **HX).text
    revision = Match.objects.get().revision
    # The saved notice's Undo names the sheet it was shown with.
    assert f'<input type="hidden" name="undo" value="{revision}">' in saved
    html = scorer.post(sheet_url + "deals/1/delete", {"undo": str(revision)}, **HX).text
    assert not Deal.objects.exists()
    assert "Deal 1 taken back: its points are in the form, to correct and save again." in html
    assert "Restore" not in html  # Save deal puts it back as it was
    assert 'id="id_card_points_0" value="8"' in html
    assert 'id="id_card_points_1" value="3"' in html
    assert 'id="id_declared_points_0" value="3"' in html
    assert 'id="typing" value="1"' in html  # the polls leave it alone
    key = re.search(r'name="key" value="([^"]+)"', html)[1]
    assert key != "phone-a"  # a new deal: saving it again must not find the old one's key
    scorer.post(deal_url, deal_data(a="7", b="4", key=key), **HX)
    assert Deal.objects.get().card_points_0 == 7


def test_undo_never_takes_back_a_deal_another_phone_entered_under_the_same_number(
    scorer, sheet_url, deal_url, match
):
    scorer.post(deal_url, deal_data(a="8", da="3", key="phone-a"), **HX)
    shown = Match.objects.get().revision
    # Another phone deletes that deal 1 and enters its own deal 1, before this one's Undo.
    services.delete_last_deal(match=match, number=1)
    entry = rules.DealEntry(card_points=(5, 6), declared_points=(0, 0))
    services.record_deal(match=match, number=1, entry=entry)
    html = scorer.post(sheet_url + "deals/1/delete", {"undo": str(shown)}, **HX).text
    assert "The sheet has changed since deal 1 was saved: check it before undoing." in html
    assert Deal.objects.get().card_points_0 == 5
    for garbled in ("", "²", "9" * 30):
        scorer.post(sheet_url + "deals/1/delete", {"undo": garbled}, **HX)
        assert Deal.objects.count() == 1


def test_delete_deal_deletes_without_giving_the_points_back(scorer, sheet_url, worked):
    html = scorer.post(sheet_url + "deals/1/delete", **HX).text
    assert "Deal 1 deleted. The match history keeps it." in html and "Restore" in html
    assert 'id="id_card_points_0" value=""' in html


def test_a_long_side_name_is_clipped_not_breaking_the_layout(scorer, match, sheet_url):
    match.sides.filter(position=0).update(name="Alessandra " * 7)
    html = scorer.get(sheet_url, **EN).content.decode()
    assert '<span class="clip">Alessandra' in html


def test_the_scoreboard_shows_a_pair_a_player_a_line_so_a_long_name_hides_no_partner(db, client):
    long = "Maria Grazia Annunziata Esposito-Russo"
    match = MatchFactory(sides=[[long, "Bruno"], ["Gianfranco", "Dino"]])
    match.sides.filter(position=1).update(name="I Leoni")  # a name the table gave the side
    html = client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN)
    scoreboard = html.content.decode().split('class="scoreboard"')[1].split("</section>")[0]
    assert (
        f'<span class="side-name pair"><span class="clip">{long}</span>'
        '<span class="clip">&amp; Bruno</span></span>'
    ) in scoreboard
    assert '<span class="side-name">I Leoni</span>' in scoreboard
    due = MatchFactory(players_per_side=1)
    html = client.get(reverse("match", args=[due.table.viewer_token, due.pk]), **EN)
    assert '<span class="side-name">Alice</span>' in html.content.decode()


def test_the_deals_head_a_pair_a_player_a_line_too(scorer, sheet_url, worked):
    html = scorer.get(sheet_url, **EN).text
    rows = html.split('<section id="rows"')[1].split("</thead>")[0]
    assert (
        '<th scope="col" class="side-0"><span class="side-name pair"><span class="clip">Alice'
        '</span><span class="clip">&amp; Carla</span></span></th>'
    ) in rows


def test_counting_the_pile_fills_in_both_sides_card_points(scorer, deal_url):
    data = deal_data(a="", b="", da="", db="", count="1", count_side="1")
    data.update(aces="1", figures="7", last_trick="")
    html = scorer.post(deal_url, data, **HX).content.decode()
    assert 'name="card_points_0" id="id_card_points_0" value="8"' in html
    assert 'name="card_points_1" id="id_card_points_1" value="3"' in html
    assert not Deal.objects.exists()


def test_counting_five_aces_is_refused_in_words(scorer, deal_url):
    data = deal_data(a="", b="", count="1", count_side="0", aces="5", figures="3")
    html = scorer.post(deal_url, data, **HX).content.decode()
    assert "from 0 to 4 aces, not 5" in html
    # Counting is not saving: the deal's own checks say nothing yet.
    assert "Enter the card points" not in html
    assert not Deal.objects.exists()


def test_counting_without_saying_whose_pile_says_so(scorer, deal_url):
    data = deal_data(a="", b="", count="1", aces="1", figures="3")
    html = scorer.post(deal_url, data, **HX).content.decode()
    assert "Pick whose pile you counted." in html


def test_a_resent_deal_with_other_points_is_refused_in_words(scorer, deal_url):
    scorer.post(deal_url, deal_data(key="mine"), **HX)
    html = scorer.post(deal_url, deal_data(a="2", b="9", key="mine"), **HX).content.decode()
    assert "Deal 1 was already saved from this phone, with other points." in html
    assert "Edit deal 1 to change it." in html
    assert 'name="card_points_0" id="id_card_points_0" value=""' in html  # not offered again
    assert Deal.objects.get().card_points == (8, 3)


@pytest.mark.parametrize(
    "tampered", [{"number": ""}, {"number": "0"}, {"number": "abc"}, {"key": "k" * 65}]
)
def test_a_deal_form_tampered_with_says_so_and_stores_nothing(scorer, deal_url, tampered):
    html = scorer.post(deal_url, {**deal_data(), **tampered}, **HX).content.decode()
    assert "This page is out of date: reload it and try again." in html
    assert not Deal.objects.exists()


@pytest.mark.parametrize("saved", ["²", "1" * 5000, "-1", "1.0"])
def test_an_odd_saved_parameter_is_ignored(scorer, sheet_url, worked, saved):
    response = scorer.get(sheet_url, {"saved": saved}, **EN)
    assert response.status_code == 200
    assert 'id="saved"' not in response.content.decode()


def test_after_a_save_the_fragment_shows_the_new_deal_even_with_a_warm_cache(
    scorer, sheet_url, deal_url
):
    scorer.get(sheet_url, **EN)  # the sheet at revision 1 is now cached
    html = scorer.post(deal_url, deal_data(), **HX).content.decode()
    assert 'id="deal-1"' in html
    assert 'name="number" id="deal-number" value="2"' in html
    html = scorer.post(deal_url, deal_data(number=2, key="second"), **HX).content.decode()
    assert 'id="deal-2"' in html


def test_renaming_a_player_changes_the_sheet_every_phone_sees(scorer, match, sheet_url, worked):
    from matches import services
    from matches.models import Player

    etag = scorer.get(sheet_url + "?poll=1", **HX)["ETag"]
    services.rename_player(player=Player.objects.get(name="Beppe"), name="Giuseppe")
    response = scorer.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=etag, **HX)
    assert response.status_code == 200
    assert "<strong>Giuseppe</strong> deals" in response.content.decode()


def test_a_compressed_sheet_still_answers_304_to_its_weak_etag(scorer, sheet_url, worked):
    first = scorer.get(sheet_url + "?poll=1", HTTP_ACCEPT_ENCODING="gzip", **HX)
    assert first["Content-Encoding"] == "gzip"
    assert first["ETag"].startswith('W/"')
    again = scorer.get(
        sheet_url + "?poll=1", HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=first["ETag"], **HX
    )
    assert again.status_code == 304


def test_the_history_loads_when_opened_and_has_its_own_page(scorer, sheet_url, worked):
    sheet = scorer.get(sheet_url, **EN).content.decode()
    assert f'hx-get="{sheet_url}history"' in sheet
    assert "Deal 1 recorded" not in sheet  # not drawn until someone opens it
    fragment = scorer.get(sheet_url + "history", **HX).content.decode()
    assert fragment.lstrip().startswith('<ol class="list changes">')
    assert "Deal 1 recorded" in fragment
    page = scorer.get(sheet_url + "history", **EN).content.decode()
    assert "<h1>History of changes</h1>" in page


def test_a_save_into_a_match_another_phone_just_decided_says_so(scorer, match, deal_url):
    scorer.post(deal_url, deal_data(number=1, key="a"), **HX)
    scorer.post(deal_url, deal_data(number=2, key="b"), **HX)  # 22-6: decided
    html = scorer.post(deal_url, deal_data(number=3, key="c"), **HX).content.decode()
    assert "The match is already decided" in html
    assert Deal.objects.count() == 2
    scorer.post(f"/t/{match.table.viewer_token}/m/{match.pk}/end", **HX)
    html = scorer.post(deal_url, deal_data(number=3, key="d"), **HX).content.decode()
    assert "This match is finished" in html
    assert Deal.objects.count() == 2


def test_a_shared_sheet_page_still_carries_each_phones_own_tokens(scorer, match, sheet_url):
    import re

    from django.test import Client

    other = Client()
    other.post(f"/join/{match.table.scorer_token}/", {"label": "Dino"})
    pages = [phone.get(sheet_url, **EN) for phone in (scorer, other, scorer)]
    keys = [re.search(r'name="key" value="([^"]+)"', p.content.decode())[1] for p in pages]
    assert len(set(keys)) == 3  # a fresh idempotency key on every load
    for page in pages:
        html = page.content.decode()
        nonce = re.search(r"'nonce-([^']+)'", page["Content-Security-Policy"])[1]
        assert f'nonce="{nonce}"' in html
        assert "per-request" not in html
        token = re.search(r'"X-CSRFToken": "([^"]+)"', html)[1]
        assert len(token) == 64
    viewer = Client().get(sheet_url, **EN).content.decode()
    assert 'id="deal-form"' not in viewer  # the view-only page is drawn apart
    assert "You are watching: this link shows everything and changes nothing." in viewer
    assert "You are watching" not in pages[0].content.decode()


def test_a_name_like_a_stand_in_is_shown_as_typed(client):
    """The shared page's stand-ins for per-request values cannot be typed at the table (they
    once could: these names were shown as the phone's real CSP nonce and CSRF token)."""
    names = ["per-request-csp-nonce-5b2d9a", "per-request-csrf-token-0f6e1c"]
    match = MatchFactory(sides=[[names[0]], [names[1]]], players_per_side=1)
    html = client.get(reverse("match", args=[match.table.viewer_token, match.pk])).text
    for name in names:
        assert name in html


def test_a_shared_sheet_page_is_drawn_again_after_a_change(scorer, sheet_url, deal_url):
    assert 'id="deal-1"' not in scorer.get(sheet_url, **EN).content.decode()
    scorer.post(deal_url, deal_data(), **HX)
    assert 'id="deal-1"' in scorer.get(sheet_url, **EN).content.decode()


def _shown_revision(html: str) -> str:
    return re.search(r'name="revision" value="(\d+)"', html).group(1)


def test_a_save_from_the_sheet_as_it_stood_answers_only_what_changed(
    scorer, match, sheet_url, deal_url, worked
):
    shown = _shown_revision(scorer.get(sheet_url, **EN).content.decode())
    response = scorer.post(
        deal_url, deal_data(number=2, a="6", b="5", da="0", revision=shown), **HX
    )
    html = response.content.decode()
    assert response["HX-Retarget"] == "#entry"
    assert response["HX-Reswap"] == "outerHTML"
    assert html.lstrip().startswith('<section id="entry"')  # swapped in place of the form
    assert "<h2>Deal 3</h2>" in html
    assert _shown_revision(html) == str(match.revision + 2)  # two deals since the factory
    assert '<div id="notices" hx-swap-oob="true">' in html and "Deal 2 saved." in html
    assert '<section id="live" hx-swap-oob="true"' in html
    assert re.search(r'class="total">17<', html) and re.search(r'class="total">8<', html)
    # Only the new row, appended to the table the phone shows; and the chart drawn again.
    assert '<tbody hx-swap-oob="beforeend:#deal-rows">' in html
    assert 'id="deal-2"' in html and 'id="deal-1"' not in html
    assert '<figure class="chart" id="chart" hx-swap-oob="true">' in html
    # Each trace ends with its side's total written beside it.
    assert re.search(r'<text class="total-0" x="\d+" y="[\d.]+" [^>]*>17</text>', html)
    assert re.search(r'<text class="total-1" x="\d+" y="[\d.]+" [^>]*>8</text>', html)
    assert '<div id="sheet">' not in html


@pytest.mark.parametrize(
    "why",
    ["first deal", "stale revision", "no revision", "decided"],
)
def test_a_save_answers_the_whole_sheet_when_the_phone_may_show_something_else(
    scorer, match, sheet_url, deal_url, why
):
    number, data = 1, {}
    if why != "first deal":
        services.record_deal(
            match=match,
            number=1,
            entry=rules.DealEntry(card_points=(8, 3), declared_points=(3, 0)),
        )
        number = 2
    shown = _shown_revision(scorer.get(sheet_url, **EN).content.decode())
    if why == "stale revision":
        data["revision"] = str(int(shown) - 1)  # another phone changed the sheet meanwhile
    elif why != "no revision":
        data["revision"] = shown
    if why == "decided":
        data.update(da="4")  # 11 + 8 + 4 = 23: past the line of 21
    response = scorer.post(deal_url, deal_data(number=number, **data), **HX)
    html = response.content.decode()
    assert "HX-Retarget" not in response
    assert html.lstrip().startswith('<div id="sheet">')
    assert f'id="deal-{number}"' in html and f"Deal {number} saved." in html
    assert Deal.objects.filter(match=match).count() == number


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
    assert answer.status_code == 200
    assert 'id="deal-form"' not in answer.content.decode()
    assert answer["ETag"] == viewer_etag
    assert (
        viewer.get(sheet_url + "?poll=1", HTTP_IF_NONE_MATCH=viewer_etag, **HX).status_code == 304
    )


def test_a_page_cached_before_joining_is_drawn_again_for_the_scorer(client, match, sheet_url):
    page = client.get(sheet_url, **EN)
    assert 'id="deal-form"' not in page.content.decode()
    client.post(reverse("join", args=[match.table.scorer_token]), {"label": "Dino's phone"})
    again = client.get(sheet_url, HTTP_IF_NONE_MATCH=page["ETag"], **EN)
    assert again.status_code == 200
    assert 'id="deal-form"' in again.content.decode()


def _entry(html: str) -> str:
    start = html.index('<section id="entry"')
    return html[start : html.index("</section>", start)]


def test_the_blank_entry_form_kept_for_a_match_follows_its_claims_language_and_sides(
    scorer, match, sheet_url
):
    english = _entry(scorer.get(sheet_url, **EN).content.decode())
    assert 'value="claim"' not in english and "Card points" in english
    assert "Alice &amp; Carla" in english
    services.change_settings(match=match, settings=rules.MatchSettings(21, "higher_total", True))
    again = _entry(scorer.get(sheet_url, **EN).content.decode())
    assert 'value="claim"' in again
    italian = _entry(scorer.get(sheet_url, HTTP_ACCEPT_LANGUAGE="it").content.decode())
    assert "Punti carte" in italian and "Card points" not in italian
    # Another match of the table, with other sides, has its own.
    other = MatchFactory(table=match.table, sides=[["Elio"], ["Fede"]], players_per_side=1)
    url = reverse("match", args=[match.table.viewer_token, other.pk])
    elsewhere = _entry(scorer.get(url, **EN).content.decode())
    assert "Elio" in elsewhere and "Alice &amp; Carla" not in elsewhere


def test_fragments_are_never_kept_by_the_browser_cache(scorer, sheet_url, worked):
    poll = scorer.get(sheet_url + "?poll=1", **HX)
    assert "no-store" in poll["Cache-Control"]
    page = scorer.get(sheet_url, **EN)
    assert "no-store" not in page["Cache-Control"] and "no-cache" in page["Cache-Control"]


def test_a_change_between_reading_the_match_and_saving_is_read_again(
    scorer, match, sheet_url, deal_url, worked, monkeypatch
):
    from matches.models import Player

    shown = _shown_revision(scorer.get(sheet_url, **EN).content.decode())
    record = services.record_deal

    def renamed_first(**kwargs):  # another phone renames Beppe just before this save
        services.rename_player(player=Player.objects.get(name="Beppe"), name="Bepi")
        return record(**kwargs)

    monkeypatch.setattr(services, "record_deal", renamed_first)
    data = deal_data(number=2, a="6", b="5", da="0", revision=shown)
    response = scorer.post(deal_url, data, **HX)
    html = response.content.decode()
    assert "HX-Retarget" not in response  # the whole sheet, drawn from the database
    assert 'id="deal-2"' in html and "Deal 2 saved." in html
    assert 'dealer small muted">Bepi<' in html  # deal 2's dealer, by the new name


def test_a_cappotto_is_saved_with_no_card_points_typed(scorer, deal_url):
    data = deal_data(a="", b="", da="", db="", kind="cappotto", side="1")
    scorer.post(deal_url, data, **HX)
    deal = Deal.objects.get()
    assert (deal.card_points, deal.kind, deal.side) == ((0, 11), "cappotto", 1)


def test_a_deleted_deal_is_said_deleted_and_can_be_restored(scorer, sheet_url, worked):
    html = scorer.post(sheet_url + "deals/1/delete", **HX).content.decode()
    assert "Deal 1 deleted. The match history keeps it." in html
    assert f'hx-post="{sheet_url}deals/1/restore"' in html
    assert not Deal.objects.exists()
    html = scorer.post(sheet_url + "deals/1/restore", **HX).content.decode()
    assert "Deal 1 restored." in html and "Deal 1 saved." not in html
    assert f'hx-post="{sheet_url}deals/1/delete"' in html  # Undo, as after a save
    assert Deal.objects.get().points == (11, 3)
    assert Change.objects.latest("id").action == "deal_restored"
    assert "Deal 1 restored" in scorer.get(sheet_url + "history", **EN).content.decode()


def test_without_javascript_a_deletion_and_a_restore_are_said_once_with_their_undo(
    scorer, sheet_url, worked
):
    response = scorer.post(sheet_url + "deals/1/delete", **EN)
    assert response.status_code == 302 and response["Location"] == sheet_url + "?deleted=1"
    html = scorer.get(response["Location"], **EN).content.decode()
    assert "Deal 1 deleted. The match history keeps it." in html
    assert 'data-once="deleted"' in html and f'action="{sheet_url}deals/1/restore"' in html
    response = scorer.post(sheet_url + "deals/1/restore", **EN)
    assert response["Location"] == sheet_url + "?restored=1"
    html = scorer.get(response["Location"], **EN).content.decode()
    assert "Deal 1 restored." in html and 'data-once="restored"' in html
    assert f'action="{sheet_url}deals/1/delete"' in html  # Undo
    # A viewer is told nothing of the kind: it could not restore it. Nor is anyone told of a
    # deal that would not be the next one.
    assert "Deal 1 deleted." not in Client().get(sheet_url + "?deleted=1", **EN).text
    assert "deleted." not in scorer.get(sheet_url + "?deleted=3", **EN).text
    assert "deleted." not in scorer.get(sheet_url + "?deleted=2", **EN).text  # none was


def test_the_history_offers_to_restore_the_deal_deleted_last_while_it_would_be_next(
    client, scorer, match, sheet_url, deal_url
):
    for number in (1, 2):
        scorer.post(deal_url, deal_data(number=number, a="5", b="6", da="0"), **HX)
    restore = f'action="{sheet_url}deals/2/restore"'
    assert restore not in scorer.get(sheet_url + "history", **EN).text  # nothing deleted
    scorer.post(sheet_url + "deals/2/delete", **HX)
    scorer.post(sheet_url + "deals/1/delete", **HX)
    # Deal 1 is the one that would be next: deal 2 cannot come back before it.
    html = scorer.get(sheet_url + "history", **EN).text
    assert f'action="{sheet_url}deals/1/restore"' in html and restore not in html
    assert "deals/1/restore" not in Client().get(sheet_url + "history", **EN).text  # a viewer
    response = scorer.post(sheet_url + "deals/1/restore", **EN)
    assert scorer.get(response["Location"], **EN).text.count("Deal 1 restored.") == 1
    assert restore in scorer.get(sheet_url + "history", **EN).text  # now deal 2's turn
    # Once another deal takes its place, it stays in the history only.
    scorer.post(deal_url, deal_data(number=2, a="7", b="4", da="0", key="new-2"), **HX)
    assert "/restore" not in scorer.get(sheet_url + "history", **EN).text


@pytest.mark.parametrize(
    ("players", "claimer", "said"),
    [
        (1, 0, "<strong>Alice</strong> claimed the line rightly and wins the match."),
        (2, 1, "Beppe &amp; Dino claimed the line wrongly: <strong>Alice &amp; Carla</strong> win"),
    ],
)
def test_a_claim_says_who_claimed_and_who_wins_in_good_english(client, players, claimer, said):
    match = MatchFactory(players_per_side=players, claims_allowed=True)
    client.post(reverse("join", args=[match.table.scorer_token]))
    # Side 0 has 14, then 21 when the claim stops deal 2: its claim is right, side 1's wrong.
    services.record_deal(match=match, number=1, entry=rules.DealEntry((10, 1), (4, 0)))
    claim = rules.DealEntry((7, 0), (0, 0), kind=rules.DealKind.CLAIM, side=claimer)
    services.record_deal(match=match, number=2, entry=claim)
    html = client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN)
    assert said in html.content.decode()


def test_an_undecided_match_can_be_stopped_from_the_sheet_and_says_so(scorer, match, worked):
    sheet_url = reverse("match", args=[match.table.viewer_token, match.pk])
    assert 'id="stop-match"' in scorer.get(sheet_url, **EN).content.decode()
    html = scorer.post(sheet_url + "stop", **HX).content.decode()
    assert "Stopped at 11\u20133, undecided." in html
    # Stopped, it is most often played on another day: Reopen comes first.
    assert re.search(r'class="primary" type="submit">Reopen<.*type="submit">Rematch<', html, re.S)
    assert 'id="deal-form"' not in html
    table_page = scorer.get(reverse("table", args=[match.table.viewer_token]), **EN)
    assert "stopped, undecided" in table_page.content.decode()
    history = scorer.get(sheet_url + "history", **EN).content.decode()
    assert "Match stopped, undecided" in history
    assert "11\u20133" in history


def test_a_decided_match_offers_no_stop(scorer, match, sheet_url, deal_url):
    scorer.post(deal_url, deal_data(1), **HX)
    html = scorer.post(deal_url, deal_data(2, key="k2"), **HX).content.decode()
    assert 'id="end-match"' in html
    assert 'id="stop-match"' not in html


def test_a_sweepers_points_are_said_to_reach_the_line_not_summed(scorer, match, sheet_url):
    services.record_deal(match=match, number=1, entry=rules.DealEntry((6, 5), (0, 0)))
    cappotto = rules.DealEntry((0, 11), (0, 0), kind=rules.DealKind.CAPPOTTO, side=1)
    services.record_deal(match=match, number=2, entry=cappotto)
    html = scorer.get(sheet_url, **EN).content.decode()
    row = html[html.index('id="deal-2"') :].split("</tr>", 1)[0]
    # Beppe & Dino had 5: the cappotto scores the 16 that take them to 21.
    detail = '<span class="small muted detail">'
    assert f'<td class="side-1"><strong>16</strong>{detail[:-1]} title="to the line">→ 21' in row
    assert f'<td class="side-0"><strong>0</strong>{detail}0 + 0' in row
    history = scorer.get(sheet_url + "history", **EN).content.decode()
    assert (
        'Alice &amp; Carla <span class="nowrap">0 + 0 = 0</span> · '
        'Beppe &amp; Dino <span class="nowrap">11 + 0 → 16</span> (cappotto, to the line)'
    ) in history


def test_a_won_match_says_so_instead_of_what_each_side_needs(scorer, match, sheet_url):
    for number in (1, 2):
        services.record_deal(match=match, number=number, entry=rules.DealEntry((8, 3), (3, 0)))
    html = scorer.get(sheet_url, **EN).content.decode()
    assert "match won" in html
    assert "more</span>" not in html  # "needs 6 more"


def test_the_history_shows_an_odd_imported_end_reason_as_it_is(scorer, match, sheet_url):
    Change.objects.create(match=match, action="match_ended", new={"reason": 5, "winner": 0})
    html = scorer.get(sheet_url + "history", **EN)
    assert html.status_code == 200
    assert "won by Alice &amp; Carla · 5" in html.content.decode()


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ((10, 0), "won by Alice &amp; Carla · claimed rightly"),
        ((5, 2), "won by Beppe &amp; Dino · wrong claim by Alice &amp; Carla"),
    ],
)
def test_the_history_says_who_claimed_and_who_won(scorer, match, sheet_url, claim, said):
    Match.objects.filter(pk=match.pk).update(claims_allowed=True)
    match.refresh_from_db()
    services.record_deal(match=match, number=1, entry=rules.DealEntry((8, 3), (3, 0)))
    entry = rules.DealEntry(claim, (0, 0), kind=rules.DealKind.CLAIM, side=0)
    services.record_deal(match=match, number=2, entry=entry)
    services.end_match(match=match)
    assert said in scorer.get(sheet_url + "history", **EN).content.decode()


def test_a_sweeper_already_past_the_line_scores_0_without_reaching_for_it(scorer, match, sheet_url):
    # 23-23: both at the line, another deal; then Beppe & Dino's cappotto wins it.
    for number, entry in enumerate([(6, 5, 0, 0), (5, 6, 0, 0), (6, 5, 6, 7)], start=1):
        deal = rules.DealEntry(entry[:2], entry[2:])
        services.record_deal(match=match, number=number, entry=deal)
    cappotto = rules.DealEntry((0, 11), (3, 0), kind=rules.DealKind.CAPPOTTO, side=1)
    services.record_deal(match=match, number=4, entry=cappotto)
    html = scorer.get(sheet_url, **EN).content.decode()
    row = html[html.index('id="deal-4"') :].split("</tr>", 1)[0]
    assert '<td class="side-1"><strong>0</strong><span class="tag">Cappotto</span>' in row
    assert "→" not in row


def test_both_sides_at_the_line_say_the_higher_total_won(scorer, match, sheet_url):
    # 11 to 11, then 6 + 4 against 5 + 6: both reach 21 on one deal, 21 to 22.
    services.record_deal(match=match, number=1, entry=rules.DealEntry((6, 5), (0, 0)))
    services.record_deal(match=match, number=2, entry=rules.DealEntry((5, 6), (0, 0)))
    services.record_deal(match=match, number=3, entry=rules.DealEntry((6, 5), (4, 6)))
    html = scorer.get(sheet_url, **EN).content.decode()
    assert (
        "Both sides have reached the line: <strong>Beppe &amp; Dino</strong> have the higher "
        "total and win the match."
    ) in html


def test_a_cappotto_without_its_side_asks_for_the_side(scorer, deal_url):
    data = deal_data(a="", b="", da="", db="", kind="cappotto")
    html = scorer.post(deal_url, data, **HX).content.decode()
    assert "Say which side swept the deal." in html
    assert "Enter the card points" not in html
    assert not Deal.objects.exists()


def test_counting_a_claims_pile_fills_only_the_counted_side(client, deal_url, match):
    match.claims_allowed = True
    match.save()
    client.post(reverse("join", args=[match.table.scorer_token]))
    data = deal_data(a="", b="4", da="", db="", kind="claim", side="0", count="1")
    data.update(count_side="0", aces="2", figures="4")
    html = client.post(deal_url, data, **HX).content.decode()
    assert 'name="card_points_0" id="id_card_points_0" value="3"' in html
    assert 'name="card_points_1" id="id_card_points_1" value="4"' in html  # as typed
    data.update(last_trick="on", count_side="1")
    html = client.post(deal_url, data, **HX).content.decode()
    assert "A claim stops the deal before the last trick: nobody took it." in html
    # The count shown again is the one sent: the second side's pile, the last trick ticked.
    assert 'name="count_side" value="1" checked' in html
    assert 'name="count_side" value="0" checked' not in html
    assert 'name="last_trick" value="on" checked' in html
    assert not Deal.objects.exists()


def test_in_due_one_player_cannot_declare_21(client):
    match = MatchFactory(players_per_side=1)
    client.post(reverse("join", args=[match.table.scorer_token]))
    deal_url = reverse("record_deal", args=[match.table.viewer_token, match.pk])
    html = client.post(deal_url, deal_data(a="6", b="5", da="21"), **HX).content.decode()
    assert "21 is not a declaration total any real deal can give." in html
    assert not Deal.objects.exists()


def test_an_ended_match_won_on_a_wrong_claim_says_who_claimed(client):
    match = MatchFactory(players_per_side=1, claims_allowed=True)
    client.post(reverse("join", args=[match.table.scorer_token]))
    services.record_deal(match=match, number=1, entry=rules.DealEntry((6, 5), (0, 0)))
    claim = rules.DealEntry((3, 2), (0, 0), kind=rules.DealKind.CLAIM, side=0)
    services.record_deal(match=match, number=2, entry=claim)  # 9: wrong
    services.end_match(match=match)
    html = client.get(reverse("match", args=[match.table.viewer_token, match.pk]), **EN)
    text = html.content.decode()
    assert "won the match (claim)." in text
    assert "Alice claimed the line wrongly." in text


def test_the_sheet_says_when_the_match_began(scorer, match, sheet_url):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    match.started_at = datetime(2026, 11, 28, 21, 5, tzinfo=ZoneInfo("Europe/Rome"))
    match.save()
    english = scorer.get(sheet_url, **EN).content.decode()
    assert '<span class="started">started Nov. 28, 2026, 21:05</span>' in english
    italian = scorer.get(sheet_url, HTTP_ACCEPT_LANGUAGE="it").content.decode()
    assert "iniziata: 28 nov 2026 alle 21:05" in italian


def test_a_long_history_comes_a_hundred_changes_a_page(scorer, match, sheet_url):
    Change.objects.bulk_create(
        Change(match=match, action="settings_changed", new={"line": 21}) for _ in range(150)
    )
    first = scorer.get(sheet_url + "history", **EN).content.decode()
    assert first.count("<li>") == 100
    assert "Page 1 of 2" in first
    assert f'href="{sheet_url}history?page=2"' in first
    second = scorer.get(sheet_url + "history?page=2", **EN).content.decode()
    assert second.count("<li>") == 50
    assert f'href="{sheet_url}history?page=1"' in second


def store_as_before(match, *entries):
    """Deals stored as an earlier version's rules allowed, which today's refuse."""
    for number, entry in enumerate(entries, start=1):
        points = tuple(entry.card_points[i] + entry.declared_points[i] for i in (0, 1))
        deal = Deal(match=match, number=number)
        deal.set_scored(rules.ScoredDeal(number, entry, points, points, 0))
        deal.save()


@pytest.mark.parametrize(
    ("players", "claims", "entries"),
    [
        # In due, one hand declaring 21 (two hands can; one cannot).
        (1, False, [rules.DealEntry((6, 5), (21, 0))]),
        # A claim of a played-out deal: 11 card points.
        (2, True, [rules.DealEntry((8, 3), (3, 0)), rules.DealEntry((6, 5), (0, 0), "claim", 0)]),
        # A claim once both sides stood at the line.
        (
            2,
            True,
            [
                rules.DealEntry((6, 5), (0, 0)),
                rules.DealEntry((5, 6), (0, 0)),
                rules.DealEntry((6, 5), (6, 7)),
                rules.DealEntry((0, 0), (0, 0), "claim", 1),
            ],
        ),
    ],
)
def test_deals_stored_under_earlier_rules_still_open_and_export(client, players, claims, entries):
    line = 21 if claims else 101  # in due, 27 to 5 is no win yet at 101
    match = MatchFactory(players_per_side=players, claims_allowed=claims, line=line)
    store_as_before(match, *entries)
    client.post(reverse("join", args=[match.table.scorer_token]))
    token = match.table.viewer_token
    assert client.get(reverse("match", args=[token, match.pk]), **EN).status_code == 200
    for fmt in ("csv", "json"):
        body = b"".join(client.get(reverse("export_table", args=[token, fmt])).streaming_content)
        assert body.count(b'"number"' if fmt == "json" else b"\r\n") >= len(entries)
    # A new deal is checked against where the old ones, as they stand, left the match.
    deal_url = reverse("record_deal", args=[token, match.pk])
    html = client.post(deal_url, deal_data(len(entries) + 1, a="6", b="5", da="0"), **HX)
    stored = Deal.objects.filter(match=match).count()
    if claims:  # a claim ended it: decided
        assert "The match is already decided: no more deals." in html.content.decode()
        assert stored == len(entries)
    else:
        assert stored == len(entries) + 1


def test_a_phone_whose_scorer_link_was_replaced_is_told_by_its_next_poll(scorer, match, worked):
    from matches.models import Table

    sheet_url = reverse("match", args=[match.table.viewer_token, match.pk])
    poll = sheet_url + "?poll=1&number=2&typing=0"
    assert "can only watch now" not in scorer.get(poll, **HX).content.decode()
    services.rotate_link(table=Table.objects.get(), which="scorer")
    html = scorer.get(poll, **HX).content.decode()
    assert "This table's scorer link has changed: this phone can only watch now." in html
    assert 'id="deal-form"' not in html
    # A viewer who never scored is told nothing.
    assert "can only watch" not in Client().get(poll, **HX).content.decode()


def test_the_sheet_modules_docstring_examples_hold():
    import doctest

    from matches import sheet

    assert doctest.testmod(sheet).failed == 0


def test_the_side_question_mentions_claims_only_where_claims_are_allowed(scorer, match, sheet_url):
    assert "Which side swept</p>" in scorer.get(sheet_url, **EN).content.decode()
    services.change_settings(match=match, settings=rules.MatchSettings(21, "higher_total", True))
    assert "Which side swept or claimed</p>" in scorer.get(sheet_url, **EN).content.decode()


def test_an_edit_refused_because_of_a_later_deal_names_that_deal(client):
    match = MatchFactory(players_per_side=1)
    store_as_before(match, rules.DealEntry((6, 5), (0, 0)), rules.DealEntry((6, 5), (21, 0)))
    client.post(reverse("join", args=[match.table.scorer_token]))
    url = reverse("edit_deal", args=[match.table.viewer_token, match.pk, 1])
    data = {"number": 1, "version": 1, "kind": "normal", "card_points_0": "7"}
    data.update(card_points_1="4", declared_points_0="0", declared_points_1="0")
    html = client.post(url, data, **EN).content.decode()
    assert "Deal 2: Alice: 21 is not a declaration total any real deal can give." in html
    assert Deal.objects.get(match=match, number=1).card_points == (6, 5)


def test_a_phone_whose_scorer_link_was_replaced_is_told_on_opening_the_sheet(scorer, match):
    from matches.models import Table

    sheet_url = reverse("match", args=[match.table.viewer_token, match.pk])
    services.rotate_link(table=Table.objects.get(), which="scorer")
    html = scorer.get(sheet_url, **EN).content.decode()
    assert "this phone can only watch now" in html
    assert 'id="deal-form"' not in html
    # Even mid-typing, the next poll withdraws the form it can no longer use.
    poll = scorer.get(sheet_url + "?poll=1&number=1&typing=1", **HX).content.decode()
    assert '<section id="entry" hx-swap-oob="true">' in poll


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        # Another phone switched claims off while this one was showing the claim chip.
        ({"kind": "claim", "side": "0", "a": "4", "b": "3"}, "Claims are not allowed in this"),
        ({"kind": "x"}, "Pick the kind of deal."),
        ({"kind": ""}, "Pick the kind of deal."),
        ({"kind": "cappotto", "side": "2", "a": "11", "b": "0"}, "Pick one of the two sides."),
        ({"a": "1" + "0" * 22}, "Card points is too large: at most"),
        ({"da": "3" * 5000}, "Declarations is too large: at most"),
    ],
)
def test_a_refused_deal_says_why_in_the_apps_own_words(scorer, match, deal_url, fields, message):
    html = scorer.post(deal_url, deal_data(**fields), **HX).content.decode()
    assert message in html
    assert "Select a valid choice" not in html and "Ensure this value" not in html
    assert not match.deals.exists()


def test_a_save_after_another_phone_deleted_a_deal_says_so_and_renumbers(
    scorer, match, deal_url, sheet_url
):
    for number in (1, 2):
        scorer.post(deal_url, deal_data(number=number, a="5", b="6", da="0"), **HX)
    scorer.post(sheet_url + "deals/2/delete", **HX)  # on another phone, say
    data = deal_data(number=3, a="7", b="4", da="0", key="k3")
    html = scorer.post(deal_url, data, **HX).content.decode()
    assert "Another phone deleted a deal meanwhile: this one is now deal 2." in html
    assert re.search(r'name="number" id="deal-number" value="2"', html)
    assert 'value="7"' in html  # what was typed stays
    assert match.deals.count() == 1
    scorer.post(deal_url, {**data, "number": "2"}, **HX)  # saved again, as the form now says
    assert match.deals.count() == 2


def test_the_other_phones_are_told_of_a_deleted_deal_and_may_restore_it(
    client, scorer, match, sheet_url, deal_url
):
    other = Client()
    other.post(f"/join/{match.table.scorer_token}/", {"label": "Dino"})
    for number in (1, 2):
        scorer.post(deal_url, deal_data(number=number, a="5", b="6", da="0"), **HX)
    scorer.post(sheet_url + "deals/2/delete", **HX)
    told = "Deal 2 was deleted on another phone."
    # The other phone's form still shows deal 3; it may be typing in it, or not.
    for typing in ("0", "1"):
        html = other.get(sheet_url + f"?poll=1&number=3&typing={typing}", **HX).text
        assert told in html and "Another phone has just entered a deal" not in html
        assert reverse("restore_deal", args=[match.table.viewer_token, match.pk, 2]) in html
    # Told until something else happens, though its form now shows deal 2 (a poll redrew it).
    assert told in other.get(sheet_url + "?poll=1&number=2&typing=0", **HX).text
    # The deleting phone has its own notice; a viewer has nothing to restore.
    assert told not in scorer.get(sheet_url + "?poll=1&number=2&typing=0", **HX).text
    assert told not in Client().get(sheet_url + "?poll=1", **HX).text
    other.post(sheet_url + "deals/2/restore", **HX)
    assert match.deals.count() == 2
    assert told not in other.get(sheet_url + "?poll=1&number=3&typing=0", **HX).text
    # Now the other phone deletes deal 2: the first is told, though it deleted a deal 2 once.
    other.post(sheet_url + "deals/2/delete", **HX)
    assert told in scorer.get(sheet_url + "?poll=1&number=3&typing=0", **HX).text
    assert told not in other.get(sheet_url + "?poll=1&number=2&typing=0", **HX).text


def test_saved_settings_and_a_reopen_are_said_where_focus_can_go(scorer, match, sheet_url):
    data = {"line": "31", "tie_rule": "higher_total"}
    html = scorer.post(sheet_url + "settings", data, **HX).text
    assert 'id="settings-saved" tabindex="-1">Settings saved.' in html
    services.stop_match(match=match)
    html = scorer.post(sheet_url + "reopen", **HX).text
    assert 'id="reopened" tabindex="-1">Match reopened: play on from here.' in html


def test_the_kind_and_side_refusals_are_tied_to_their_choices(scorer, deal_url):
    html = scorer.post(deal_url, deal_data(kind="cappotto", a="11", b="0"), **HX).text
    assert 'aria-describedby="side-error"' in html and 'id="side-error"' in html
    html = scorer.post(deal_url, deal_data(kind="x"), **HX).text
    assert 'aria-describedby="kind-error"' in html and 'id="kind-error"' in html
