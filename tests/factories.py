"""One factory per model. `.build()` where no database is needed."""

import factory

from matches import models


class TableFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Table

    name = factory.Sequence(lambda n: f"Table {n}")


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Player

    table = factory.SubFactory(TableFactory)
    name = factory.Sequence(lambda n: f"Player {n}")


class MatchFactory(factory.django.DjangoModelFactory):
    """A match with its two sides of two players: Alice & Carla against Beppe & Dino."""

    class Meta:
        model = models.Match
        skip_postgeneration_save = True

    table = factory.SubFactory(TableFactory)

    @factory.post_generation
    def sides(match, create, extracted, **kwargs):
        if not create:
            return
        names = extracted or (
            [["Alice", "Carla"], ["Beppe", "Dino"]]
            if match.players_per_side == 2
            else [["Alice"], ["Beppe"]]
        )
        for position, pair in enumerate(names):
            players = [
                models.Player.objects.get_or_create(table=match.table, name=name)[0]
                for name in pair
            ]
            SideFactory(
                match=match,
                position=position,
                name=models.pair_name(pair),
                first_player=players[0],
                second_player=players[1] if len(players) > 1 else None,
            )


class SideFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Side

    match = factory.SubFactory(MatchFactory)
    position = 0
    name = factory.Sequence(lambda n: f"Side {n}")
    first_player = factory.SubFactory(PlayerFactory, table=factory.SelfAttribute("..match.table"))


class DealFactory(factory.django.DjangoModelFactory):
    """The rules' worked deal by default: 8 + 3 declared = 11 against 3."""

    class Meta:
        model = models.Deal

    match = factory.SubFactory(MatchFactory)
    number = factory.Sequence(lambda n: n + 1)
    card_points = [8, 3]
    declared_points = [3, 0]
    points = [11, 3]


class ChangeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Change

    match = factory.SubFactory(MatchFactory)
    action = models.Action.DEAL_RECORDED
    by = "Carla's phone"
