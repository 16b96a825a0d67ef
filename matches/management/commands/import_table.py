"""`manage.py import_table FILE`: a JSON export as a new table; prints its links."""

from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from matches import imports, services


class Command(BaseCommand):
    help = "Import a JSON export as a new table and print its scorer and view-only links."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", help="a JSON export of a table")

    def handle(self, *args, file: str, **options) -> None:
        try:
            with open(file, "rb") as source:
                raw = source.read()
        except OSError as error:
            raise CommandError(f"Cannot read {file}: {error.strerror}.") from None
        try:
            table = services.import_table(document=imports.read(raw))
        except imports.ImportInvalid as invalid:
            for message in invalid.messages:
                self.stderr.write(message)
            raise CommandError(f"{file} was not imported; nothing was written.") from None
        self.stdout.write(f"Imported table {table.pk}: {table.name}")
        self.stdout.write(f"Scorer link: {reverse('join', args=[table.scorer_token])}")
        self.stdout.write(f"View-only link: {reverse('table', args=[table.viewer_token])}")
