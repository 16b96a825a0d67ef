import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from matches.models import Table
from tests.test_exports import _english, build_evening  # noqa: F401
from tests.test_import import document

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_export_table_writes_json_to_a_file(tmp_path):
    table = build_evening()
    path = tmp_path / "evening.json"
    out, _ = run("export_table", str(table.pk), "--format", "json", "--output", str(path))
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["table"]["name"] == table.name
    assert len(document["matches"]) == 3
    assert str(path) in out


def test_export_table_writes_csv_to_standard_output():
    table = build_evening()
    out, _ = run("export_table", str(table.pk), "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0][:4] == ["Match", "Date", "Line", "Deal"]
    assert len(rows) == 1 + 6


def test_a_csv_file_starts_with_the_mark_spreadsheets_read_utf8_by(tmp_path):
    path = tmp_path / "evening.csv"
    run("export_table", str(build_evening().pk), "--format", "csv", "--output", str(path))
    assert path.read_bytes().startswith(b'\xef\xbb\xbf"Match",')
    json_path = tmp_path / "evening.json"
    run("export_table", str(Table.objects.get().pk), "--output", str(json_path))
    assert json_path.read_bytes().startswith(b"{")  # JSON has no such mark


def test_export_table_names_an_unknown_table():
    with pytest.raises(CommandError, match="There is no table with id 999"):
        run("export_table", "999")


def test_import_table_prints_the_new_tables_links(tmp_path):
    path = tmp_path / "bar.json"
    path.write_text(json.dumps(document()), encoding="utf-8")
    out, _ = run("import_table", str(path))
    table = Table.objects.get()
    assert f"Imported table {table.pk}: Bar Sport" in out
    assert f"/join/{table.scorer_token}/" in out
    assert f"/t/{table.viewer_token}/" in out


def test_a_json_export_imports_back_through_the_commands(tmp_path):
    path = tmp_path / "evening.json"
    run("export_table", str(build_evening().pk), "--output", str(path))
    run("import_table", str(path))
    assert Table.objects.count() == 2


def test_import_table_refuses_a_bad_file_with_every_message(tmp_path):
    bad = document()
    bad["matches"][0]["totals"] = [0, 0]
    bad["matches"][1]["deals"][0]["card_points"] = [6, 6]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was written"):
        call_command("import_table", str(path), stderr=err)
    assert err.getvalue().splitlines() == [
        "Match 1: the file gives totals [0, 0], but the deals add up to [22, 10].",
        "Match 2, deal 1: Card points, the last trick included, must add up to 11: "
        "Beppe 6 + Alice 6 = 12.",
    ]
    assert not Table.objects.exists()


def test_import_table_names_a_missing_file(tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        run("import_table", str(tmp_path / "missing.json"))
