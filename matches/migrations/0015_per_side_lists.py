"""Every figure a match or a deal keeps per side in a list, one number for each side in order,
in place of a column for each of two sides: a match of three sides or five is stored as one of
two is. The numbers are moved by the database, a statement a table."""

from django.db import migrations, models
from django.db.models import IntegerField
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, JSONArray
from django.db.models.lookups import Exact, LessThanOrEqual

import matches.models

# Each list, by the stem of the two columns it takes the place of (total_0, total_1: totals).
MATCH_LISTS = {"totals": "total", "declarations": "declarations", "declared": "declared",
               "sweeps": "sweeps"}  # fmt: skip
DEAL_LISTS = ("card_points", "declared_points", "points")


def side(name: str, number: int):
    """Side `number`'s number in the list `name`, as the database reads it."""
    return Cast(KT(f"{name}__{number}"), IntegerField())


# A deal's card points, both sides' added up (the check on their sum).
CARD_POINTS = side("card_points", 0) + side("card_points", 1)


def into_lists(apps, schema_editor) -> None:
    Match, Deal = apps.get_model("matches", "Match"), apps.get_model("matches", "Deal")
    Match.objects.update(**{name: JSONArray(f"{MATCH_LISTS[name]}_0", f"{MATCH_LISTS[name]}_1")
                            for name in MATCH_LISTS})  # fmt: skip
    Deal.objects.update(**{name: JSONArray(f"{name}_0", f"{name}_1") for name in DEAL_LISTS})


def into_columns(apps, schema_editor) -> None:
    Match, Deal = apps.get_model("matches", "Match"), apps.get_model("matches", "Deal")
    Match.objects.update(**{f"{MATCH_LISTS[name]}_{number}": side(name, number)
                            for name in MATCH_LISTS for number in (0, 1)})  # fmt: skip
    Deal.objects.update(**{f"{name}_{number}": side(name, number)
                           for name in DEAL_LISTS for number in (0, 1)})  # fmt: skip


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0014_match_table_started"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="deal", name="deal_card_points_0_to_11"),
        migrations.RemoveConstraint(model_name="deal", name="deal_card_points_sum_to_11"),
        migrations.RemoveConstraint(model_name="deal", name="deal_points_not_negative"),
        *(
            migrations.AddField(
                model_name="match",
                name=name,
                field=matches.models.PerSide(default=matches.models.per_side),
            )  # fmt: skip
            for name in MATCH_LISTS
        ),
        *(
            migrations.AddField(
                model_name="deal",
                name=name,
                field=matches.models.PerSide(default=list),
                preserve_default=False,
            )  # fmt: skip
            for name in DEAL_LISTS
        ),
        migrations.RunPython(into_lists, into_columns),
        # Taken back, the columns come again with a default, for the rows they come to.
        *(
            migrations.AlterField(
                model_name="deal",
                name=f"{name}_{number}",
                field=models.PositiveSmallIntegerField(default=0),
            )  # fmt: skip
            for name in DEAL_LISTS
            for number in (0, 1)
        ),
        *(
            migrations.RemoveField(model_name="match", name=f"{MATCH_LISTS[name]}_{number}")
            for name in MATCH_LISTS
            for number in (0, 1)
        ),
        *(
            migrations.RemoveField(model_name="deal", name=f"{name}_{number}")
            for name in DEAL_LISTS
            for number in (0, 1)
        ),
        migrations.AddConstraint(
            model_name="deal",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("card_points__0__gte", 0)),
                    models.Q(("card_points__1__gte", 0)),
                    models.Q(("card_points__0__lte", 11)),
                    models.Q(("card_points__1__lte", 11)),
                ),
                name="deal_card_points_0_to_11",
            ),
        ),
        migrations.AddConstraint(
            model_name="deal",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("kind", "claim"), LessThanOrEqual(CARD_POINTS, 11)),
                    models.Q(models.Q(("kind", "claim"), _negated=True), Exact(CARD_POINTS, 11)),
                    _connector="OR",
                ),
                name="deal_card_points_sum_to_11",
            ),
        ),
        migrations.AddConstraint(
            model_name="deal",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("declared_points__0__gte", 0)),
                    models.Q(("declared_points__1__gte", 0)),
                    models.Q(("points__0__gte", 0)),
                    models.Q(("points__1__gte", 0)),
                ),
                name="deal_points_not_negative",
            ),
        ),
        migrations.AddConstraint(
            model_name="match",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(models.Q(("totals__0__gte", 0)), models.Q(("totals__1__gte", 0))),
                    models.Q(
                        models.Q(("declarations__0__gte", 0)), models.Q(("declarations__1__gte", 0))
                    ),
                    models.Q(models.Q(("declared__0__gte", 0)), models.Q(("declared__1__gte", 0))),
                    models.Q(models.Q(("sweeps__0__gte", 0)), models.Q(("sweeps__1__gte", 0))),
                ),
                name="match_counts_not_negative",
            ),
        ),
    ]
