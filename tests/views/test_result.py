"""A match's result for the table's chat (views/history.result_picture, and the sheet's Share
block): the picture the server draws (SVG) and the text, read as the table would."""

import doctest
import xml.etree.ElementTree as ElementTree

import pytest
from django.urls import reverse
from django.utils import timezone

from matches import rules, services
from matches.selectors import result
from tests.factories import TableFactory
from tests.html import one, parsed, words

pytestmark = pytest.mark.django_db
SVG = "{http://www.w3.org/2000/svg}"
WORKED = rules.DealEntry((8, 3), (3, 0))
CAPPOTTO = rules.DealEntry((11, 0), (0, 0), kind=rules.DealKind.CAPPOTTO, side=0)


def finish(players=(("Alice", "Carla"), ("Beppe", "Dino")), *deals, **settings):
    """A match of `deals` (the worked deal and a cappotto by default), ended."""
    table = TableFactory()
    settings = rules.MatchSettings(**settings)
    match = services.start_match(table=table, players=players, settings=settings)
    for number, entry in enumerate(deals or (WORKED, CAPPOTTO), start=1):
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    services.end_match(match=match)
    return match


def picture_url(match) -> str:
    return reverse("result_picture", args=[match.table.viewer_token, match.pk])


def drawn(response) -> tuple[ElementTree.Element, list[str]]:
    """The picture, parsed as XML (a broken one raises), and its texts in drawing order."""
    assert response["Content-Type"].startswith("image/svg+xml")
    svg = ElementTree.fromstring(response.content)
    return svg, [text.text for text in svg.iter(f"{SVG}text")]


@pytest.mark.parametrize(
    ("language", "how", "won", "totals", "cappotto", "deals"),
    [
        ("en", "Alice & Carla won the match (cappotto).", "match won", "Totals", "Cappotto",
         "2 deals"),
        ("it", "Alice & Carla hanno vinto la partita (cappotto).", "partita vinta", "Totali",
         "Cappotto", "2 smazzate"),
        ("hr", "Partiju osvajaju Alice & Carla (kapot).", "partija dobivena", "Ukupno", "Kapot",
         "2 dijeljenja"),
    ],
)  # fmt: skip
def test_the_picture_draws_the_names_every_deal_the_totals_who_won_and_how(
    client, language, how, won, totals, cappotto, deals
):
    match = finish()
    response = client.get(picture_url(match), HTTP_ACCEPT_LANGUAGE=language)
    svg, texts = drawn(response)
    assert (svg.get("width"), svg.get("viewBox").split()[2]) == ("1080", "1080")
    assert "Alice & Carla" in texts and "Beppe & Dino" in texts
    # The totals, large, on each side's card; the winner's says it won.
    large = [text.text for text in svg.iter(f"{SVG}text") if text.get("font-size") == "150"]
    assert large == ["21", "3"]
    assert won in texts
    said = " ".join(texts)  # a sentence may be wrapped over lines
    assert how in said
    assert deals in said
    # Every deal: its number, each side's points, the running totals; the cappotto named.
    rows = texts[texts.index(totals) + 1 :]
    assert rows[:4] == ["1", "11", "3", "11–3"]
    assert rows[4:9] == ["2", "10", cappotto, "0", "21–3"]
    # Said whole for a screen reader, and as it is shared with the picture.
    assert svg.find(f"{SVG}title").text.splitlines()[:2] == [
        "Alice & Carla 21 – 3 Beppe & Dino",
        how,
    ]


def test_hostile_names_are_drawn_as_text_never_as_markup(client):
    match = finish((("<script>alert(1)</script>", "Tom & Jerry"), ('"Quote"', "]]>&amp;")))
    response = client.get(picture_url(match), HTTP_ACCEPT_LANGUAGE="en")
    assert b"<script" not in response.content
    svg, texts = drawn(response)  # still well-formed XML
    said = " ".join(texts)
    assert "<script>alert(1)</script>" in said
    assert "Tom & Jerry" in said
    assert '"Quote" & ]]>&amp;' in said
    assert list(svg.iter(f"{SVG}script")) == []


def test_a_long_name_wraps_or_shrinks_within_its_card(client):
    match = finish((("Maria Grazia Santangelo", "Giovanni Battista Montecorvino"), ("Ugo", "Ida")))
    svg, _texts = drawn(client.get(picture_url(match), HTTP_ACCEPT_LANGUAGE="it"))
    card = [t for t in svg.iter(f"{SVG}text") if t.get("x") == "76"]  # the first card's
    name = [t for t in card if t.get("font-weight") == "700" and not t.text.isdigit()]
    said = " ".join(line.text for line in name)
    assert said == "Maria Grazia Santangelo & Giovanni Battista Montecorvino"
    assert len(name) > 1  # wrapped
    room = (1080 - 2 * 48 - 24) // 2 - 2 * 28  # half the picture, less its margins
    for line in name:
        size = int(line.get("font-size"))
        assert result.text_width(line.text, size, bold=True) <= room
        assert line.get("textLength") is None  # wrapped and shrunk: not squeezed


def test_a_side_with_a_name_of_its_own_says_its_players_too(client):
    table = TableFactory()
    match = services.start_match(
        table=table, players=[["Anna", "Bea"], ["Ciro", "Dora"]], side_names=["I Lupi", ""]
    )
    services.stop_match(match=match)
    _svg, texts = drawn(client.get(picture_url(match), HTTP_ACCEPT_LANGUAGE="en"))
    assert texts[texts.index("I Lupi") + 1] == "Anna & Bea"
    assert "Stopped at 0–0, undecided." in " ".join(texts)
    assert "match won" not in texts


def test_a_claim_says_who_claimed_and_whether_rightly(client):
    wrong = rules.DealEntry((3, 2), (0, 0), kind=rules.DealKind.CLAIM, side=0)
    match = finish((("Anna",), ("Bruno",)), rules.DealEntry((6, 5), (0, 0)), wrong,
                   claims_allowed=True)  # fmt: skip
    _svg, texts = drawn(client.get(picture_url(match), HTTP_ACCEPT_LANGUAGE="en"))
    said = " ".join(texts)
    assert "Bruno won the match (claim). Anna claimed the line wrongly." in said


def test_a_long_match_lays_its_deals_out_in_columns_and_draws_each(client):
    played = [rules.DealEntry((6, 5), (0, 0))] * 16 + [CAPPOTTO]
    match = finish((("Anna",), ("Bruno",)), *played, line=101)
    svg, _texts = drawn(client.get(picture_url(match), HTTP_ACCEPT_LANGUAGE="en"))
    numbers = [t for t in svg.iter(f"{SVG}text") if t.get("fill") == result.MUTED]
    rows = {int(t.text): t.get("x") for t in numbers if t.text.isdigit()}
    assert sorted(rows) == list(range(1, 18))
    assert len(set(rows.values())) == 2  # two columns
    assert int(svg.get("height")) < 1600


def test_the_picture_is_sent_as_a_table_page_and_again_only_once_changed(client):
    match = finish()
    url = picture_url(match)
    first = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert first["X-Robots-Tag"] == "noindex, nofollow"
    assert "private" in first["Cache-Control"]
    again = client.get(url, HTTP_ACCEPT_LANGUAGE="en", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    services.reopen_match(match=match)
    changed = client.get(url, HTTP_ACCEPT_LANGUAGE="en", HTTP_IF_NONE_MATCH=first["ETag"])
    assert "In progress" in drawn(changed)[1]
    italian = client.get(url, HTTP_ACCEPT_LANGUAGE="it", HTTP_IF_NONE_MATCH=changed["ETag"])
    assert "In corso" in drawn(italian)[1]


def test_the_picture_asks_the_database_as_often_for_a_long_match(client, django_assert_num_queries):
    short = finish()
    long = finish((("Anna",), ("Bruno",)), *[rules.DealEntry((6, 5), (0, 0))] * 16, CAPPOTTO,
                  line=101)  # fmt: skip
    for match in (short, long):
        with django_assert_num_queries(4):  # state; match and sides; deals; its number
            client.get(picture_url(match))


def test_another_tables_link_finds_no_picture(client):
    match = finish()
    other = TableFactory()
    response = client.get(reverse("result_picture", args=[other.viewer_token, match.pk]))
    assert response.status_code == 404


# --- On the sheet ------------------------------------------------------------------------


def test_a_finished_match_offers_its_result_to_share(client):
    match = finish()
    sheet = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]),
                              HTTP_ACCEPT_LANGUAGE="en"))  # fmt: skip
    block = one(sheet, "#share-result")
    assert words(one(block, "h2")) == "Share the result"
    assert words(one(block, "#share-result-button")) == "Share"
    assert words(one(block, "#copy-result")) == "Copy"
    # Without scripts: the text to copy by hand and the picture's link.
    lines = one(block, "textarea#result-text").get_text().splitlines()
    assert lines[:2] == [
        "Alice & Carla 21 – 3 Beppe & Dino",
        "Alice & Carla won the match (cappotto).",
    ]
    assert lines[2].startswith("Line 21 · 2 deals · ")
    assert lines[2].endswith(str(timezone.localtime(match.started_at).year))
    assert one(block, "a#result-picture")["href"] == picture_url(match)
    assert block["data-file-name"].endswith(".png")
    assert "-match-1-" in block["data-file-name"]


def test_a_match_being_played_offers_no_result_to_share(client, match, worked):
    sheet = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk])))
    assert sheet.select("#share-result") == []


def test_the_picture_layout_doctests_hold():
    assert doctest.testmod(result).failed == 0


@pytest.mark.parametrize(
    ("language", "how", "tag"),
    [
        ("en", "Beppe & Dino won the match (cappottone by Dino).", "Cappottone · Dino"),
        ("it", "Beppe & Dino hanno vinto la partita (cappottone di Dino).", "Cappottone · Dino"),
        (
            "hr",
            "Partiju osvajaju Beppe & Dino (kapot jednog igrača: Dino).",
            "Kapot jednog igrača · Dino",
        ),
    ],
)
def test_a_cappottone_is_shared_naming_the_player_who_swept_alone(client, language, how, tag):
    alone = rules.DealEntry((0, 11), (0, 0), kind=rules.DealKind.CAPPOTTONE, seat=3)
    match = finish((("Alice", "Carla"), ("Beppe", "Dino")), WORKED, alone)
    _svg, texts = drawn(client.get(picture_url(match), HTTP_ACCEPT_LANGUAGE=language))
    assert how in " ".join(texts)
    assert tag in texts  # beside Beppe & Dino's points in deal 2
    sheet = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]),
                              HTTP_ACCEPT_LANGUAGE=language))  # fmt: skip
    assert one(sheet, "textarea#result-text").get_text().splitlines()[1] == how


# --- Terziglio ------------------------------------------------------------------------------

LONG = "Carla Maria Santangelo di Roccaforte"


def finish_terziglio(*entries, terms=None, stop=False):
    """A match of three (to the line, by default), its `entries` played, then ended (or
    stopped)."""
    players = [["Anna"], ["Bruno"], [LONG]]
    terms = terms or rules.TerziglioTerms()
    match = services.start_match(table=TableFactory(), players=players, settings=terms)
    for number, entry in enumerate(entries, start=1):
        services.record_deal(match_id=match.pk, number=number, entry=entry)
    (services.stop_match if stop else services.end_match)(match=match)
    return match


def test_a_match_of_terziglio_is_shared_with_its_three_balances_and_every_bid(client):
    bid = rules.Bid
    match = finish_terziglio(
        rules.TerziglioEntry(0, bid.CHIAMO, 7),
        rules.TerziglioEntry(),
        rules.TerziglioEntry(2, bid.SOLISSIMO, 10),  # 9 tripled from each: 51, past the line
    )
    svg, texts = drawn(client.get(picture_url(match), HTTP_ACCEPT_LANGUAGE="en"))
    bold = [text for text in svg.iter(f"{SVG}text") if text.get("font-weight") == "700"]
    large = [text.text for text in bold if int(text.get("font-size")) >= 90]
    assert large == ["-21", "-30", "51"]
    room = (1080 - 2 * 48 - 2 * 24) // 3 - 2 * 28  # a third of the picture, less margins
    third = [t for t in bold if t.get("x") == str(48 + 2 * (room + 2 * 28 + 24) + 28)]
    assert [t.text for t in third][:3] == ["Carla Maria", "Santangelo", "di Roccaforte"]
    assert all(result.text_width(t.text, int(t.get("font-size")), True) <= room for t in third)
    said = " ".join(texts)
    assert f"{LONG} won the match" in said and "Line 21 · 3 deals" in said
    # Each deal: its number, each balance after it and what it moved by; the bid.
    rows = texts[texts.index("Bid") + 1 :]
    assert rows[:8] == ["1", "6", "+6", "-3", "-3", "-3", "-3", "chiamo 7–4"]
    assert rows[8:16] == ["2", "6", "0", "-3", "0", "-3", "0", "a monte"]
    assert rows[16:24] == ["3", "-21", "-27", "-30", "-27", "51", "+54", "solissimo 10–1"]
    assert svg.find(f"{SVG}title").text.splitlines()[0] == f"Anna -21 · Bruno -30 · {LONG} 51"
    sheet = parsed(client.get(reverse("match", args=[match.table.viewer_token, match.pk]),
                              HTTP_ACCEPT_LANGUAGE="en"))  # fmt: skip
    shared = one(sheet, "textarea#result-text").get_text().splitlines()
    assert shared[:2] == [
        f"Anna -21 · Bruno -30 · {LONG} 51",
        f"{LONG} won the match (reached the line).",
    ]


def test_a_match_of_terziglio_stopped_is_shared_as_it_stood(client):
    flat = rules.TerziglioTerms(rules.Payment.FLAT, rules.TerziglioEnd.DEALS, deals=6)
    match = finish_terziglio(rules.TerziglioEntry(1, rules.Bid.SOLO, 8), terms=flat, stop=True)
    _svg, texts = drawn(client.get(picture_url(match), HTTP_ACCEPT_LANGUAGE="en"))
    said = " ".join(texts)
    assert "Stopped, undecided: the balances stand as they are." in said
    assert "1 deal" in said and "Line" not in said  # played to a number of deals
