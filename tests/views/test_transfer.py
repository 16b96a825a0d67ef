"""Moving a table's history out and in (matches/views/transfer.py): the CSV and JSON exports,
and the import of a JSON export as a new table."""

import json
from datetime import UTC, datetime

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import dateformat, timezone

from matches import rules, services
from matches.models import Deal, Table
from tests.html import csrf_token, errors_of, one, parsed

pytestmark = pytest.mark.django_db
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def download(response) -> bytes:
    assert response.status_code == 200
    assert response.streaming
    return b"".join(response.streaming_content)


def test_a_view_only_visitor_downloads_the_history_as_csv_and_json(client, match, worked):
    token = match.table.viewer_token
    csv_response = client.get(reverse("export_table", args=[token, "csv"]), **EN)
    assert 'attachment; filename="tressette-' in csv_response["Content-Disposition"]
    body = download(csv_response).decode("utf-8")
    assert body.startswith("\ufeff")  # spreadsheets read it as UTF-8
    assert len(body.strip().splitlines()) == 2  # header and the worked deal
    document = json.loads(download(client.get(reverse("export_table", args=[token, "json"]))))
    assert document["matches"][0]["deals"][0]["points"] == [11, 3]
    one = download(client.get(reverse("export_match", args=[token, match.pk])))
    assert one.decode("utf-8").count("\n") == 2


def test_a_table_unchanged_is_drawn_once_and_its_file_sent_again(
    client, match, worked, django_assert_max_num_queries, settings
):
    url = reverse("export_table", args=[match.table.viewer_token, "csv"])
    first = download(client.get(url, **EN))
    with django_assert_max_num_queries(2):  # the table's version: the file is sent
        again = client.get(url, **EN)
    assert b"".join(again.streaming_content) == first
    assert [path.name.endswith(".csv") for path in settings.EXPORTS_DIR.iterdir()] == [True]
    download(client.get(reverse("export_table", args=[match.table.viewer_token, "json"])))

    def kept():
        return sorted(path.suffix for path in settings.EXPORTS_DIR.iterdir())

    assert kept() == [".csv", ".json"]  # the same version in both formats: both kept
    services.record_deal(match_id=match.pk, number=2, entry=rules.DealEntry((6, 5), (0, 0)))
    changed = download(client.get(url, **EN)).decode()
    assert len(changed.strip().splitlines()) == 3  # drawn again, the new deal in it
    assert kept() == [".csv"]  # the earlier version's files gone


def test_whole_table_downloads_drawn_are_limited_per_address(client, match, worked, settings):
    settings.EXPORTS_PER_HOUR = 1
    token = match.table.viewer_token
    assert download(client.get(reverse("export_table", args=[token, "csv"]), **EN))
    refused = client.get(reverse("export_table", args=[token, "json"]), **EN)
    assert refused.status_code == 429
    assert refused["Retry-After"] == "3600"
    assert "Too many downloads of whole tables from this address" in refused.content.decode()
    assert download(client.get(reverse("export_table", args=[token, "csv"]), **EN))  # kept
    other = client.get(reverse("export_table", args=[token, "json"]), REMOTE_ADDR="10.1.2.3")
    assert download(other)


def test_a_stranger_cannot_download(client, match):
    assert client.get("/t/nope/export.json").status_code == 404
    assert client.get(f"/t/{match.table.viewer_token}/export.exe").status_code == 404


def test_an_export_imports_as_a_new_table_joined_by_this_phone(client, match, worked):
    exported = download(
        client.get(reverse("export_table", args=[match.table.viewer_token, "json"]))
    )
    upload = SimpleUploadedFile("table.json", exported, content_type="application/json")
    client.post(reverse("join", args=[match.table.scorer_token]))  # this phone has both
    response = client.post(reverse("import_table"), {"file": upload}, **EN)
    assert response.status_code == 302
    table = Table.objects.exclude(pk=match.table.pk).get()
    assert response["Location"] == reverse("table", args=[table.viewer_token]) + "?imported=1"
    assert Deal.objects.filter(match__table=table).count() == 1
    html = client.get(response["Location"], **EN).content.decode()
    assert "New match" in html
    # Said once, so that nobody takes the copy for the table it came from.
    assert "Imported: this is a new table, with links of its own." in html
    assert 'data-once="imported"' in html
    # At home the two are told apart by the day each was created (the copy: today), the
    # original first.
    Table.objects.filter(pk=match.table.pk).update(created_at=datetime(2025, 3, 9, 12, tzinfo=UTC))
    home = client.get("/", **EN).content.decode()
    copy = dateformat.format(timezone.localtime(table.created_at), "N j, Y, H:i")
    assert home.index("created March 9, 2025, 13:00") < home.index(f"created {copy}")


def test_a_bad_import_says_what_is_wrong_and_stores_nothing(client, match, worked):
    exported = json.loads(
        download(client.get(reverse("export_table", args=[match.table.viewer_token, "json"])))
    )
    exported["matches"][0]["deals"][0]["card_points"] = [8, 4]
    upload = SimpleUploadedFile("table.json", json.dumps(exported).encode())
    page = parsed(client.post(reverse("import_table"), {"file": upload}, **EN))
    assert errors_of(page, "id_file") == [
        "Match 1, deal 1: Card points, the last trick included, must add up to 11: "
        "Alice & Carla 8 + Beppe & Dino 4 = 12."
    ]
    assert one(page, "details").has_attr("open")  # the import's part, opened on its error
    assert Table.objects.count() == 1
    junk = SimpleUploadedFile("junk.json", b"\x00not json")
    page = parsed(client.post(reverse("import_table"), {"file": junk}, **EN))
    assert errors_of(page, "id_file") == [
        "This file cannot be read as an export: it is damaged, or not one (at line 1, column 1). "
        "Choose the .json file of an export, unchanged."
    ]
    empty = SimpleUploadedFile("empty.json", b"")
    page = parsed(client.post(reverse("import_table"), {"file": empty}, **EN))
    assert errors_of(page, "id_file") == ["The file is empty: choose the .json file of an export."]
    assert Table.objects.count() == 1


def test_an_upload_larger_than_any_import_is_refused_before_it_is_read(monkeypatch):
    from django.http.multipartparser import MultiPartParser
    from django.test import Client

    from matches import forms

    parsed = []
    monkeypatch.setattr(forms, "IMPORT_MAX_BYTES", 1000)
    monkeypatch.setattr(MultiPartParser, "parse", lambda parser: parsed.append(1))
    phone = Client(enforce_csrf_checks=True)  # as a browser: the CSRF check reads the body
    upload = SimpleUploadedFile("big.json", b" " * 200_000)
    response = phone.post(reverse("import_table"), {"file": upload}, **EN)
    assert response.status_code == 413
    assert "The file is too large: at most 20 MB." in response.content.decode()
    assert not parsed  # refused by its length: nothing read the body
    assert not Table.objects.exists()


def test_an_import_still_needs_its_csrf_token(match, worked):
    from django.test import Client

    phone = Client(enforce_csrf_checks=True)
    exported = download(phone.get(reverse("export_table", args=[match.table.viewer_token, "json"])))
    upload = SimpleUploadedFile("table.json", exported, content_type="application/json")
    assert phone.post(reverse("import_table"), {"file": upload}, **EN).status_code == 403
    assert Table.objects.count() == 1
    token = csrf_token(phone.get("/"))  # the home page's import form sends it back
    upload.seek(0)
    response = phone.post(
        reverse("import_table"), {"file": upload, "csrfmiddlewaretoken": token}, **EN
    )
    assert response.status_code == 302
    assert Table.objects.count() == 2


def test_too_many_imports_are_refused_and_said(client, match, worked, settings):
    from django.core.cache import cache

    cache.clear()
    settings.TABLES_PER_HOUR = 1
    exported = download(
        client.get(reverse("export_table", args=[match.table.viewer_token, "json"]))
    )
    upload = SimpleUploadedFile("table.json", exported, content_type="application/json")
    assert client.post(reverse("import_table"), {"file": upload}, **EN).status_code == 302
    upload.seek(0)
    response = client.post(reverse("import_table"), {"file": upload}, **EN)
    assert response.status_code == 429
    html = response.content.decode()
    assert "Too many new tables or files to import from this address (refused files count" in html
    assert "Choose the .json file" not in html  # no field is blamed for it
    assert Table.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_an_import_is_checked_before_its_write_transaction(client, match, worked, monkeypatch):
    # On SQLite every other writer waits while a transaction writes: checking a big file
    # inside one would stall every table.
    from django.db import connection

    from matches import imports

    checked = imports.validate_document
    during = []

    def check(document):
        during.append(connection.in_atomic_block)
        return checked(document)

    monkeypatch.setattr(imports, "validate_document", check)
    exported = download(
        client.get(reverse("export_table", args=[match.table.viewer_token, "json"]))
    )
    upload = SimpleUploadedFile("table.json", exported, content_type="application/json")
    assert client.post(reverse("import_table"), {"file": upload}, **EN).status_code == 302
    assert during == [False]


def test_forged_imports_from_another_site_do_not_use_up_the_new_tables(settings):
    from django.core.cache import cache
    from django.test import Client

    cache.clear()
    settings.TABLES_PER_HOUR = 1
    phone = Client(enforce_csrf_checks=True)
    for _ in range(3):  # another site posts on this phone's behalf, without its token
        upload = SimpleUploadedFile("x.json", b"{}")
        assert phone.post(reverse("import_table"), {"file": upload}, **EN).status_code == 403
    token = csrf_token(phone.get("/"))
    response = phone.post(reverse("create_table"), {"name": "Bar", "csrfmiddlewaretoken": token})
    assert response.status_code == 302
