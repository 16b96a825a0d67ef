"""Which side the rules say wins a match by its deals, kept in place of whether they decide it.

A match in progress that the rules decide waits for End match: the table's list now says who
won it. Matches stored before are scored once here.
"""

from importlib import import_module

from django.db import migrations, models

stored_outcome = import_module("matches.migrations.0009_match_decided").stored_outcome


def name_the_winners(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    Match.objects.filter(status="finished").update(decided_for=models.F("winner"))
    waiting = Match.objects.filter(status="in_progress", decided=True).prefetch_related("deals")
    for match in waiting.iterator(chunk_size=500):
        winner = stored_outcome(match).winner
        Match.objects.filter(pk=match.pk).update(decided_for=winner)


class Migration(migrations.Migration):
    dependencies = [("matches", "0009_match_decided")]

    operations = [
        migrations.AddField(
            model_name="match",
            name="decided_for",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(name_the_winners, migrations.RunPython.noop),
        migrations.RemoveField(model_name="match", name="decided"),
    ]
