"""Whether the rules decide a match by its deals, kept beside its totals.

A match in progress that the rules decide waits for someone to tap End match: until then it
counts in no stats, and the table's list says so. Matches stored before are scored once here.
"""

from django.db import migrations, models

from matches import rules


def stored_outcome(match) -> rules.Outcome:
    """A stored match scored by the rules (a historical model, its deals prefetched)."""
    entries = [
        rules.DealEntry(
            card_points=(deal.card_points_0, deal.card_points_1),
            declared_points=(deal.declared_points_0, deal.declared_points_1),
            kind=rules.DealKind(deal.kind),
            side=deal.side,
        )
        for deal in sorted(match.deals.all(), key=lambda deal: deal.number)
    ]
    agreed = rules.MatchRules(
        line=match.line, tie_rule=match.tie_rule, claims_allowed=match.claims_allowed
    )
    return rules.evaluate(
        agreed,
        entries,
        first_dealer=match.first_dealer,
        seat_count=rules.seats(match.players_per_side),
        checked_from=len(entries) + 1,  # stored deals were checked when they were stored
    )


def score_stored(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    Match.objects.filter(status="finished").update(decided=True)
    for match in Match.objects.filter(status="in_progress").prefetch_related("deals").iterator(
        chunk_size=500
    ):
        if stored_outcome(match).decided:
            Match.objects.filter(pk=match.pk).update(decided=True)


class Migration(migrations.Migration):
    dependencies = [("matches", "0008_sides_spelled_as_their_players")]

    operations = [
        migrations.AddField(
            model_name="match", name="decided", field=models.BooleanField(default=False)
        ),
        migrations.RunPython(score_stored, migrations.RunPython.noop),
    ]
