"""Matches stored before they kept what the stats count of their deals get it from them."""

from django.db import migrations
from django.db.models import Count, Q, Sum
from django.db.models.functions import Coalesce

SWEEPS = ["cappotto", "stramazzo"]


def count_deals(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    counted = {"n_deals": Count("deals")}
    for side in (0, 1):
        counted[f"n_declarations_{side}"] = Count(
            "deals", filter=Q(**{f"deals__declared_points_{side}__gt": 0})
        )
        counted[f"n_declared_{side}"] = Coalesce(Sum(f"deals__declared_points_{side}"), 0)
        counted[f"n_sweeps_{side}"] = Count(
            "deals", filter=Q(deals__kind__in=SWEEPS, deals__side=side)
        )
    rows = Match.objects.annotate(**counted).values("pk", *counted)
    for row in rows.iterator(chunk_size=2000):
        fields = {name.removeprefix("n_"): row[name] for name in counted}
        fields["deal_count"] = fields.pop("deals")
        Match.objects.filter(pk=row["pk"]).update(**fields)


class Migration(migrations.Migration):
    dependencies = [("matches", "0002_match_stats")]

    operations = [migrations.RunPython(count_deals, migrations.RunPython.noop)]
