"""A table at work, in a real Chromium at phone size."""

import re

import pytest
from playwright.sync_api import expect

from matches import rules, services
from matches.models import Deal, Match
from tests.browser.conftest import PHONE, scripts_ran
from tests.factories import MatchFactory

pytestmark = pytest.mark.django_db(transaction=True)


def create_table_and_match(
    page, *, line="21", tie_rule=None, pair=True, names=None, table="Bar Sport", claims=False
):
    page.goto("/")
    page.get_by_label("Table name").fill(table)
    page.get_by_role("button", name="Create table").click()
    page.get_by_role("link", name="New match").click()
    scripts_ran(page)  # app.js names the seats as they are typed
    if not pair:
        page.get_by_label("Two players (Tressette in due)").check()
    fields = page.locator("input[list=known-players]")
    names = names or (["Alice", "Carla", "Beppe", "Dino"] if pair else ["Alice", "", "Beppe", ""])
    expect(fields).to_have_count(len(names))  # the new-match page is loaded (all() waits not)
    # Field order on the page: side 1 first player, partner, side 2 first player, partner.
    for field, name in zip(fields.all(), names, strict=True):
        if name:
            field.fill(name)
    page.get_by_label("Line", exact=True).fill(line)
    if tie_rule:
        page.get_by_label(tie_rule).check()
    if claims:
        page.get_by_label("Claims allowed", exact=False).check()
    page.get_by_role("button", name="Start match").click()
    expect(page.get_by_role("heading", name="Deal 1")).to_be_visible()
    scripts_ran(page)  # the sheet's script listens before anything is typed


def enter_deal(page, a, da="", db="", kind=None, side=None):
    page.locator("#id_card_points_0").fill(str(a))
    if da:
        page.locator("#id_declared_points_0").fill(str(da))
    if db:
        page.locator("#id_declared_points_1").fill(str(db))
    if kind:
        page.locator("#deal-form").get_by_label(kind, exact=True).check()
        page.locator("#deal-form .side-choice").get_by_text(side, exact=True).click()
    page.get_by_role("button", name="Save deal").click()


def poll_drawn(page) -> str:
    """The address of the sheet's next poll, once its answer is drawn (htmx fires
    afterRequest after the swap)."""
    page.evaluate(
        """() => {
          window.polled = null;
          document.addEventListener("htmx:afterRequest", function drawn(event) {
            var path = event.detail.pathInfo.finalRequestPath || event.detail.pathInfo.requestPath;
            if (path.indexOf("poll=1") === -1) return;
            document.removeEventListener("htmx:afterRequest", drawn);
            window.polled = path;
          });
        }"""
    )
    return page.wait_for_function("() => window.polled").json_value()


def second_scorer(new_phone, first):
    """Another phone, joined through the scorer link, on the sheet the first phone shows."""
    second = new_phone()
    second.goto(f"/join/{Match.objects.get().table.scorer_token}/")
    second.get_by_role("button", name="Join as a scorer").click()
    second.goto(first.url)
    return second


def totals(page):
    return page.locator(".scoreboard .total").all_inner_texts()


def test_a_table_plays_the_worked_deal_and_more_to_the_end(phone, screenshot):
    create_table_and_match(phone)
    enter_deal(phone, 8, da="3")
    expect(phone.locator(".scoreboard .total").first).to_have_text("11")
    assert totals(phone) == ["11", "3"]
    assert phone.locator("#id_card_points_1").input_value() == ""  # fresh form for deal 2
    expect(phone.get_by_role("heading", name="Deal 2")).to_be_visible()
    phone.locator("#id_card_points_0").fill("7")
    assert phone.locator("#id_card_points_1").input_value() == "4"  # 11 minus what was typed
    phone.locator("#id_declared_points_0").fill("")
    four = "+4 four of a kind (Alice & Carla)"
    phone.get_by_role("button", name=four).click()
    phone.get_by_role("button", name="Save deal").click()
    expect(phone.locator(".scoreboard .total").first).to_have_text("22")
    screenshot(phone, "sheet-decided")
    phone.get_by_role("button", name="End match").click()
    expect(phone.locator(".result")).to_contain_text("Alice & Carla won the match")
    assert phone.locator("#deal-form").count() == 0
    screenshot(phone, "sheet-finished")
    assert Match.objects.get().winner == 0


def test_a_broken_rule_is_shown_inline_and_nothing_is_saved(phone):
    create_table_and_match(phone)
    phone.locator("#id_card_points_0").fill("8")
    phone.locator("#id_card_points_1").fill("4")
    phone.get_by_role("button", name="Save deal").click()
    expect(
        phone.get_by_text(re.compile("Card points, the last trick included, must add up to 11"))
    ).to_be_visible()
    phone.locator("#id_card_points_1").fill("3")
    phone.locator("#id_declared_points_0").fill("5")
    phone.get_by_role("button", name="Save deal").click()
    error = phone.locator("#id_declared_points_0_error")
    expect(error).to_contain_text("5 is not a declaration total")
    assert phone.locator("#id_declared_points_0").get_attribute("aria-describedby") == (
        "id_declared_points_0_error"
    )
    # The form sent back holds what was typed: the next poll keeps it, error and all, even
    # one that brings a change (as the first poll after the page opened does).
    assert "typing=1" in poll_drawn(phone)
    expect(error).to_contain_text("5 is not a declaration total")
    expect(phone.locator("#id_declared_points_0")).to_have_value("5")
    assert Deal.objects.count() == 0


def test_after_its_own_save_the_phone_is_told_the_sheet_is_unchanged(phone):
    """The save's answer drew the sheet afresh: the next poll names that sheet, and the server
    answers 304 rather than drawing it again."""
    create_table_and_match(phone)
    enter_deal(phone, 8)
    expect(phone.get_by_role("heading", name="Deal 2")).to_be_visible()
    with phone.expect_request(lambda request: "poll=1" in request.url) as polled:
        pass
    assert polled.value.response().status == 304


def test_two_phones_share_a_match(new_phone):
    first = new_phone()
    create_table_and_match(first)
    first.goto(first.url.split("/t/")[0] + "/" + "t/" + first.url.split("/t/")[1])
    table_url = first.locator("a.crumb").get_attribute("href")
    first.goto(table_url)
    scorer_link = first.locator("#scorer-url").input_value()
    sheet = first.locator("#matches a.row").first.get_attribute("href")

    second = new_phone()
    second.goto(scorer_link)
    second.get_by_label("This phone's name").fill("Dino's phone")
    second.get_by_role("button", name="Join as a scorer").click()
    second.goto(sheet)
    first.goto(sheet)

    enter_deal(first, 6)
    expect(second.locator("#deal-1")).to_be_visible()
    expect(second.get_by_role("heading", name="Deal 2")).to_be_visible()

    enter_deal(first, 5)
    expect(second.locator("#deal-2")).to_be_visible()

    # Both type deal 3 and save at once: one deal 3, and the slower phone is told.
    for page, points in ((first, "4"), (second, "3")):
        page.locator("#id_card_points_0").fill(points)
    first.get_by_role("button", name="Save deal").click()
    second.get_by_role("button", name="Save deal").click()
    expect(second.locator("#conflict, #deal-3").first).to_be_visible()
    expect(first.locator("#deal-3")).to_be_visible()
    assert Deal.objects.filter(number=3).count() == 1
    assert Deal.objects.count() == 3


def test_a_saved_notice_and_its_undo_go_once_another_phone_saved_the_next_deal(new_phone):
    first = new_phone()
    create_table_and_match(first)
    second = second_scorer(new_phone, first)
    enter_deal(first, 6)
    saved = first.locator("#saved")
    expect(saved.get_by_role("button", name="Undo")).to_be_visible()
    expect(second.get_by_role("heading", name="Deal 2")).to_be_visible()
    enter_deal(second, 5)
    # Deal 1 is no longer the last: its Undo could only be refused now, and the notice is
    # out of date.
    expect(first.locator("#deal-2")).to_be_visible()
    expect(saved).to_have_count(0)


def test_a_cappotto_from_behind_wins_the_match(phone):
    create_table_and_match(phone)
    enter_deal(phone, 1, db="7")  # Beppe & Dino 10 + 7 = 17
    expect(phone.locator("#deal-1")).to_be_visible()
    assert totals(phone) == ["1", "17"]
    enter_deal(phone, 11)  # every card point, as a deal played out: it is a sweep
    expect(phone.locator("#id_kind_error")).to_have_text(
        "Alice & Carla took every card point: that is a sweep, which wins the match. "
        "Pick Cappotto if Beppe & Dino took no trick, else Stramazzo."
    )
    enter_deal(phone, 11, kind="Cappotto", side="Alice & Carla")
    expect(phone.locator(".decided")).to_contain_text("Alice & Carla win the match with a cappotto")
    phone.get_by_role("button", name="End match").click()
    expect(phone.locator(".result")).to_contain_text("Alice & Carla won the match")
    assert totals(phone) == ["21", "17"]


def test_a_claim_or_a_sweep_takes_out_the_card_points_filled_in_for_the_other_side(phone):
    """11 minus the points typed is the other pile only in a deal played out."""
    create_table_and_match(phone, claims=True)
    mine, theirs = phone.locator("#id_card_points_0"), phone.locator("#id_card_points_1")
    mine.press_sequentially("12")  # "1" fills in 10; "12" is more than a deal holds: blank, not 10
    expect(theirs).to_have_value("")
    mine.fill("6")
    expect(theirs).to_have_value("5")
    phone.locator("#deal-form").get_by_label("Claim", exact=True).check()
    expect(theirs).to_have_value("")
    phone.locator("#deal-form").get_by_label("Normal", exact=True).check()
    expect(theirs).to_have_value("5")
    phone.locator("#deal-form").get_by_label("Stramazzo", exact=True).check()
    expect(theirs).to_have_value("")  # a sweep's blank side: filled in by the server
    phone.locator("#deal-form").get_by_label("Claim", exact=True).check()
    phone.locator("#deal-form .side-choice").get_by_text("Alice & Carla", exact=True).click()
    phone.locator("#id_declared_points_0").fill("15")  # 6 + 15 = 21: a right claim
    phone.get_by_role("button", name="Save deal").click()
    expect(phone.locator(".decided")).to_contain_text("Alice & Carla")
    deal = Deal.objects.get()
    assert (deal.kind, deal.card_points) == ("claim", (6, 0))


def test_an_open_history_lists_the_next_deal_as_soon_as_it_is_saved(new_phone):
    phone = new_phone()
    create_table_and_match(phone)
    enter_deal(phone, 8, da="3")
    expect(phone.locator("#deal-1")).to_be_visible()
    phone.get_by_text("History of changes").click()
    history = phone.locator("#history .history-body")
    expect(history).to_contain_text("Deal 1 recorded")
    enter_deal(phone, 6)  # saved here: answered with its changes only
    expect(phone.locator("#deal-2")).to_be_visible()
    expect(history).to_contain_text("Deal 2 recorded")
    # Another phone's deal, brought by a poll.
    match = Match.objects.get()
    services.record_deal(
        match_id=match.pk,
        number=3,
        entry=rules.DealEntry(card_points=(5, 6), declared_points=(0, 0)),
    )
    expect(history).to_contain_text("Deal 3 recorded")


def test_keep_screen_on_is_offered_only_while_the_match_is_played(phone):
    create_table_and_match(phone)
    assert phone.evaluate("'wakeLock' in navigator")  # else this test would prove nothing
    toggle = phone.get_by_label("Keep screen on")
    expect(toggle).to_be_visible()
    expect(toggle).to_be_checked()
    enter_deal(phone, 11, kind="Cappotto", side="Alice & Carla")
    phone.get_by_role("button", name="End match").click()
    expect(phone.locator(".result")).to_be_visible()
    expect(toggle).to_be_hidden()
    phone.reload()
    expect(phone.locator(".result")).to_be_visible()
    expect(toggle).to_be_hidden()
    assert phone.evaluate("localStorage.getItem('wake')") != "0"  # the phone's choice stands
    phone.get_by_role("button", name="Reopen").click()  # played on: kept on again
    expect(phone.locator(".result")).to_have_count(0)
    expect(toggle).to_be_visible()
    expect(toggle).to_be_checked()


def test_a_browser_that_cannot_keep_the_screen_on_is_not_offered_it(phone):
    phone.add_init_script("delete Navigator.prototype.wakeLock")
    create_table_and_match(phone)
    expect(phone.locator("#wake")).to_have_count(1)
    expect(phone.get_by_label("Keep screen on")).to_be_hidden()


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("Higher total wins; equal totals play another deal", "#tie"),
        ("Always play another deal", "#tie"),
    ],
)
def test_a_tie_at_the_line_asks_for_another_deal(phone, rule, expected):
    create_table_and_match(phone, tie_rule=rule, line="21")
    # 6-5, 5-6, 6-5, 5-6 → 22-22 after deal 4: both over the line, equal.
    for number, points in enumerate((6, 5, 6, 5), start=1):
        enter_deal(phone, points)
        expect(phone.locator(f"#deal-{number}")).to_be_visible()
    assert totals(phone) == ["22", "22"]
    expect(phone.locator(expected)).to_contain_text("play another deal")
    assert phone.get_by_role("button", name="End match").count() == 0
    enter_deal(phone, 7)  # 29-26: the higher total wins under both rules
    expect(phone.locator(".decided")).to_contain_text("Alice & Carla")


def test_a_two_player_match_and_nothing_overflows_at_360_px(new_phone, screenshot):
    page = new_phone(viewport={"width": 360, "height": 740})
    create_table_and_match(page, pair=False)
    enter_deal(page, 8, da="3")
    expect(page.locator("#deal-1")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "sheet-360")


def test_a_long_sheet_shows_its_last_deals_and_brings_the_first_on_a_tap(new_phone):
    page = new_phone(viewport={"width": 360, "height": 740})
    create_table_and_match(page, line="101")
    match = Match.objects.get()
    for number in range(1, 15):
        services.record_deal(
            match_id=match.pk, number=number, entry=rules.DealEntry((6, 5), (0, 0))
        )
    page.reload()
    scripts_ran(page)
    page.locator("#deal-14").scroll_into_view_if_needed()
    expect(page.locator("#deal-14")).to_be_visible()
    expect(page.locator("#deal-4")).to_have_count(0)  # not sent
    expect(page.locator("#deal-5")).to_be_visible()
    page.get_by_role("link", name="Show deals 1–4").click()
    expect(page.locator("#deal-1")).to_be_visible()
    assert page.url.endswith(f"/m/{match.pk}/")  # brought into the sheet: the same page
    expect(page.get_by_role("link", name="Hide deals 1–4")).to_be_focused()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    # Another phone edits deal 2: the poll draws the deals again, and they stay shown.
    deal = Deal.objects.get(match=match, number=2)
    services.edit_deal(deal=deal, version=deal.version, entry=rules.DealEntry((3, 8), (0, 0)))
    expect(page.locator("#deal-2 td.side-0 strong")).to_have_text("3")
    expect(page.locator("#deal-1")).to_be_visible()
    # And another saves deal 15: added under them.
    services.record_deal(match_id=match.pk, number=15, entry=rules.DealEntry((6, 5), (0, 0)))
    expect(page.locator("#deal-15")).to_be_visible()
    expect(page.locator("#deal-1")).to_be_visible()
    page.get_by_role("link", name="Hide deals 1–4").click()
    expect(page.locator("#deal-5")).to_have_count(0)
    expect(page.locator("#deal-15")).to_be_visible()
    page.get_by_role("link", name="Show deals 1–5").click()
    page.get_by_role("link", name="Edit deal 1", exact=True).click()  # an early deal's edit
    expect(page.get_by_role("heading", name="Edit deal 1")).to_be_visible()


def test_without_scripts_a_long_sheet_links_to_every_deal(browser, live_server):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False, **PHONE)
    page = context.new_page()
    match = MatchFactory(line=101)
    for number in range(1, 15):
        services.record_deal(
            match_id=match.pk, number=number, entry=rules.DealEntry((6, 5), (0, 0))
        )
    page.goto(f"/t/{match.table.viewer_token}/m/{match.pk}/")
    expect(page.locator("#deal-rows tr")).to_have_count(10)
    page.get_by_role("link", name="Show deals 1–4").click()
    expect(page.locator("#deal-rows tr")).to_have_count(14)
    assert page.url.endswith("?deals=all")
    page.get_by_role("link", name="Hide deals 1–4").click()
    expect(page.locator("#deal-rows tr")).to_have_count(10)
    context.close()


def test_long_names_hide_no_partner_and_no_table_name_at_320_px(new_phone):
    page = new_phone(viewport={"width": 320, "height": 640})
    long, table = "Maria Grazia Annunziata Esposito-Russo", "Circolo Ricreativo di San Bartolomeo"
    create_table_and_match(page, names=[long, "Bruno", "Gianfranco", "Salvatore"], table=table)
    lines = page.locator(".scoreboard .side-0 .side-name .clip")
    expect(lines).to_have_text([long, "& Bruno"])
    # Every name whole inside the card, the first on two lines rather than cut short.
    cut = [line.evaluate("e => e.scrollWidth > e.clientWidth") for line in lines.all()]
    assert cut == [False, False]
    assert lines.first.evaluate("e => e.getClientRects().length > 1 || e.offsetHeight > 30")
    card = page.locator(".scoreboard .side-0").bounding_box()
    for line in lines.all():
        box = line.bounding_box()
        assert box["height"] > 0 and box["x"] + box["width"] <= card["x"] + card["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    # The top bar keeps one row: the table's name wraps between its words, "Keep screen on"
    # is in its sun.
    expect(page.get_by_label("Keep screen on")).to_be_visible()
    boxes = [page.locator(part).bounding_box() for part in (".brand", ".crumb", ".wake")]
    middles = [box["y"] + box["height"] / 2 for box in boxes]
    assert max(middles) - min(middles) < 10, boxes
    # Each entry label on one line, no word cut ("Declaration/s").
    lines = page.locator(".side-entry .field > label").evaluate_all(
        """labels => labels.map(label => label.getBoundingClientRect().height
          / parseFloat(getComputedStyle(label).lineHeight))"""
    )
    assert len(lines) == 4 and max(lines) < 1.5, lines
    # The table's own page names it whole, on as many lines as it takes.
    page.locator(".crumb").click()
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_have_text(table)
    assert heading.evaluate("e => e.scrollWidth <= e.clientWidth")


def test_a_fraction_typed_reaches_the_app_and_is_explained_in_its_words(phone):
    """No `pattern` on the fields: Chromium would refuse "7⅓" with its own bubble."""
    create_table_and_match(phone)
    phone.locator("#id_card_points_0").fill("7⅓")
    phone.locator("#id_card_points_1").fill("3⅔")
    phone.get_by_role("button", name="Save deal").click()
    expect(phone.locator("#id_card_points_0_error")).to_have_text(
        "Card points must be a whole number: each side drops its own fraction, so 7⅓ is 7."
    )
    assert not Deal.objects.exists()


def test_after_a_save_focus_goes_to_the_error_or_the_saved_message(phone):
    create_table_and_match(phone)
    phone.locator("#id_card_points_0").fill("8")
    phone.locator("#id_card_points_1").fill("4")
    phone.locator("#id_card_points_1").press("Enter")  # Enter saves the deal
    expect(phone.locator("#deal-errors")).to_be_focused()
    expect(phone.locator("#deal-errors")).to_contain_text(
        "Card points, the last trick included, must add up to 11"
    )
    phone.locator("#id_card_points_1").fill("3")
    phone.locator("#id_card_points_1").press("Enter")
    expect(phone.locator("#saved")).to_be_focused()


def open_new_match(page):
    page.goto("/")
    page.get_by_label("Table name").fill("Bar Sport")
    page.get_by_role("button", name="Create table").click()
    page.get_by_role("link", name="New match").click()
    scripts_ran(page)


def three_seats_typed(page):
    """A new match with three seats named, the last of them chosen to deal first."""
    open_new_match(page)
    for seat, name in enumerate(["Pasquale", "Zoë", "Anna"]):
        page.locator(f"#id_player_{seat}").fill(name)
    page.get_by_label("Anna", exact=True).check()


def test_the_new_match_form_names_the_seats_and_hides_partners_for_two_players(phone):
    open_new_match(phone)
    phone.locator("#id_player_1").fill("Beppe")
    expect(phone.locator('[data-seat="1"]')).to_have_text("Beppe")
    expect(phone.get_by_text("The two players deal in turn.")).to_be_hidden()
    phone.get_by_label("Two players (Tressette in due)").check()
    expect(phone.locator("#id_player_2")).to_be_hidden()
    expect(phone.locator(".seat-3")).to_be_hidden()
    expect(phone.get_by_text("partners opposite", exact=False)).to_be_hidden()
    expect(phone.get_by_text("The two players deal in turn.")).to_be_visible()
    # Each side is one player: no "first player" of a side without a second.
    expect(phone.get_by_role("combobox", name="Player", exact=True)).to_have_count(2)
    phone.get_by_label("Four players, two a side").check()
    expect(phone.get_by_role("combobox", name="First player", exact=True)).to_have_count(2)


def test_the_seats_keep_their_names_when_the_form_comes_back_with_an_error(phone):
    three_seats_typed(phone)
    phone.get_by_role("button", name="Start match").click()  # the fourth player is missing
    expect(phone.get_by_text("Type a name or pick a player.")).to_be_visible()
    seats = phone.locator("[data-seat]")
    expect(seats).to_have_text(["Pasquale", "Zoë", "Anna", "Side 2, second player"])
    expect(phone.get_by_label("Anna", exact=True)).to_be_checked()


def change_language(page, language):
    page.locator("#language").select_option(language)
    page.locator("form.language button").click()
    scripts_ran(page)


def draft_kept(page):
    page.wait_for_function("() => Object.keys(sessionStorage).some(k => k.startsWith('draft:'))")


def test_what_was_typed_comes_back_after_a_change_of_language(phone):
    create_table_and_match(phone)
    enter_deal(phone, 8, da="3")
    expect(phone.get_by_role("heading", name="Deal 2")).to_be_visible()
    phone.locator("#id_declared_points_1").fill("3")
    phone.locator("#id_card_points_0").fill("6")  # the other side's 5 is filled in
    phone.locator("#id_card_points_0").fill("7")  # and then 4: kept as the phone shows it
    draft_kept(phone)
    phone.reload()
    expect(phone.locator("#id_card_points_1")).to_have_value("4")
    change_language(phone, "it")
    expect(phone.get_by_role("heading", name="Smazzata 2")).to_be_visible()
    expect(phone.locator("#id_card_points_0")).to_have_value("7")
    expect(phone.locator("#id_card_points_1")).to_have_value("4")
    expect(phone.locator("#id_declared_points_1")).to_have_value("3")
    # Typed in: the polls leave it alone.
    with phone.expect_request(lambda request: "poll=1" in request.url) as poll:
        pass
    assert "typing=1" in poll.value.url
    phone.get_by_role("button", name="Salva smazzata").click()
    expect(phone.get_by_role("heading", name="Smazzata 3")).to_be_visible()
    assert Deal.objects.get(number=2).points == (7, 7)
    # Sent, it is forgotten: no draft is kept, and deal 3's form stays blank drawn again.
    drafts = "Object.keys(sessionStorage).filter(key => key.startsWith('draft:'))"
    assert phone.evaluate(drafts) == []
    change_language(phone, "en")
    expect(phone.get_by_role("heading", name="Deal 3")).to_be_visible()
    expect(phone.locator("#id_card_points_0")).to_have_value("")
    expect(phone.locator("#id_declared_points_1")).to_have_value("")


def test_undo_gives_back_the_deal_it_takes_back_not_what_was_typed_for_the_next(phone):
    create_table_and_match(phone)
    enter_deal(phone, 8, da="3")
    expect(phone.get_by_role("heading", name="Deal 2")).to_be_visible()
    phone.locator("#id_card_points_0").fill("7")
    draft_kept(phone)
    phone.get_by_role("button", name="Undo").click()  # deal 1 taken back, into the form
    expect(phone.get_by_role("heading", name="Deal 1")).to_be_visible()
    expect(phone.locator("#id_card_points_0")).to_have_value("8")  # deal 1's, not the 7
    expect(phone.locator("#id_declared_points_0")).to_have_value("3")
    phone.reload()  # what the form holds now is the draft
    expect(phone.locator("#id_card_points_0")).to_have_value("8")
    phone.locator("#id_card_points_0").fill("6")  # corrected
    phone.get_by_role("button", name="Save deal").click()
    expect(phone.get_by_role("heading", name="Deal 2")).to_be_visible()
    assert Deal.objects.get().card_points[0] == 6
    phone.reload()
    expect(phone.locator("#id_card_points_0")).to_have_value("")


def test_what_was_typed_stays_through_a_change_of_the_match_settings(phone):
    create_table_and_match(phone, claims=True)
    phone.locator("#deal-form").get_by_label("Claim", exact=True).check()
    phone.locator("#id_card_points_0").fill("7")
    phone.locator("#id_card_points_1").fill("4")
    phone.locator("#id_declared_points_1").fill("3")
    draft_kept(phone)
    phone.get_by_role("link", name="Match settings").click()
    phone.get_by_label("Line", exact=True).fill("abc")
    phone.get_by_role("button", name="Save settings").click()  # refused: the page again
    line = phone.get_by_label("Line", exact=True)
    expect(line).to_be_focused()  # beside what is wrong, as typed
    expect(line).to_have_value("abc")
    line.fill("31")
    phone.get_by_label("Claims allowed", exact=False).uncheck()
    phone.get_by_role("button", name="Save settings").click()
    expect(phone.locator("#settings-saved")).to_be_visible()  # back on the sheet
    expect(phone.locator("#id_card_points_0")).to_have_value("7")
    expect(phone.locator("#id_card_points_1")).to_have_value("4")
    expect(phone.locator("#id_declared_points_1")).to_have_value("3")
    # A claim is no longer offered: the kind is as drawn, a normal deal.
    expect(phone.locator("#deal-form").get_by_label("Normal", exact=True)).to_be_checked()
    phone.get_by_role("button", name="Save deal").click()
    expect(phone.get_by_role("heading", name="Deal 2")).to_be_visible()
    assert Deal.objects.get().points == (7, 7)
    assert Match.objects.get().line == 31


def test_a_count_of_the_pile_comes_back_in_sight(phone):
    create_table_and_match(phone)
    phone.get_by_text("Count the pile").click()
    phone.get_by_label("Aces").fill("2")
    draft_kept(phone)
    phone.reload()
    expect(phone.get_by_label("Aces")).to_be_visible()
    expect(phone.get_by_label("Aces")).to_have_value("2")


def test_a_draft_of_another_deal_is_not_put_into_this_one(new_phone):
    first = new_phone()
    create_table_and_match(first)
    first.locator("#id_card_points_0").fill("6")
    draft_kept(first)
    match = Match.objects.get()
    entry = rules.DealEntry(card_points=(8, 3), declared_points=(0, 0))
    services.record_deal(match_id=match.pk, number=1, entry=entry)
    first.reload()  # another phone saved deal 1: this form is now deal 2's
    expect(first.get_by_role("heading", name="Deal 2")).to_be_visible()
    expect(first.locator("#id_card_points_0")).to_have_value("")


def test_points_refused_by_a_conflict_are_said_and_never_offered_for_the_next_deal(phone):
    create_table_and_match(phone)
    phone.locator("#id_card_points_0").fill("6")
    phone.locator("#id_declared_points_0").fill("3")
    draft_kept(phone)
    entry = rules.DealEntry(card_points=(8, 3), declared_points=(0, 0))
    services.record_deal(match_id=Match.objects.get().pk, number=1, entry=entry)  # another phone
    phone.get_by_role("button", name="Save deal").click()
    conflict = phone.locator("#conflict")
    expect(conflict).to_contain_text("Deal 1 was just entered on another phone")
    yours = "Yours were not saved: Alice & Carla 6 + 3, Beppe & Dino 5 + 0"
    expect(conflict).to_contain_text(yours)
    # Deal 2's form is blank: one more tap of Save would have entered that hand twice.
    expect(phone.get_by_role("heading", name="Deal 2")).to_be_visible()
    expect(phone.locator("#id_card_points_0")).to_have_value("")
    # The notice leads to the deal that was saved, with these points filled in, to put them
    # there if they are the right ones.
    conflict.get_by_role("link", name="Edit deal 1").click()
    scripts_ran(phone)
    expect(phone.locator("#id_card_points_0")).to_have_value("6")
    expect(phone.locator("#id_declared_points_0")).to_have_value("3")
    phone.get_by_role("link", name="Back to the sheet").click()
    phone.reload()  # neither a link nor a reload brings them back
    expect(phone.get_by_role("heading", name="Deal 2")).to_be_visible()
    expect(phone.locator("#id_card_points_0")).to_have_value("")
    expect(phone.locator("#id_declared_points_0")).to_have_value("")
    assert Deal.objects.count() == 1


def test_an_edit_left_by_a_link_is_not_offered_again_but_a_reload_keeps_it(phone):
    create_table_and_match(phone)
    enter_deal(phone, 8, da="3")
    phone.get_by_role("link", name="Edit deal 1").click()
    scripts_ran(phone)  # app.js keeps what is typed
    phone.locator("#id_card_points_0").fill("6")
    draft_kept(phone)
    phone.reload()
    expect(phone.locator("#id_card_points_0")).to_have_value("6")
    phone.get_by_role("link", name="Back to the sheet").click()
    phone.get_by_role("link", name="Edit deal 1").click()
    scripts_ran(phone)  # a draft would be put back by now
    expect(phone.locator("#id_card_points_0")).to_have_value("8")  # as stored, not as left
    expect(phone.locator("#id_card_points_1")).to_have_value("3")


def test_an_edit_is_not_put_into_another_deal_nor_into_a_closed_match(phone):
    create_table_and_match(phone)
    enter_deal(phone, 8, da="3")
    phone.get_by_role("link", name="Edit deal 1").click()
    scripts_ran(phone)  # app.js keeps what is typed
    phone.locator("#id_card_points_0").fill("6")
    draft_kept(phone)
    # Another phone deleted deal 1 and entered another deal 1 (its version may be the same).
    match = Match.objects.get()
    services.delete_last_deal(match=match, number=1)
    entry = rules.DealEntry(card_points=(2, 9), declared_points=(0, 0))
    services.record_deal(match_id=match.pk, number=1, entry=entry)
    phone.reload()
    expect(phone.locator("#id_card_points_0")).to_have_value("2")
    phone.locator("#id_card_points_0").fill("6")
    draft_kept(phone)
    services.stop_match(match=Match.objects.get())  # on another phone
    phone.reload()  # the deal is shown as stored: nothing typed here could be saved
    expect(phone.locator("fieldset[disabled]")).to_be_visible()
    expect(phone.locator("#id_card_points_0")).to_have_value("2")


def test_the_new_match_form_keeps_its_names_through_a_change_of_language(phone):
    three_seats_typed(phone)
    change_language(phone, "it")
    expect(phone.get_by_role("heading", name="Nuova partita")).to_be_visible()
    for seat, name in enumerate(["Pasquale", "Zoë", "Anna", ""]):
        expect(phone.locator(f"#id_player_{seat}")).to_have_value(name)
    expect(phone.locator('[data-seat="2"]')).to_have_text("Anna")
    expect(phone.get_by_label("Anna", exact=True)).to_be_checked()


def test_enter_in_the_count_counts_and_saves_nothing(new_phone):
    """A phone keypad's Go key in the count's last field: it must count, not save."""
    phone = new_phone(viewport={"width": 360, "height": 740})
    create_table_and_match(phone)
    enter_deal(phone, 8, da="3")  # mid-evening: the sheet above the form has grown
    expect(phone.get_by_role("heading", name="Deal 2")).to_be_visible()
    phone.get_by_text("Count the pile").click()
    phone.get_by_label("Aces", exact=True).fill("2")
    phone.get_by_label("Figures", exact=True).fill("9")
    phone.get_by_label("Figures", exact=True).press("Enter")
    expect(phone.locator("#id_card_points_0")).to_have_value("5")  # 2 + 9/3, no last trick
    expect(phone.locator("#id_card_points_1")).to_have_value("6")
    assert Deal.objects.count() == 1
    # Said, where focus goes (a screen reader heard nothing when focus fell to the page).
    expect(phone.locator("#counted")).to_be_focused()
    expect(phone.locator("#counted")).to_have_text(
        "Card points filled in from the count: check them, then save the deal."
    )
    expect(phone.locator("#id_card_points_0")).to_be_in_viewport()  # what it filled in


def test_save_tapped_after_counting_the_pile_saves_the_count(new_phone):
    """Counted, then Save tapped without Fill in card points: the count is the deal's."""
    phone = new_phone(viewport={"width": 360, "height": 740})
    create_table_and_match(phone)
    phone.get_by_text("Count the pile").click()
    phone.get_by_label("Aces", exact=True).fill("2")
    phone.get_by_label("Figures", exact=True).fill("9")
    phone.get_by_role("button", name="Save deal").click()
    expect(phone.get_by_role("heading", name="Deal 2")).to_be_visible()
    assert Deal.objects.get().card_points == (5, 6)  # 2 + 9/3, no last trick; the rest


def test_a_sweep_brings_its_side_into_sight_above_the_sticky_save(new_phone):
    phone = new_phone(viewport={"width": 360, "height": 740})
    create_table_and_match(phone)
    cappotto = phone.locator("#deal-form .kind label.chip", has=phone.locator("[value=cappotto]"))
    # Scrolled as a thumb leaves it: the chip just above the Save that sticks to the foot.
    cappotto.evaluate("chip => scrollBy(0, chip.getBoundingClientRect().bottom - innerHeight + 90)")
    cappotto.evaluate("chip => chip.click()")  # a tap, where the page stands (check() scrolls)
    last_side = phone.locator(".side-choice .chip").last
    expect(last_side).to_be_in_viewport()
    save = phone.get_by_role("button", name="Save deal")
    assert (
        last_side.bounding_box()["y"] + last_side.bounding_box()["height"]
        <= (save.bounding_box()["y"])
    )


def test_a_poll_answer_never_wipes_what_the_phone_is_typing(phone):
    create_table_and_match(phone)
    phone.locator("#id_card_points_0").fill("7")
    # A poll sent before typing began answers with a fresh entry form, out of band.
    phone.evaluate(
        "htmx.ajax('GET', location.pathname + '?poll=1&typing=0', {source: '#live', swap: 'none'})"
    )
    # evaluate returns once htmx.ajax's promise has: the answer drawn
    assert phone.locator("#id_card_points_0").input_value() == "7"
    assert phone.locator("#id_card_points_1").input_value() == "4"


def test_a_save_answered_with_its_parts_leaves_the_sheet_whole(phone, screenshot):
    create_table_and_match(phone)
    enter_deal(phone, 6)  # the first deal draws the deals table
    expect(phone.get_by_role("heading", name="Deal 2")).to_be_visible()
    phone.locator("#id_card_points_0").fill("8")
    phone.locator("#id_declared_points_1").fill("3")
    phone.get_by_role("button", name="Save deal").click()
    expect(phone.locator("#saved")).to_be_focused()
    assert phone.locator("#saved").inner_text().startswith("Deal 2 saved.")
    # The new row is in the table, after the first, with the running totals.
    assert phone.locator("#deal-rows tr").evaluate_all("rows => rows.map(r => r.id)") == [
        "deal-1",
        "deal-2",
    ]
    expect(phone.locator("#deal-2 .run")).to_have_text("14\u201311")
    assert totals(phone) == ["14", "11"]
    expect(phone.locator("#live .next-dealer")).to_contain_text("Deal 3")
    start, moves = phone.locator("#chart .trace-0").get_attribute("d").split("l")
    assert start.startswith("M") and len(moves.replace("-", " -").split()) == 4  # two deals
    # A fresh form for deal 3: nothing typed is left, the sheet's revision is the new one.
    expect(phone.get_by_role("heading", name="Deal 3")).to_be_visible()
    assert phone.locator("#id_card_points_0").input_value() == ""
    assert phone.locator("#id_declared_points_1").input_value() == ""
    assert phone.locator("#typing").input_value() == "0"
    # Its draft is deal 3's; the deals above it and Delete are deal 2's.
    expect(phone.locator("#deal-form")).to_have_attribute("data-draft", "3")
    assert phone.locator("#deal-form input[name=kind][value=normal]").is_checked()
    running = phone.locator("#deal-rows td.run").all_inner_texts()
    assert running == ["6–5", "14–11"]
    expect(phone.locator("#delete-last")).to_have_text("Delete deal 2")
    screenshot(phone, "sheet-after-save")
    # The next poll draws the same sheet: nothing doubled, nothing lost.
    phone.evaluate(
        "htmx.ajax('GET', location.pathname + '?poll=1&typing=0', {source: '#live', swap: 'none'})"
    )
    assert phone.locator("#deal-rows tr").count() == 2
    assert totals(phone) == ["14", "11"]
    # Undo, from the notice, takes the deal back off.
    phone.locator("#saved").get_by_role("button", name="Undo").click()
    expect(phone.locator("#deal-2")).to_have_count(0)
    assert Deal.objects.count() == 1


def test_a_save_that_cannot_reach_the_server_is_kept_on_the_phone_and_sent_once(phone):
    create_table_and_match(phone)
    phone.route(re.compile(r".*/deals$"), lambda route: route.abort("internetdisconnected"))
    enter_deal(phone, 8, da="3")
    notice = phone.locator("#offline-notice")
    expect(notice).to_have_text(
        "Deal 1 kept on this phone: it is sent once the phone is back online."
    )
    expect(notice).to_be_focused()
    expect(phone.locator("#deal-rows tr.pending")).to_contain_text("waiting to be sent")
    expect(phone.get_by_role("heading", name="Deal 2")).to_be_visible()  # the next one
    assert phone.locator("#request-failed-notice").count() == 0
    assert not Deal.objects.exists()
    # The polls that get through meanwhile do not take the kept deal away.
    with phone.expect_response(re.compile(r".*\?poll=1.*")):
        pass
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(1)
    # Back online: sent with the key of the first try, saved once, and the mark goes.
    phone.unroute(re.compile(r".*/deals$"))
    phone.context.set_offline(True)
    phone.context.set_offline(False)
    expect(phone.locator("#deal-1")).to_be_visible()
    expect(phone.locator("#deal-rows tr.pending")).to_have_count(0)
    assert Deal.objects.count() == 1


def test_a_phone_whose_scorer_link_changed_is_told_why_its_save_is_refused(phone):
    from matches import services
    from matches.models import Table

    create_table_and_match(phone)
    polls = re.compile(r".*\?poll=1.*")
    phone.route(polls, lambda route: route.abort("internetdisconnected"))  # none gets there first
    services.rotate_link(table=Table.objects.get(), which="scorer")
    enter_deal(phone, 8, da="3")
    notice = phone.locator("#request-failed-notice")
    expect(notice).to_contain_text("This phone can no longer change this table")
    assert phone.locator("#id_card_points_0").input_value() == "8"
    assert not Deal.objects.exists()
    # The next poll shows the sheet as a viewer's, typing or not, and says why the form went.
    phone.unroute(polls)
    expect(phone.get_by_text("this phone can only watch now")).to_be_visible()
    expect(phone.locator("#deal-form")).to_have_count(0)


def test_a_poll_without_connection_says_the_sheet_may_be_stale_until_it_is_back(phone):
    create_table_and_match(phone)
    phone.route(re.compile(r".*\?poll=1.*"), lambda route: route.abort("internetdisconnected"))
    notice = phone.locator("#request-failed-notice")
    expect(notice).to_contain_text("it may be out of date")
    assert notice.get_attribute("role") == "status"
    phone.unroute(re.compile(r".*\?poll=1.*"))
    expect(notice).to_have_count(0)


def test_after_a_change_the_polls_are_told_unchanged_again(phone):
    from matches import rules, services

    create_table_and_match(phone)
    statuses = []
    phone.on("response", lambda r: statuses.append(r.status) if "poll=1" in r.url else None)
    services.record_deal(
        match_id=Match.objects.get().pk, number=1, entry=rules.DealEntry((8, 3), (3, 0))
    )
    expect(phone.locator(".scoreboard .total").first).to_have_text("11")
    for _ in range(2):  # two more polls
        with phone.expect_response(lambda r: "poll=1" in r.url):
            pass
    # One answer carries the change; the polls after it cost a 304, not the sheet again.
    assert statuses[-1] == 304, statuses


def test_another_phones_deal_is_said_in_a_live_region_that_stays(phone):
    """Screen readers read out changes within a live region, not a region put in anew: the
    poll replaces the scoreboard, and the totals are said in one that stays."""
    from matches import rules, services

    create_table_and_match(phone)
    phone.evaluate("document.getElementById('announce').dataset.kept = 'yes'")
    services.record_deal(
        match_id=Match.objects.get().pk, number=1, entry=rules.DealEntry((8, 3), (3, 0))
    )
    expect(phone.locator(".scoreboard .total").first).to_have_text("11")
    region = phone.locator("#announce[aria-live=polite]")
    # Who entered the deal first (the line beside the deal marked as new), then the totals.
    said = "Deal 1 · entered on another phone. Alice & Carla 11, Beppe & Dino 3."
    expect(region).to_have_text(said)
    expect(region).to_have_attribute("data-kept", "yes")
    assert phone.locator("#live [aria-live]").count() == 0


def test_another_phones_deal_is_added_to_the_sheet_and_the_form_moves_on_unless_typed_in(
    new_phone,
):
    first = new_phone()
    create_table_and_match(first, line="31")  # deal 4 does not decide it
    second = second_scorer(new_phone, first)
    enter_deal(first, 6)
    expect(second.get_by_role("heading", name="Deal 2")).to_be_visible()
    # Deal 2 is the only change the second phone has not seen: its poll adds that row.
    enter_deal(first, 8, db="3")
    expect(second.get_by_role("heading", name="Deal 3")).to_be_visible()
    assert second.locator("#deal-rows tr").evaluate_all("rows => rows.map(r => r.id)") == [
        "deal-1",
        "deal-2",
    ]
    expect(second.locator("#deal-2 .run")).to_have_text("14\u201311")
    assert totals(second) == ["14", "11"]
    assert second.locator("#deal-rows td.run").all_inner_texts() == ["6–5", "14–11"]
    expect(second.locator("#delete-last")).to_have_text("Delete deal 2")
    expect(second.locator("#deal-form")).to_have_attribute("data-draft", "3")
    # It goes on from there: its own deal 3 is saved as deal 3.
    enter_deal(second, 4)
    expect(second.locator("#saved")).to_contain_text("Deal 3 saved.")
    expect(first.locator("#deal-3")).to_be_visible()
    # A poll sent before the second phone began typing deal 4, answered once the first
    # phone saved deal 4: the row is added, but what is typed stays deal 4's, as it was told.
    expect(second.get_by_role("heading", name="Deal 4")).to_be_visible()
    shown = second.locator("input[name=shown]").input_value()
    second.locator("#id_card_points_0").fill("7")
    # Its own polls are held meanwhile (cancelled before they are sent): the one poll to
    # bring deal 4 is the one below, as the poll that was on its way would.
    second.evaluate(
        """() => document.addEventListener("htmx:beforeRequest", event => {
            if (event.detail.elt.id === "live" && !window.sentBefore) event.preventDefault();
        })"""
    )
    enter_deal(first, 5)
    expect(first.locator("#saved")).to_contain_text("Deal 4 saved.")
    second.evaluate(
        """shown => {
            const typing = document.getElementById("typing");
            typing.value = "0";  // as it was when the poll was sent
            window.sentBefore = true;
            const answered = htmx.ajax("GET", location.pathname + "?poll=1&shown=" + shown,
                                       {source: "#live", swap: "none"});
            typing.value = "1";
            return answered;  // evaluate returns once the answer is drawn
        }""",
        shown,
    )
    expect(second.locator("#deal-4")).to_be_visible()
    assert second.locator("#id_card_points_0").input_value() == "7"
    assert second.locator("#id_card_points_1").input_value() == "4"
    expect(second.get_by_role("heading", name="Deal 4")).to_be_visible()
    assert Deal.objects.count() == 4


def test_the_sheet_polls_with_nothing_said_in_the_console(phone):
    errors = []
    phone.on("console", lambda said: errors.append(said.text) if said.type == "error" else None)
    create_table_and_match(phone)
    poll_drawn(phone)
    enter_deal(phone, 6)
    expect(phone.get_by_role("heading", name="Deal 2")).to_be_visible()
    poll_drawn(phone)
    services.stop_match(match=Match.objects.get())  # on another phone: no entry form now
    phone.reload()
    poll_drawn(phone)
    assert errors == []
