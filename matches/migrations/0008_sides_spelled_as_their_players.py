"""Sides named after their players take the players' spelling.

A match used to name a side as its players were typed in the new-match form ("niccolo &
DINO" for Niccolò and Dino): the sheet then took it for a name the table chose, and a rename
of a player did not reach it. Such a side, the same name but for case and accents, is named
after its players again. A name the table chose stays.
"""

from django.db import migrations
from django.db.models import F

# The app's own rule, on purpose: a side is named so from now on, and this mends the rest.
from matches.models import side_name


def spell_as_players(apps, schema_editor):
    Side = apps.get_model("matches", "Side")
    Match = apps.get_model("matches", "Match")
    sides = Side.objects.select_related("first_player", "second_player")
    for side in sides.iterator(chunk_size=2000):
        players = [p for p in (side.first_player, side.second_player) if p is not None]
        named = side_name(side.name, [p.name for p in players])
        if named != side.name:
            Side.objects.filter(pk=side.pk).update(name=named)
            # A sheet open across the upgrade is drawn again (its ETag is the revision).
            Match.objects.filter(pk=side.match_id).update(revision=F("revision") + 1)


class Migration(migrations.Migration):
    dependencies = [("matches", "0007_log_player_renamed_and_merged")]

    operations = [migrations.RunPython(spell_as_players, migrations.RunPython.noop)]
