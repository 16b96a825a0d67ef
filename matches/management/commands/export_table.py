"""`manage.py export_table TABLE --format json|csv [--output FILE]`: a table's whole history."""

from django.core.management.base import BaseCommand, CommandError

from matches import exports
from matches.models import Table


class Command(BaseCommand):
    help = "Export a table (by its id, as shown in the admin) as JSON or CSV."

    def add_arguments(self, parser) -> None:
        parser.add_argument("table", type=int, help="the table's id")
        parser.add_argument(
            "--format", dest="export_format", choices=["json", "csv"], default="json"
        )
        parser.add_argument("--output", help="the file to write; standard output without it")

    def handle(self, *args, table: int, export_format: str, output: str | None, **options) -> None:
        found = Table.objects.filter(pk=table).first()
        if found is None:
            raise CommandError(f"There is no table with id {table}.")
        chunks = (
            exports.table_json_chunks(found)
            if export_format == "json"
            else exports.table_csv_rows(found)
        )
        if output is None:
            for chunk in chunks:
                self.stdout.write(chunk, ending="")
            return
        try:
            # newline="": CSV rows already end in \r\n, as spreadsheets expect; a CSV file
            # starts with a byte-order mark, as the download does, or Excel misreads accents.
            encoding = "utf-8-sig" if export_format == "csv" else "utf-8"
            with open(output, "w", encoding=encoding, newline="") as file:
                file.writelines(chunks)
        except OSError as error:
            raise CommandError(f"Cannot write {output}: {error.strerror}.") from None
        self.stdout.write(f"Exported table {found.pk} ({found.name}) to {output}.")
