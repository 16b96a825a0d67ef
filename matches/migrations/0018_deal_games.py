from django.db import migrations


def deals_of_terziglio(apps, schema_editor):
    """Every deal held before is Tressette's, but those that name a bid: Terziglio's."""
    apps.get_model("matches", "Deal").objects.exclude(bid="").update(game="terziglio")


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0017_a_perdere"),
    ]

    operations = [
        migrations.RunPython(deals_of_terziglio, migrations.RunPython.noop),
    ]
