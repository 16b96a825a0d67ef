"""The schema: tables, players, matches, sides, deals, the change log and the rate limits' counts.

It replaces the migrations of the releases before it (0001_squashed_0010 to 0009): a database
migrated to 0009 upgrades with nothing to run. An older one migrates to 0009 with the release
before this one first.
"""

import django.db.models.deletion
import django.db.models.expressions
import django.db.models.functions.text
import django.utils.timezone
import matches.models
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('matches', '0001_squashed_0010_match_decided_for'),
        ('matches', '0002_match_stats'),
        ('matches', '0003_match_stats_from_deals'),
        ('matches', '0004_table_revision'),
        ('matches', '0005_match_table_revision_index'),
        ('matches', '0006_change_idempotency_key'),
        ('matches', '0007_counted'),
        ('matches', '0008_table_rotation'),
        ('matches', '0009_match_declarations_allowed'),
    ]

    dependencies = [
    ]

    operations = [
        migrations.CreateModel(
            name='Counted',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('scope', models.CharField(max_length=32)),
                ('address', models.CharField(max_length=64)),
                ('window', models.BigIntegerField()),
                ('count', models.PositiveIntegerField(default=0)),
            ],
            options={
                'indexes': [models.Index(fields=['window'], name='counted_window')],
                'constraints': [models.UniqueConstraint(fields=('scope', 'address', 'window'), name='counted_once')],
            },
        ),
        migrations.CreateModel(
            name='Table',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=60, verbose_name='name')),
                ('scorer_token', models.CharField(default=matches.models.new_token, max_length=64, unique=True)),
                ('viewer_token', models.CharField(default=matches.models.new_token, max_length=64, unique=True)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('revision', models.PositiveIntegerField(default=1)),
                ('rotation', models.CharField(blank=True, db_default='', default='', max_length=64)),
                ('rotated_from', models.CharField(blank=True, db_default='', default='', max_length=64)),
            ],
            options={
                'constraints': [models.CheckConstraint(condition=models.Q(('name__regex', '\\S')), name='table_name_not_blank'), models.CheckConstraint(condition=models.Q(('scorer_token', models.F('viewer_token')), _negated=True), name='table_tokens_differ')],
            },
        ),
        migrations.CreateModel(
            name='Player',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=40, verbose_name='name')),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='players', to='matches.table')),
            ],
            options={
                'ordering': [django.db.models.functions.text.Lower('name')],
            },
        ),
        migrations.CreateModel(
            name='Match',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('line', models.PositiveSmallIntegerField(default=21, verbose_name='line')),
                ('tie_rule', models.CharField(choices=[('higher_total', 'Higher total wins; equal totals play another deal'), ('another_deal', 'Always play another deal')], default='higher_total', max_length=20, verbose_name='tie rule')),
                ('claims_allowed', models.BooleanField(default=False, verbose_name='claims allowed')),
                ('declarations_allowed', models.BooleanField(db_default=True, default=True, verbose_name='declarations allowed')),
                ('players_per_side', models.PositiveSmallIntegerField(default=2)),
                ('first_dealer', models.PositiveSmallIntegerField(default=0)),
                ('status', models.CharField(choices=[('in_progress', 'In progress'), ('finished', 'Finished'), ('abandoned', 'Stopped, undecided')], default='in_progress', max_length=20)),
                ('winner', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('end_reason', models.CharField(blank=True, choices=[('line', 'reached the line'), ('cappotto', 'cappotto'), ('stramazzo', 'stramazzo'), ('claim', 'claim')], default='', max_length=20)),
                ('started_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('total_0', models.PositiveIntegerField(default=0)),
                ('total_1', models.PositiveIntegerField(default=0)),
                ('decided_for', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('deal_count', models.PositiveIntegerField(default=0)),
                ('declarations_0', models.PositiveIntegerField(default=0)),
                ('declarations_1', models.PositiveIntegerField(default=0)),
                ('declared_0', models.PositiveIntegerField(default=0)),
                ('declared_1', models.PositiveIntegerField(default=0)),
                ('sweeps_0', models.PositiveIntegerField(default=0)),
                ('sweeps_1', models.PositiveIntegerField(default=0)),
                ('revision', models.PositiveIntegerField(default=1)),
                ('next_match', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='previous_match', to='matches.match')),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='matches', to='matches.table')),
            ],
            options={
                'verbose_name_plural': 'matches',
            },
        ),
        migrations.CreateModel(
            name='Deal',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveIntegerField()),
                ('kind', models.CharField(choices=[('normal', 'Normal'), ('cappotto', 'Cappotto'), ('stramazzo', 'Stramazzo'), ('claim', 'Claim')], default='normal', max_length=20)),
                ('side', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('card_points_0', models.PositiveSmallIntegerField(verbose_name='card points (side 1)')),
                ('card_points_1', models.PositiveSmallIntegerField(verbose_name='card points (side 2)')),
                ('declared_points_0', models.PositiveSmallIntegerField(verbose_name='declared points (side 1)')),
                ('declared_points_1', models.PositiveSmallIntegerField(verbose_name='declared points (side 2)')),
                ('points_0', models.PositiveSmallIntegerField(verbose_name='points (side 1)')),
                ('points_1', models.PositiveSmallIntegerField(verbose_name='points (side 2)')),
                ('version', models.PositiveIntegerField(default=1)),
                ('idempotency_key', models.CharField(blank=True, db_default='', default='', max_length=64)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('match', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='deals', to='matches.match')),
            ],
            options={
                'ordering': ['match', 'number'],
                'constraints': [models.UniqueConstraint(fields=('match', 'number'), name='deal_number_unique'), models.UniqueConstraint(condition=models.Q(('idempotency_key', ''), _negated=True), fields=('match', 'idempotency_key'), name='deal_idempotency_key_unique'), models.CheckConstraint(condition=models.Q(('number__gte', 1)), name='deal_number_from_1'), models.CheckConstraint(condition=models.Q(('kind__in', ['normal', 'cappotto', 'stramazzo', 'claim'])), name='deal_kind_valid'), models.CheckConstraint(condition=models.Q(models.Q(('kind', 'normal'), ('side__isnull', True)), models.Q(models.Q(('kind', 'normal'), _negated=True), ('side__in', [0, 1]), ('side__isnull', False)), _connector='OR'), name='deal_side_only_for_sweeps_and_claims'), models.CheckConstraint(condition=models.Q(('card_points_0__gte', 0), ('card_points_0__lte', 11), ('card_points_1__gte', 0), ('card_points_1__lte', 11)), name='deal_card_points_0_to_11'), models.CheckConstraint(condition=models.Q(models.Q(('kind', 'claim'), ('card_points_0__lte', django.db.models.expressions.CombinedExpression(models.Value(11), '-', models.F('card_points_1')))), models.Q(models.Q(('kind', 'claim'), _negated=True), ('card_points_0', django.db.models.expressions.CombinedExpression(models.Value(11), '-', models.F('card_points_1')))), _connector='OR'), name='deal_card_points_sum_to_11'), models.CheckConstraint(condition=models.Q(('declared_points_0__gte', 0), ('declared_points_1__gte', 0), ('points_0__gte', 0), ('points_1__gte', 0)), name='deal_points_not_negative')],
            },
        ),
        migrations.CreateModel(
            name='Change',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('at', models.DateTimeField(default=django.utils.timezone.now)),
                ('action', models.CharField(choices=[('match_started', 'match started'), ('deal_recorded', 'deal recorded'), ('deal_edited', 'deal edited'), ('deal_deleted', 'deal deleted'), ('deal_restored', 'deal restored'), ('match_ended', 'match ended'), ('match_stopped', 'match stopped, undecided'), ('match_reopened', 'match reopened'), ('settings_changed', 'settings changed'), ('player_renamed', 'player renamed'), ('players_merged', 'players merged')], max_length=30)),
                ('by', models.CharField(blank=True, max_length=80)),
                ('deal_number', models.PositiveIntegerField(blank=True, null=True)),
                ('old', models.JSONField(blank=True, null=True)),
                ('new', models.JSONField(blank=True, null=True)),
                ('idempotency_key', models.CharField(blank=True, db_default='', default='', max_length=64)),
                ('match', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='changes', to='matches.match')),
            ],
            options={
                'ordering': ['match', '-at', '-id'],
                'indexes': [models.Index(fields=['match', 'id'], name='change_match_latest')],
                'constraints': [models.CheckConstraint(condition=models.Q(('action__in', ['match_started', 'deal_recorded', 'deal_edited', 'deal_deleted', 'deal_restored', 'match_ended', 'match_stopped', 'match_reopened', 'settings_changed', 'player_renamed', 'players_merged'])), name='change_action_valid')],
            },
        ),
        migrations.CreateModel(
            name='Side',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField()),
                ('name', models.CharField(max_length=83, verbose_name='side name')),
                ('first_player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='matches.player')),
                ('match', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sides', to='matches.match')),
                ('second_player', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='matches.player')),
            ],
            options={
                'ordering': ['position'],
                'constraints': [models.UniqueConstraint(fields=('match', 'position'), name='side_position_unique'), models.CheckConstraint(condition=models.Q(('position__in', [0, 1])), name='side_position_0_or_1'), models.CheckConstraint(condition=models.Q(('name__regex', '\\S')), name='side_name_not_blank'), models.CheckConstraint(condition=models.Q(('first_player', models.F('second_player')), _negated=True), name='side_players_differ')],
            },
        ),
        migrations.AddConstraint(
            model_name='player',
            constraint=models.UniqueConstraint(models.F('table'), django.db.models.functions.text.Lower('name'), name='player_name_unique_per_table', violation_error_message='This table already has a player with that name.'),
        ),
        migrations.AddConstraint(
            model_name='player',
            constraint=models.CheckConstraint(condition=models.Q(('name__regex', '\\S')), name='player_name_not_blank'),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(fields=['table', 'status', '-started_at'], name='matches_mat_table_i_8e46e3_idx'),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(fields=['table', 'revision'], name='match_table_revision'),
        ),
        migrations.AddConstraint(
            model_name='match',
            constraint=models.CheckConstraint(condition=models.Q(('line__gte', 11), ('line__lte', 101)), name='match_line_in_range'),
        ),
        migrations.AddConstraint(
            model_name='match',
            constraint=models.CheckConstraint(condition=models.Q(('players_per_side__in', [1, 2])), name='match_one_or_two_per_side'),
        ),
        migrations.AddConstraint(
            model_name='match',
            constraint=models.CheckConstraint(condition=models.Q(('first_dealer__lt', django.db.models.expressions.CombinedExpression(models.Value(2), '*', models.F('players_per_side')))), name='match_first_dealer_is_a_seat'),
        ),
        migrations.AddConstraint(
            model_name='match',
            constraint=models.CheckConstraint(condition=models.Q(('winner__in', [0, 1])), name='match_winner_is_a_side'),
        ),
        migrations.AddConstraint(
            model_name='match',
            constraint=models.CheckConstraint(condition=models.Q(('tie_rule__in', ['higher_total', 'another_deal'])), name='match_tie_rule_valid'),
        ),
        migrations.AddConstraint(
            model_name='match',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('end_reason', ''), ('finished_at__isnull', True), ('status', 'in_progress'), ('winner__isnull', True)), models.Q(('end_reason__in', ['line', 'cappotto', 'stramazzo', 'claim']), ('finished_at__isnull', False), ('status', 'finished'), ('winner__isnull', False)), models.Q(('end_reason', ''), ('finished_at__isnull', False), ('status', 'abandoned'), ('winner__isnull', True)), _connector='OR'), name='match_finished_has_result'),
        ),
        migrations.AddConstraint(
            model_name='match',
            constraint=models.CheckConstraint(condition=models.Q(('next_match__isnull', True), models.Q(('status', 'in_progress'), _negated=True), _connector='OR'), name='match_rematch_only_when_closed'),
        ),
    ]
