"""Matches keep what the stats count of their deals: the stats page then reads no deal."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0001_squashed_0010_match_decided_for'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='deal_count',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='match',
            name='declarations_0',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='match',
            name='declarations_1',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='match',
            name='declared_0',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='match',
            name='declared_1',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='match',
            name='sweeps_0',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='match',
            name='sweeps_1',
            field=models.PositiveIntegerField(default=0),
        ),
    ]
