"""`manage.py migrate`, one process at a time (see matches.db.migration_lock)."""

from django.core.management.commands import migrate

from matches.db import migration_lock


class Command(migrate.Command):
    def handle(self, *args, **options):
        with migration_lock(options["database"]):
            return super().handle(*args, **options)
