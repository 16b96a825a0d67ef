import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from matches.models import Deal, Table

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


def test_a_stranger_cannot_download(client, match):
    assert client.get("/t/nope/export.json").status_code == 404
    assert client.get(f"/t/{match.table.viewer_token}/export.exe").status_code == 404


def test_an_export_imports_as_a_new_table_joined_by_this_phone(client, match, worked):
    exported = download(
        client.get(reverse("export_table", args=[match.table.viewer_token, "json"]))
    )
    upload = SimpleUploadedFile("table.json", exported, content_type="application/json")
    response = client.post(reverse("import_table"), {"file": upload}, **EN)
    assert response.status_code == 302
    table = Table.objects.exclude(pk=match.table.pk).get()
    assert response["Location"] == reverse("table", args=[table.viewer_token])
    assert Deal.objects.filter(match__table=table).count() == 1
    assert "New match" in client.get(response["Location"], **EN).content.decode()


def test_a_bad_import_says_what_is_wrong_and_stores_nothing(client, match, worked):
    exported = json.loads(
        download(client.get(reverse("export_table", args=[match.table.viewer_token, "json"])))
    )
    exported["matches"][0]["deals"][0]["card_points"] = [8, 4]
    upload = SimpleUploadedFile("table.json", json.dumps(exported).encode())
    response = client.post(reverse("import_table"), {"file": upload}, **EN)
    assert response.status_code == 200
    html = response.content.decode()
    assert "deal 1" in html.lower()
    assert Table.objects.count() == 1
    junk = SimpleUploadedFile("junk.json", b"\x00not json")
    html = client.post(reverse("import_table"), {"file": junk}, **EN).content.decode()
    assert 'id="id_file-error"' in html
    assert Table.objects.count() == 1
