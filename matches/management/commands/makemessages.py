"""makemessages that also finds the import's messages, passed to `_fail` in imports.py."""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=_fail"]
