"""Sides named after their players take the players' spelling.

A match used to name a side as its players were typed in the new-match form ("niccolo &
DINO" for Niccolò and Dino): the sheet then took it for a name the table chose, and a rename
of a player did not reach it. Such a side, the same name but for case and accents, is named
after its players again. A name the table chose stays.
"""

from django.db import migrations

from matches.models import name_key, pair_name


def spell_as_players(apps, schema_editor):
    Side = apps.get_model("matches", "Side")
    sides = Side.objects.select_related("first_player", "second_player")
    for side in sides.iterator(chunk_size=2000):
        players = [p for p in (side.first_player, side.second_player) if p is not None]
        paired = pair_name([p.name for p in players])
        if side.name != paired and name_key(side.name) == name_key(paired):
            Side.objects.filter(pk=side.pk).update(name=paired)


class Migration(migrations.Migration):
    dependencies = [("matches", "0007_log_player_renamed_and_merged")]

    operations = [migrations.RunPython(spell_as_players, migrations.RunPython.noop)]
