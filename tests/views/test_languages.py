"""In Italian and in Croatian, no English is left on the pages a table uses; rules, dates,
numbers and plurals as each language says them."""

import html
import re

import pytest
from django.urls import reverse
from django.utils import formats, translation
from django.utils.translation import trans_real

from matches import exports, rules, services
from matches.models import Match

pytestmark = pytest.mark.django_db

IT = {"HTTP_ACCEPT_LANGUAGE": "it-IT,it;q=0.9"}
HR = {"HTTP_ACCEPT_LANGUAGE": "hr-HR,hr;q=0.9"}
LANGUAGES = pytest.mark.parametrize("language", ["it", "hr"])


def asking(language: str) -> dict:
    return {"HTTP_ACCEPT_LANGUAGE": f"{language};q=0.9"}


def english_fragments(language: str) -> set[str]:
    """Every translated English phrase of two words or more, cut at its placeholders."""
    catalog = trans_real.translation(language)._catalog
    fragments = set()
    for msgid, msgstr in catalog.items():
        if isinstance(msgid, tuple):  # plural forms
            msgid = msgid[0]
        if not msgid or msgid == msgstr:
            continue
        for piece in re.split(r"%\(\w+\)[sd]|<[^>]+>|[“”\"]", msgid):
            piece = piece.strip(" .,:;()\u2013-")
            if len(piece.split()) >= 2:
                fragments.add(piece)
    return fragments


def visible_text(page: str) -> str:
    page = re.sub(r"<script\b.*?</script>", " ", page, flags=re.S)
    attributes = " ".join(re.findall(r'(?:aria-label|placeholder|title|alt)="([^"]*)"', page))
    return html.unescape(re.sub(r"<[^>]+>", " ", page) + " " + attributes)


@pytest.fixture
def pages(scorer, match, worked):
    for number in (2,):
        entry = rules.DealEntry(card_points=(7, 4), declared_points=(4, 3))
        services.record_deal(match_id=match.pk, number=number, entry=entry, by="Carla")
    token = match.table.viewer_token
    done = services.start_match(table=match.table, players=[["Alice"], ["Beppe"]])
    sweep = rules.DealEntry(card_points=(0, 11), declared_points=(0, 0), kind="cappotto", side=1)
    services.record_deal(match_id=done.pk, number=1, entry=sweep)
    services.end_match(match=done)
    open_match = services.start_match(table=match.table, players=[["Carla"], ["Dino"]])
    return [
        reverse("match", args=[token, match.pk]),
        reverse("match", args=[token, done.pk]),
        reverse("match", args=[token, open_match.pk]),
        reverse("edit_deal", args=[token, match.pk, 1]),
        reverse("match_history", args=[token, match.pk]),
        reverse("table", args=[token]),
        reverse("new_match", args=[token]),
        reverse("stats", args=[token]),
        "/",
        "/offline",
    ]


@LANGUAGES
def test_the_pages_have_no_english_left(scorer, pages, language):
    fragments = english_fragments(language)
    assert len(fragments) > 100  # the catalogue is really there
    for url in pages:
        text = visible_text(scorer.get(url, **asking(language)).content.decode())
        left = sorted(f for f in fragments if f in text)
        assert not left, (url, left)
        # The same page in English is caught by the same check: it can fail.
        english = visible_text(scorer.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode())
        assert any(f in english for f in fragments), url


@LANGUAGES
def test_rule_messages_are_translated_too(scorer, match, deal_url, language):
    data = {
        "number": 1,
        "key": "k",
        "kind": "normal",
        "card_points_0": "8",
        "card_points_1": "4",
        "declared_points_0": "5",
    }
    answer = scorer.post(deal_url, data, HTTP_HX_REQUEST="true", **asking(language))
    text = visible_text(answer.content.decode())
    with translation.override(language):
        template = translation.gettext(
            "%(side)s: %(value)s is not a declaration total any real deal can give."
        )
    # Under the side's own field: its column is headed by its name, which is not said again.
    expected = template.removeprefix("%(side)s: ") % {"value": 5}
    assert expected in text and template.startswith("%(side)s: ")
    assert "Alice &amp; Carla: 5" not in text and "Alice & Carla: 5" not in text
    assert "is not a declaration total" not in text


def test_dates_follow_the_language(scorer, match):
    """The table's list writes a day as the sheet does, its month in words: "12/01/2026" is
    the first of December to an American and the twelfth of January to an Italian."""
    url = reverse("table", args=[match.table.viewer_token])
    english = scorer.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    italian = scorer.get(url, **IT).content.decode()
    day = match.started_at.astimezone()
    with translation.override("en"):
        assert f"{formats.date_format(day, 'N j, Y')}, {day:%H:%M}</time>" in english
    with translation.override("it"):
        assert f"{formats.date_format(day, 'j b Y')}, {day:%H:%M}</time>" in italian
    assert day.strftime("%m/%d/%Y") not in english


def test_the_history_writes_its_times_as_the_sheet_does_24_hours_in_both_languages(scorer, match):
    entry = rules.DealEntry(card_points=(8, 3), declared_points=(3, 0))
    services.record_deal(match_id=match.pk, number=1, entry=entry)
    at = match.changes.get().at.astimezone()
    url = reverse("match_history", args=[match.table.viewer_token, match.pk])
    english = scorer.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    italian = scorer.get(url, **IT).content.decode()
    with translation.override("en"):
        assert f"{formats.date_format(at, 'N j, Y')}, {at:%H:%M:%S}</time>" in english
    with translation.override("it"):
        assert f"{formats.date_format(at, 'j b Y')}, {at:%H:%M:%S}</time>" in italian
    assert "a.m." not in english and "p.m." not in english


@LANGUAGES
def test_the_catalogue_has_nothing_fuzzy_or_untranslated(language):
    """The page check above only knows translated messages: none may be left out."""
    from pathlib import Path

    po = Path(__file__).resolve().parents[2] / f"locale/{language}/LC_MESSAGES/django.po"
    entries = po.read_text(encoding="utf-8").split("\n\n")[1:]  # the first is the header
    fuzzy = [e for e in entries if "#, fuzzy" in e]
    untranslated = [e for e in entries if re.search(r'^msgstr(\[\d\])? ""$(?!\n")', e, re.M)]
    assert not fuzzy
    assert not untranslated


def test_an_ended_match_says_who_won_in_a_sentence(scorer, match, worked):
    services.record_deal(match_id=match.pk, number=2, entry=worked.entry)
    services.end_match(match=match)
    text = visible_text(
        scorer.get(reverse("match", args=[match.table.viewer_token, match.pk]), **IT).text
    )
    assert "Alice & Carla hanno vinto la partita (traguardo raggiunto)." in " ".join(text.split())


def test_a_side_the_table_named_wins_in_the_singular(scorer, match, worked):
    match.sides.filter(position=0).update(name="Bar Sport")
    services.record_deal(match_id=match.pk, number=2, entry=worked.entry)
    url = reverse("match", args=[match.table.viewer_token, match.pk])
    decided = " ".join(visible_text(scorer.get(url, **IT).text).split())
    assert "Bar Sport raggiunge il traguardo e vince la partita." in decided
    services.end_match(match=match)
    ended = " ".join(visible_text(scorer.get(url, **IT).text).split())
    assert "Bar Sport ha vinto la partita (traguardo raggiunto)." in ended


def test_the_language_cookie_is_kept_from_scripts_and_other_sites(client):
    answer = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert answer.status_code == 302
    cookie = answer.cookies["django_language"]
    assert cookie.value == "en"
    assert cookie["httponly"] and cookie["samesite"] == "Lax"


def test_croatian_dates_numbers_and_the_csv_separator(scorer, match, worked):
    url = reverse("table", args=[match.table.viewer_token])
    day = match.started_at.astimezone()
    croatian = scorer.get(url, **HR).content.decode()
    assert f"{day.day}. {day.month}. {day.year}., {day:%H:%M}</time>" in croatian
    export = scorer.get(reverse("export_table", args=[match.table.viewer_token, "csv"]), **HR)
    assert 'filename="treseta-' in export["Content-Disposition"]
    head = b"".join(export.streaming_content).decode().splitlines()[0]
    with translation.override("hr"):
        titles = [str(title) for title in exports.CSV_HEADER[:3]]
    assert head.removeprefix("\ufeff").startswith(";".join(f'"{t}"' for t in titles))
    assert titles[0] != "Match"


@pytest.mark.parametrize(
    ("deals", "said"),
    [(1, "1 dijeljenje"), (2, "2 dijeljenja"), (4, "4 dijeljenja"), (5, "5 dijeljenja"),
     (21, "21 dijeljenje"), (22, "22 dijeljenja"), (11, "11 dijeljenja")],
)  # fmt: skip
def test_croatian_counts_deals_in_its_three_plural_forms(scorer, match, deals, said):
    Match.objects.filter(pk=match.pk).update(deal_count=deals)
    page = visible_text(scorer.get(reverse("table", args=[match.table.viewer_token]), **HR).text)
    assert f" {said} " in " ".join(page.split())


def test_a_croatian_match_without_akuze_refuses_declared_points_in_croatian(
    scorer, match, deal_url
):
    url = reverse("change_settings", args=[match.table.viewer_token, match.pk])
    scorer.post(url, {"line": "31", "tie_rule": "higher_total"}, **HR)
    data = {
        "number": 1,
        "key": "k",
        "kind": "normal",
        "card_points_0": "8",
        "declared_points_0": "3",
    }
    text = visible_text(scorer.post(deal_url, data, HTTP_HX_REQUEST="true", **HR).text)
    with translation.override("hr"):
        refused = translation.gettext(rules.MESSAGES["declarations_not_allowed"])
    assert refused in " ".join(text.split()) and "akuž" in refused
    assert not match.deals.exists()
