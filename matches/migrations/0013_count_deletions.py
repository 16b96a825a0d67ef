from django.db import migrations
from django.db.models import Count, Q


def count_deletions(apps, schema_editor):
    """Each match's deletions, from its log: a late retry of a deal deleted before this
    migration is still told it was deleted."""
    Match = apps.get_model("matches", "Match")
    deleted = Count("changes", filter=Q(changes__action="deal_deleted"))
    for pk, count in Match.objects.annotate(n=deleted).filter(n__gt=0).values_list("pk", "n"):
        Match.objects.filter(pk=pk).update(deletions=count)


class Migration(migrations.Migration):
    dependencies = [("matches", "0012_match_deletions")]

    operations = [migrations.RunPython(count_deletions, migrations.RunPython.noop)]
