import pytest

from tests.factories import DealFactory

pytestmark = pytest.mark.django_db


def test_the_admin_shows_tables_matches_and_deals_but_cannot_change_them(admin_client):
    deal = DealFactory()
    for name in ("table", "match", "deal"):
        assert admin_client.get(f"/admin/matches/{name}/").status_code == 200
    page = admin_client.get(f"/admin/matches/match/{deal.match.pk}/change/")
    assert page.status_code == 200
    assert b'name="_save"' not in page.content
    assert admin_client.get("/admin/matches/deal/add/").status_code == 403


def test_the_admin_lets_no_filter_guess_at_a_tables_links(admin_client):
    table = DealFactory().match.table
    for field in ("scorer_token", "viewer_token"):
        guess = f"/admin/matches/table/?{field}__startswith={getattr(table, field)[:3]}"
        assert admin_client.get(guess).status_code == 400
    assert admin_client.get(f"/admin/matches/table/?name={table.name}").status_code == 200


def test_password_tries_at_the_admin_are_limited_per_address(client, django_user_model, settings):
    settings.ADMIN_LOGINS_PER_WINDOW = 3
    django_user_model.objects.create_superuser("boss", password="a long and right password")
    tries = [
        client.post(
            "/admin/login/",
            {"username": "boss", "password": f"guess {n}"},
            HTTP_ACCEPT_LANGUAGE="en",
        )
        for n in range(4)
    ]
    assert [answer.status_code for answer in tries] == [200, 200, 200, 429]
    assert tries[-1]["Retry-After"] == "900"
    assert "try again in 15 minutes" in tries[-1].content.decode()
    right = {"username": "boss", "password": "a long and right password"}
    assert client.post("/admin/login/", right).status_code == 429  # not even the right one
    assert client.get("/admin/login/").status_code == 200  # the page itself still opens


def test_the_admin_says_a_match_s_game_and_a_deal_s_bid(admin_client):
    from matches import rules, services

    table = services.create_table(name="Bar Sport")
    match = services.start_match(
        table=table, players=[["Anna"], ["Bruno"], ["Carla"]], settings=rules.TerziglioTerms()
    )
    entry = rules.TerziglioEntry(1, rules.Bid.SOLO, 5)
    services.record_deal(match_id=match.pk, number=1, entry=entry)
    listed = admin_client.get("/admin/matches/match/?game=terziglio").content.decode()
    assert "Terziglio" in listed and f"/admin/matches/match/{match.pk}/" in listed
    shown = admin_client.get(f"/admin/matches/match/{match.pk}/change/").content.decode()
    assert "solo" in shown
    assert "solo" in admin_client.get("/admin/matches/deal/").content.decode()
