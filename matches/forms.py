"""Read what people type: text into whole numbers, names and choices; then ask `matches.rules`
and say what they refuse beside the field it is about."""

import re
import unicodedata
from collections.abc import Sequence

from django import forms
from django.core.exceptions import ValidationError
from django.forms.renderers import TemplatesSetting
from django.utils.functional import Promise
from django.utils.translation import gettext as translate
from django.utils.translation import gettext_lazy as _

from matches import rules
from matches.models import (
    A_PERDERE_ENDS,
    BIDS,
    BIDS_PLAYED,
    DEAL_KINDS,
    EVENINGS,
    FRACTIONS,
    NAME_MAX,
    PAYMENTS,
    SIDE_NAME_MAX,
    TABLE_NAME_MAX,
    TERZIGLIO_ENDS,
    TIE_RULES,
    Player,
)
from matches.names import hides_something, name_key, side_name

MAX_ENTRY = 999  # past this a typed number is refused unread


class FormRenderer(TemplatesSetting):
    """Every field drawn by one template of ours (label, input, help, errors in words)."""

    field_template_name = "matches/fields/field.html"


STALE_PAGE = _("This page is out of date: reload it and try again.")


def rule_message(error: rules.RuleError, *, in_column: bool = False) -> str:
    """A rules message in the language of the request. Under a field of a side's own column
    it does not name the side again ("Alice & Carla: card points cannot…" is "Card points
    cannot…" there): a long name ran to lines of its own."""
    template = translate(error.template)
    if in_column and template.startswith("%(side)s: "):
        template = template.removeprefix("%(side)s: ")
        template = template[:1].upper() + template[1:]
    return template % error.params


def rule_messages(invalid: rules.DealInvalid) -> str:
    """Every broken rule of a deal in words, naming the deal, for a refusal shown away from a
    form (new settings can break a deal far up the sheet)."""
    said = " ".join(rule_message(error) for error in invalid.errors)
    number = invalid.errors[0].deal_number if invalid.errors else None
    if number is None:
        return said
    return _("Deal %(number)s: %(message)s") % {"number": number, "message": said}


# --- Numbers -----------------------------------------------------------------------------

# Digits of any script (\d is Unicode's decimal digits, which int() reads): a phone's keypad
# may type a full-width or an Arabic-Indic 7.
_DIGITS = re.compile(r"\d+")
# Each digit can be matched one way only (possessive runs): a long string that fails to
# match is refused in one pass.
_NEGATIVE = re.compile(r"[-\u2212](?:\d++(?:[.,]\d*+)?|[.,]\d++)")
# A whole part and a fraction: 7.33, 7,5, .5, 7⅓, 7 ⅔, 7½.
_DECIMAL = re.compile(r"(\d*+)(?:[.,]\d++|(?<=\d)[.,])|(\d*+) ?+[\u2153\u2154\u00bd\u00bc\u00be]")
# Declarations added up as the chips do (+3, +4): "3+4" and "+7" are 7.
_SUM = re.compile(r"\+?+ *+\d++(?: *+\+ *+\d++)*+")
NUMBER_MESSAGES = {
    "blank": _("%(label)s is empty: enter a whole number, like 7."),
    "not_a_number": _("%(label)s must be a number, like 7."),
    "not_whole": _("%(label)s must be a whole number, like 7."),
    "fraction_dropped": _(
        "%(label)s must be a whole number: each side drops its own fraction, so %(typed)s is "
        "%(whole)s."
    ),
    "negative": _("%(label)s cannot be negative."),
    "too_large": _("%(label)s is too large: at most %(max)s."),
}


def read_number(text: str, *, label: str | Promise, most: int = MAX_ENTRY,
                card_points: bool = False, sums: bool = False) -> int:  # fmt: skip
    """A whole number as typed on a phone, or a ValidationError in words. Past MAX_ENTRY it
    is refused unread, said at `most` (the rules say what else is too many); `card_points`
    says a fraction is dropped (7⅓ is 7); `sums` reads "3+4" as 7.

    >>> read_number(" 07 ", label="Card points")
    7
    >>> read_number("3 + 4", label="Declarations", sums=True)
    7
    """
    params: dict[str, object] = {"label": label, "max": most}

    def refuse(code: str) -> ValidationError:
        return ValidationError(NUMBER_MESSAGES[code], code=code, params=params)

    text = text.strip()
    if not text:
        raise refuse("blank")
    if _NEGATIVE.fullmatch(text):
        raise refuse("negative")
    if fraction := _DECIMAL.fullmatch(text):
        whole = _whole(fraction[1] or fraction[2] or "", MAX_ENTRY, refuse)
        if not card_points or whole > most:
            raise refuse("not_whole")
        params.update(typed=text if len(text) <= 8 else f"{text[:7]}…", whole=whole)
        raise refuse("fraction_dropped")
    # A sum longer than any table types is not read (a huge one took most of a second).
    if sums and len(text) <= 64 and _SUM.fullmatch(text):
        total = sum(_whole(part.strip(), MAX_ENTRY, refuse) for part in text.split("+") if part)
        if total > MAX_ENTRY:
            raise refuse("too_large")
        return total
    if not _DIGITS.fullmatch(text):
        raise refuse("not_a_number")
    return _whole(text, MAX_ENTRY, refuse)


def _whole(digits: str, most: int, refuse) -> int:
    """Digits (of any script, leading zeros too) as a number up to `most`; "" is 0."""
    start = 0  # past the leading zeros, of any script
    while start < len(digits) and unicodedata.decimal(digits[start]) == 0:
        start += 1
    significant = digits[start:]
    # Lengths first: int() refuses strings of thousands of digits.
    if len(significant) > len(str(most)) or int(significant or "0") > most:
        raise refuse("too_large")
    return int(significant or "0")


class NumberField(forms.CharField):
    """A number typed on the phone's numeric keypad. No `pattern`: the browser would refuse
    "7⅓" or " 7" with its own bubble, in its own language, before the app could explain."""

    widget = forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off", "size": "3"})

    def __init__(self, *, most: int = MAX_ENTRY, card_points: bool = False, sums: bool = False,
                 **kwargs) -> None:  # fmt: skip
        self.reading = {"most": most, "card_points": card_points, "sums": sums}
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def clean(self, value):
        text = super().clean(value)
        if not text and not self.required:
            return None
        return read_number(text, label=self.label, **self.reading)  # translated if refused


# --- Names -------------------------------------------------------------------------------


def clean_name(value: str, *, max_length: int) -> str:
    """A name as people type it: trimmed, one space between words, nothing hidden."""
    value = " ".join(unicodedata.normalize("NFC", value or "").split())
    # U+FFFD stands where a browser sent bytes that were not UTF-8: what was meant is lost.
    if "\ufffd" in value or hides_something(value):
        raise ValidationError(_("Use letters, numbers and punctuation only."), code="control")
    if not name_key(value):
        return ""  # nothing one can see: no name
    if len(value) > max_length:
        raise ValidationError(
            _("Keep it to %(max)s characters (this one has %(length)s)."),
            code="too_long",
            params={"max": max_length, "length": len(value)},
        )
    return value


class NameField(forms.CharField):
    """A free-text name; its length is checked once trimmed, with a message in words."""

    widget = forms.TextInput(attrs={"autocomplete": "off", "maxlength": "200"})

    def __init__(self, *, max_length: int, **kwargs) -> None:
        self.name_max = max_length
        super().__init__(**kwargs)

    def clean(self, value):
        value = clean_name(super().clean(value), max_length=self.name_max)
        if self.required and not value:
            raise ValidationError(self.error_messages["required"], code="required")
        return value


def _pick(message) -> dict:
    """A choice's messages: whether nothing or something unknown was sent, say what to pick."""
    return {"required": message, "invalid_choice": message}


class Choices(forms.RadioSelect):
    template_name = "matches/widgets/choices.html"


class Seats(forms.RadioSelect):
    """The seats of a new match, each named as its player is typed (app.js)."""

    template_name = "matches/widgets/seats.html"


class Chips(forms.RadioSelect):
    """Radio choices drawn as chips, a tap each. A chip's radio sits in its label, so it
    needs no id of its own: a sheet draws tens of them, every byte on its first load."""

    template_name = "matches/widgets/chips.html"

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        option["attrs"].pop("id", None)
        return option


class Kinds(Chips):
    """The kinds of deal as chips, each saying what it asks for (sheet.js): whom a sweep names
    (`data-sweeper`: "side" or "player") and whether its card points go without saying."""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        kind = rules.DealKind(value)
        if sweeper := rules.sweeper_named(kind):
            option["attrs"]["data-sweeper"] = sweeper
        if rules.card_points_implied(kind):
            option["attrs"]["data-card-points-implied"] = ""
        return option


class Players(Chips):
    """The players of a match of four as chips in seat order, two abreast: each side's in
    its own column and colour, as its card points above (`side`, `data-side` on each)."""

    template_name = "matches/widgets/players.html"

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        option["side"] = rules.seat_player(int(value))[0]
        option["attrs"]["data-side"] = option["side"]
        return option


class Pad(Chips):
    """A side's card points as a pad of big keys, a tap each: no keyboard opens."""

    template_name = "matches/widgets/pad.html"


class Form(forms.Form):
    """No `required` for the browser to check: it would refuse with a bubble of its own, in
    its own language; the app says what is missing in its words, beside the field."""

    use_required_attribute = False


class StaleOnHidden:
    """A hidden field fails only on a page from an older version or one tampered with: its
    error is the whole form's, said in words."""

    def _post_clean(self) -> None:
        super()._post_clean()
        for name, field in self.fields.items():
            stale = field.widget.is_hidden and self._errors.pop(name, None)
            if stale and STALE_PAGE not in self.non_field_errors():
                self.add_error(None, STALE_PAGE)


# --- Tables and players ------------------------------------------------------------------


def _phone_label() -> NameField:
    return NameField(
        label=_("This phone's name"),
        max_length=NAME_MAX,
        required=False,
        help_text=_("Shown in the match history beside each change, e.g. “Carla's phone”."),
    )


class TableForm(Form):
    """A new table, and the name of the phone that makes it (as a joining phone gives)."""

    label = _phone_label()
    name = NameField(
        label=_("Table name"),
        max_length=TABLE_NAME_MAX,
        error_messages={"required": _("Give the table a name, like “Bar Sport”.")},
    )


class JoinForm(Form):
    label = _phone_label()


class PlayerForm(Form):
    name = NameField(
        label=_("Player name"),
        max_length=NAME_MAX,
        error_messages={"required": _("Type the player's name.")},
    )


class MergeForm(Form):
    """Which other player of the table a player is the same person as."""

    into = forms.ModelChoiceField(
        queryset=Player.objects.none(),
        error_messages=_pick(_("Choose another player of this table.")),
    )

    def __init__(self, data, *, player: Player) -> None:
        super().__init__(data)
        self.fields["into"].queryset = player.table.players.exclude(pk=player.pk)


# About 40,000 deals. Checking a file takes memory many times its size: a bigger history
# goes in from the server's command line (manage.py import_table), which has no such cap.
IMPORT_MAX_BYTES = 20 * 1024 * 1024
TOO_LARGE = _("The file is too large: at most %(max)s MB.")
_IMPORT_MAX_MB = {"max": IMPORT_MAX_BYTES // (1024 * 1024)}


class ImportForm(Form):
    file = forms.FileField(
        label=_("A JSON export"),
        help_text=_("Restores a table exported from this app, as a new table with new links."),
        error_messages={
            "required": _("Choose the .json file of an export."),
            "empty": _("The file is empty: choose the .json file of an export."),
        },
    )

    @classmethod
    def refused(cls, message) -> "ImportForm":
        """A form that says `message`, for an upload refused before it was read."""
        form = cls(data={})
        form.errors.clear()  # nothing was read: no field to blame
        form.add_error(None, message)
        return form

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > IMPORT_MAX_BYTES:
            raise ValidationError(TOO_LARGE, code="too_large", params=_IMPORT_MAX_MB)
        return upload


def too_large_upload(content_length: str | None) -> str | None:
    """The refusal of a body that says it is larger than any import may be, else None: read
    from Content-Length before the body, so a huge upload is never written to disk."""
    try:
        size = int(content_length or 0)
    except ValueError:
        return None
    # The file, and the form's other fields and boundaries around it.
    return TOO_LARGE % _IMPORT_MAX_MB if size > IMPORT_MAX_BYTES + 64 * 1024 else None


# --- Matches -----------------------------------------------------------------------------


class LineField(NumberField):
    def clean(self, value):
        try:
            line = super().clean(value)
        except ValidationError:
            line = -1
        if line is None:
            raise ValidationError(self.error_messages["required"], code="required")
        if line < 0:
            message = _("The line must be a whole number from %(min)s to %(max)s.")
            raise ValidationError(message, params={"min": rules.MIN_LINE, "max": rules.MAX_LINE})
        try:
            return rules.check_line(line)
        except rules.RuleError as error:
            raise ValidationError(rule_message(error)) from None


class SettingsForm(StaleOnHidden, Form):
    HOUSE_LINES = rules.HOUSE_LINES
    line = LineField(
        label=_("Line"),
        initial=rules.DEFAULT_LINE,
        widget=forms.TextInput(
            attrs={"inputmode": "numeric", "autocomplete": "off", "list": "common-lines"}
        ),
        help_text=_("The total that wins: 21, 31, 41 or any whole number from 11 to 101."),
        error_messages={"required": _("Type the line: the total that wins, like 21.")},
    )
    tie_rule = forms.ChoiceField(
        label=_("When both sides pass the line on the same deal"),
        choices=TIE_RULES,
        initial=rules.TieRule.HIGHER_TOTAL,
        widget=Choices,
        error_messages=_pick(_("Pick what happens when both sides pass the line together.")),
    )
    claims_allowed = forms.BooleanField(
        label=_("Claims allowed (a side may stop a deal and claim the line)"),
        required=False,
        template_name="matches/fields/checkbox.html",
    )
    declarations_allowed = forms.BooleanField(
        label=_("Declarations count (napoletana, three or four of a kind)"),
        required=False,
        initial=True,
        template_name="matches/fields/checkbox.html",
    )

    @classmethod
    def of(cls, settings: rules.MatchSettings) -> "SettingsForm":
        return cls(initial=settings.as_dict())

    @property
    def settings(self) -> rules.MatchSettings:
        data = self.cleaned_data
        return rules.MatchSettings(
            data["line"], data["tie_rule"], data["claims_allowed"], data["declarations_allowed"]
        )


def _seat(label, template_name: str | None = None, *, optional: bool = False) -> NameField:
    """A player's seat at a new match: a name typed or picked from the table's players
    (`optional`: left blank, nobody sits there, and nobody can deal first from it)."""
    attrs = {"autocomplete": "off", "maxlength": "200", "list": "known-players"}
    if optional:
        attrs["data-optional"] = ""
    field = NameField(
        label=label, max_length=NAME_MAX, required=False, widget=forms.TextInput(attrs)
    )
    field.template_name = template_name
    return field


def _side_name() -> NameField:
    attrs = {"autocomplete": "off", "maxlength": "200"}
    attrs["placeholder"] = _("Blank: named after its players")
    widget = forms.TextInput(attrs)
    return NameField(label=_("Side name"), max_length=SIDE_NAME_MAX, required=False, widget=widget)


SEAT_LABELS = [
    _("Side 1, first player"),
    _("Side 2, first player"),
    _("Side 1, second player"),
    _("Side 2, second player"),
]


class EveningForm(StaleOnHidden, Form):
    """How a table counts its evening: the series, and the old stakes."""

    evening = forms.TypedChoiceField(
        label=_("How tonight is counted"),
        choices=EVENINGS,
        coerce=rules.Evening,
        initial=rules.Evening.TONIGHT,
        widget=Choices,
        error_messages=_pick(_("Pick how tonight is counted.")),
    )
    stakes = forms.BooleanField(
        label=_("Play the old stakes: cappotto 2 games, stramazzo 3, cappottone 6, stramazzone 8"),
        required=False,
        template_name="matches/fields/checkbox.html",
    )


class NewMatchForm(SettingsForm):
    players_per_side = forms.TypedChoiceField(
        label=_("Players"),
        choices=[(2, _("Four players, two a side")), (1, _("Two players (Tressette in due)"))],
        coerce=int,
        initial=2,
        widget=Choices,
        error_messages=_pick(_("Pick four players, two a side, or two players.")),
    )
    player_0 = _seat(_("First player"), "matches/fields/seat.html")
    player_2 = _seat(_("Partner"))
    player_1 = _seat(_("First player"), "matches/fields/seat.html")
    player_3 = _seat(_("Partner"))
    side_name_0 = _side_name()
    side_name_1 = _side_name()
    first_dealer = forms.TypedChoiceField(
        label=_("Who deals first"),
        choices=list(enumerate(SEAT_LABELS)),
        coerce=int,
        initial=0,
        widget=Seats,
        error_messages=_pick(_("Pick who deals first.")),
        template_name="matches/fields/first_dealer.html",
    )
    # The evening's first match says how the evening is counted (EveningForm's fields).
    evening = EveningForm.base_fields["evening"]
    stakes = EveningForm.base_fields["stakes"]

    def __init__(self, *args, first_of_evening: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.first_of_evening = first_of_evening
        if not first_of_evening:  # counted as tonight is already; changed on the table page
            del self.fields["evening"], self.fields["stakes"]
        else:  # not sent (a page from before the evening): as the table counts it now
            self.fields["evening"].required = False
            self.fields["evening"].empty_value = None

    @property
    def evening_chosen(self) -> dict:
        """What the form says of the evening, for services.start_match."""
        if not self.first_of_evening:
            return {}
        return {"evening": self.cleaned_data["evening"], "stakes": self.cleaned_data["stakes"]}

    @property
    def sides(self) -> list[tuple[str, forms.BoundField, forms.BoundField, forms.BoundField]]:
        """Each side's fields: its first player, partner and name."""
        labels = (_("Side 1"), _("Side 2"))
        return [
            (label, self[f"player_{side}"], self[f"player_{side + 2}"], self[f"side_name_{side}"])
            for side, label in enumerate(labels)
        ]

    def clean(self):
        data = super().clean()
        seats = 2 * (data.get("players_per_side") or 2)
        if seats == 2:  # in due the partners' fields are hidden, and what they hold unread
            for seat in (2, 3):
                self.errors.pop(f"player_{seat}", None)
        # A seat left blank or refused holds a stand-in no name can match: the others are
        # still checked for a player seated twice.
        names = [data.get(f"player_{seat}") or f"\0{seat}" for seat in range(seats)]
        for seat in range(seats):
            if not data.get(f"player_{seat}") and f"player_{seat}" not in self.errors:
                self.add_error(f"player_{seat}", _("Type a name or pick a player."))
        players = [names[side::2] for side in (0, 1)]
        named = [side_name(data.get(f"side_name_{side}", ""), players[side]) for side in (0, 1)]
        for error in rules.seating_errors(players, named, data.get("first_dealer", 0)):
            if error.part == "seat":
                message = _("This player already sits at this match.")
                self.add_error(f"player_{error.params['seat']}", message)
            else:
                field = "first_dealer" if error.part == "first_dealer" else None
                self.add_error(field, rule_message(error))
        if not self.errors:
            data["players"] = players
        return data


# --- Deals -------------------------------------------------------------------------------


def entry_data(
    entry: "rules.DealEntry | rules.TerziglioEntry | rules.APerdereEntry",
) -> dict[str, str]:
    """What a phone sends for `entry`: to put a deal in a form again. Its card points are
    tapped on the pads, the typed fields left blank: a tap on another key then counts,
    with or without scripts (what is typed counts first). A perdere's are typed."""
    if isinstance(entry, rules.APerdereEntry):
        typed = {
            f"card_points_{seat}": str(points) for seat, points in enumerate(entry.card_points)
        }
        sweeper = "" if entry.sweeper is None else str(entry.sweeper)
        return typed | {"sweeper": sweeper, "players": str(len(entry.card_points))}
    if isinstance(entry, rules.TerziglioEntry):
        return {
            "soloist": "" if entry.soloist is None else str(entry.soloist),
            "bid": "" if entry.bid is None else str(entry.bid),
            "card_pad": "" if entry.card_points is None else str(entry.card_points),
            "card_points": "",
            "a_monte": "1" if entry.a_monte else "",
        }
    data = {"kind": str(entry.kind), "side": "" if entry.side is None else str(entry.side)}
    data["seat"] = "" if entry.seat is None else str(entry.seat)
    for side in (0, 1):
        data[f"card_pad_{side}"] = str(entry.card_points[side])
        data[f"card_points_{side}"] = ""
        data[f"declared_points_{side}"] = str(entry.declared_points[side])
    return data


class PadField(forms.TypedChoiceField):
    """A side's card points tapped on its pad, 0 to 11; None when no key is."""

    def __init__(self, label: str | Promise | None = None) -> None:
        super().__init__(
            label=label or _("Card points"),
            choices=[(points, str(points)) for points in range(rules.CARD_POINTS_PER_DEAL + 1)],
            coerce=int,
            required=False,
            empty_value=None,
            widget=Pad,
            error_messages={"invalid_choice": _("Tap one of the numbers shown.")},
        )


class NextDeal(StaleOnHidden, Form):
    """A deal's form of any game: the number of the deal the phone shows, the key it saves
    it under (a retry finds the deal it made)."""

    number = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    key = forms.CharField(widget=forms.HiddenInput, required=False, max_length=64)

    def add_rule_errors(self, invalid: rules.DealInvalid) -> None:
        """Each error the rules found, where its game's form says it (`add_rule_error`)."""
        for error in invalid.errors:
            self.add_rule_error(error)


class DealForm(NextDeal):
    """One deal: per side its card points and declarations, the kind and the side it names."""

    # Every kind is read, a claim too: whether this match allows claims is the rules' to say.
    kind = forms.ChoiceField(
        label=_("Kind of deal"),
        choices=DEAL_KINDS,
        initial=rules.DealKind.NORMAL,
        widget=Kinds,
        error_messages=_pick(_("Pick the kind of deal.")),
    )
    side = forms.TypedChoiceField(
        label=_("Which side"),
        coerce=int,
        required=False,
        empty_value=None,
        widget=Chips,
        error_messages={"invalid_choice": _("Pick one of the two sides.")},
    )
    # A cappottone or a stramazzone: the player who swept alone, whose side is the sweeper.
    seat = forms.TypedChoiceField(
        label=_("Who swept alone"),
        coerce=int,
        required=False,
        empty_value=None,
        widget=Players,
        error_messages={"invalid_choice": _("Pick one of the four players.")},
    )
    # A side's card points: tapped on its pad, or typed ("7⅓"); what is typed counts first.
    card_pad_0 = PadField()
    card_points_0 = NumberField(label=_("Card points"), most=11, card_points=True)
    declared_points_0 = NumberField(label=_("Declarations"), sums=True)
    card_pad_1 = PadField()
    card_points_1 = NumberField(label=_("Card points"), most=11, card_points=True)
    declared_points_1 = NumberField(label=_("Declarations"), sums=True)
    # What a side declares most, and what it counts: tapped, they add up.
    CHIPS = ((3, _("napoletana")), (3, _("three of a kind")), (4, _("four of a kind")))

    def __init__(
        self,
        *args,
        side_names: tuple[str, str],
        claims_allowed: bool,
        declarations_allowed: bool = True,
        seat_names: Sequence[str] = (),
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.side_names = side_names
        self.seat_names = tuple(seat_names)
        self.claims_allowed = claims_allowed
        self.declarations_allowed = declarations_allowed
        self.fields["side"].choices = list(enumerate(side_names))
        self.fields["seat"].choices = list(enumerate(self.seat_names))
        # Offered where the rules allow them (a match of four; in due, sent, refused), as
        # claims are; each is read whatever is offered, and the rules say why not.
        offered = [
            kind
            for kind in DEAL_KINDS
            if (self.sweeps_by_one or kind[0] not in rules.SWEEPS_BY_ONE)
            and (claims_allowed or kind[0] != rules.DealKind.CLAIM)
        ]
        self.fields["kind"].widget.choices = offered
        for side, name in enumerate(side_names):
            self.fields[f"card_points_{side}"].widget.attrs["data-card-points"] = side
            self.fields[f"card_points_{side}"].template_name = "matches/fields/typed.html"
            declared = self.fields[f"declared_points_{side}"]
            declared.template_name = "matches/fields/declarations.html"
            declared.side_name, declared.chips = name, self.CHIPS
            declared.widget.attrs["placeholder"] = "0"

    @classmethod
    def typed(cls, data) -> "DealForm":
        """What was typed, read before the match is (a save's one read is the service's,
        locked): two sides, up to four seats, every kind; the match's rules judge the rest.
        Drawn, a deal's form is the sheet's (views.sheet.entry_form)."""
        return cls(data, side_names=("", ""), seat_names=("",) * 4, claims_allowed=True)

    @property
    def sweeps_by_one(self) -> bool:
        """A match of four: a player may sweep alone (a cappottone, a stramazzone)."""
        return len(self.seat_names) == 2 * 2

    @property
    def columns(self) -> list[tuple[str, forms.BoundField, forms.BoundField, forms.BoundField]]:
        """Each side's column: its name, card points (tapped, or typed) and declarations."""
        return [
            (name, self[f"card_pad_{side}"], self[f"card_points_{side}"],
             self[f"declared_points_{side}"])
            for side, name in enumerate(self.side_names)
        ]  # fmt: skip

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        kind = rules.DealKind(data["kind"])
        side = data.get("side") if kind is not rules.DealKind.NORMAL else None
        seat = data.get("seat") if kind in rules.SWEEPS_BY_ONE else None
        if kind in rules.SWEEPS_BY_ONE:  # the side is the player's: the side's chips unread
            side = None if seat is None else rules.seat_player(seat)[0]
        typed = [data.get(f"card_points_{side}") for side in (0, 1)]
        tapped = [data.get(f"card_pad_{side}") for side in (0, 1)]
        first, second = (t if t is not None else p for t, p in zip(typed, tapped, strict=True))
        if first is None and second is None:
            first, second = self._counted(kind) or (None, None)
        try:
            cards = rules.complete_card_points(first, second, kind=kind, side=side)
        except rules.RuleError as error:
            self.add_rule_error(error)
            return data
        declared = (data["declared_points_0"] or 0, data["declared_points_1"] or 0)
        data["entry"] = rules.DealEntry(cards, declared, kind, side, seat)
        return data

    def _counted(self, kind: rules.DealKind) -> tuple[int, int | None] | None:
        """No card points given, but the pile counted and Save tapped without Fill in card
        points: the count's, as that button would have filled them in; None if it does not
        say them."""
        if not (self.data.get("aces") or self.data.get("figures")):
            return None
        claim = kind is rules.DealKind.CLAIM
        count = CountForm(self.data, side_names=self.side_names, claim=claim)
        return count.cleaned_data["card_points"] if count.is_valid() else None

    def add_rule_error(self, error: rules.RuleError) -> None:
        """Said beside the field of the part it is about: a side's own, or the first side's
        card points for card points missing altogether; else over the whole form."""
        in_column = error.part in ("card_points", "declared_points")
        if in_column:
            field = f"{error.part}_{error.side or 0}"
        else:
            field = error.part if error.part in ("kind", "side", "seat") else None
        self.add_error(field, rule_message(error, in_column=in_column))


class EditDealForm(DealForm):
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=1)


class CountForm(StaleOnHidden, Form):
    """Count one side's pile: aces, figures and the last trick give both sides' card points;
    in a claim (`claim`) only the counted side's, and the last trick was never played."""

    count_side = forms.TypedChoiceField(
        label=_("Whose pile"),
        coerce=int,
        initial=0,
        widget=Chips,
        error_messages=_pick(_("Pick whose pile you counted.")),
    )
    aces = NumberField(label=_("Aces"))
    figures = NumberField(label=_("Figures"))
    last_trick = forms.BooleanField(
        label=_("Took the last trick"), required=False, template_name="matches/fields/checkbox.html"
    )

    def __init__(self, *args, side_names: tuple[str, str], claim: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["count_side"].choices = list(enumerate(side_names))
        self.claim = claim

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            counted = rules.card_points_from_count(
                aces=data["aces"] or 0,
                figures=data["figures"] or 0,
                last_trick=data["last_trick"],
                claim=self.claim,
            )
        except rules.RuleError as error:
            field = error.part if error.part in ("aces", "figures") else None
            self.add_error(field, rule_message(error))
            return data
        data["card_points"] = counted if data["count_side"] == 0 else counted[::-1]
        return data


# --- Terziglio -----------------------------------------------------------------------------


SEATS = [_("First player"), _("Second player"), _("Third player"), _("Fourth player"),
         _("Fifth player")]  # fmt: skip


class AloneMatchForm(StaleOnHidden, Form):
    """A new match each for themselves: its players' seats first, then its terms."""

    @property
    def seats(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name.startswith("player_")]

    @property
    def terms(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if not name.startswith("player_")]


class TerziglioMatchForm(AloneMatchForm):
    """A match of three: the players in seat order (the deal passes to the right, the next
    seat), who deals first, how a deal pays and when the match ends."""

    NAME = "new-terziglio"  # the form's id on its page, and its draft's
    HOUSE_LINES = rules.HOUSE_LINES
    player_0 = _seat(SEATS[0])
    player_1 = _seat(SEATS[1])
    player_2 = _seat(SEATS[2])
    first_dealer = forms.TypedChoiceField(
        label=_("Who deals first"),
        choices=list(enumerate(SEATS[: rules.TERZIGLIO_PLAYERS])),
        coerce=int,
        initial=0,
        widget=Seats,
        error_messages=_pick(_("Pick who deals first.")),
    )
    payment = forms.TypedChoiceField(
        label=_("What a deal pays"),
        choices=PAYMENTS,
        coerce=rules.Payment,
        initial=rules.Payment.DIFFERENCE,
        widget=Choices,
        help_text=_("Chiamo pays once, solo twice, solissimo three times."),
        error_messages=_pick(_("Pick what a deal pays.")),
    )
    end = forms.TypedChoiceField(
        label=_("The match ends"),
        choices=TERZIGLIO_ENDS,
        coerce=rules.TerziglioEnd,
        initial=rules.TerziglioEnd.LINE,
        widget=Choices,
        error_messages=_pick(_("Pick when the match ends.")),
    )
    line = SettingsForm.base_fields["line"]
    deals = NumberField(
        label=_("Deals, if the match ends after a number of them"),
        initial=rules.DEFAULT_DEALS,
        help_text=_("12: each player deals four times."),
    )

    def clean(self):
        data = super().clean()
        names = [data.get(f"player_{seat}") for seat in range(rules.TERZIGLIO_PLAYERS)]
        for seat, name in enumerate(names):
            if not name and f"player_{seat}" not in self.errors:
                self.add_error(f"player_{seat}", _("Type a name or pick a player."))
        if self.errors:
            return data
        players = [[name] for name in names]
        seating = rules.seating_errors(players, names, data["first_dealer"], rules.Game.TERZIGLIO)
        for error in seating:
            if error.part == "seat":
                message = _("This player already sits at this match.")
                self.add_error(f"player_{error.params['seat']}", message)
            else:
                self.add_error(None, rule_message(error))
        try:
            deals = data["deals"] if data["deals"] is not None else rules.DEFAULT_DEALS
            data["terms"] = rules.TerziglioTerms(data["payment"], data["end"], data["line"], deals)
        except rules.RuleError as error:
            self.add_error("deals" if error.part == "deals" else None, rule_message(error))
        data["players"] = players
        return data


class SoloDealForm(NextDeal):
    """A Terziglio deal: who played alone, their bid and the card points they took (tapped
    or typed; what is typed counts first); or all three passed, a monte (its own button)."""

    soloist = forms.TypedChoiceField(
        label=_("Who played alone"),
        coerce=int,
        required=False,
        empty_value=None,
        widget=Chips,
        error_messages={"invalid_choice": _("Pick one of the three players.")},
    )
    bid = forms.ChoiceField(
        label=_("Bid"),
        choices=[choice for choice in BIDS if choice[0] in BIDS_PLAYED],
        required=False,
        widget=Chips,
        error_messages={"invalid_choice": _("Pick chiamo, solo or solissimo.")},
    )
    card_pad = PadField(_("Card points of the one who played alone"))
    card_points = NumberField(label=_("Card points"), most=11, card_points=True)
    a_monte = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, player_names: Sequence[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.player_names = tuple(player_names)
        self.fields["soloist"].choices = list(enumerate(self.player_names))
        self.fields["card_points"].template_name = "matches/fields/typed.html"

    @classmethod
    def typed(cls, data) -> "SoloDealForm":
        """What was typed, read before the match is (the service reads it, locked)."""
        return cls(data, player_names=("",) * rules.TERZIGLIO_PLAYERS)

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        if data["a_monte"]:
            data["entry"] = rules.TerziglioEntry()
            return data
        typed, tapped = data.get("card_points"), data.get("card_pad")
        cards = typed if typed is not None else tapped
        entry = rules.TerziglioEntry(data["soloist"], data["bid"] or None, cards)
        if entry.a_monte:  # nothing given: a monte is said by its own button, not by Save
            self.add_rule_error(rules.RuleError("terziglio_soloist_required", part="soloist"))
            return data
        data["entry"] = entry
        return data

    def add_rule_error(self, error: rules.RuleError) -> None:
        field = {"soloist": "soloist", "bid": "bid", "card_points": "card_points"}.get(error.part)
        self.add_error(field, rule_message(error))


class EditSoloDealForm(SoloDealForm):
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=1)


# --- Tressette a perdere ------------------------------------------------------------------


class APerdereMatchForm(AloneMatchForm):
    """A match a perdere: three to five players in seat order (the deal passes to the right),
    who deals first, the line, how the match ends, what becomes of the thirds, and whether
    taking every point is the reversed sweep."""

    NAME = "new-a-perdere"
    HOUSE_LINES = rules.HOUSE_LINES
    player_0 = _seat(SEATS[0])
    player_1 = _seat(SEATS[1])
    player_2 = _seat(SEATS[2])
    player_3 = _seat(_("Fourth player, if four or five play"), optional=True)
    player_4 = _seat(_("Fifth player, if five play"), optional=True)
    first_dealer = forms.TypedChoiceField(
        label=_("Who deals first"),
        choices=list(enumerate(SEATS)),
        coerce=int,
        initial=0,
        widget=Seats,
        error_messages=_pick(_("Pick who deals first.")),
    )
    line = LineField(
        label=_("Line"),
        initial=rules.DEFAULT_LINE,
        widget=SettingsForm.base_fields["line"].widget,
        help_text=_(
            "Reaching it puts a player out, or ends the match: 21, 31, 41 or any whole number "
            "from 11 to 101."
        ),
        error_messages={"required": _("Type the line, like 21.")},
    )
    end = forms.TypedChoiceField(
        label=_("The match ends"),
        choices=A_PERDERE_ENDS,
        coerce=rules.APerdereEnd,
        initial=rules.APerdereEnd.LAST_IN,
        widget=Choices,
        error_messages=_pick(_("Pick when the match ends.")),
    )
    fractions = forms.TypedChoiceField(
        label=_("The thirds a count leaves over"),
        choices=FRACTIONS,
        coerce=rules.Fractions,
        initial=rules.Fractions.OWN,
        widget=Choices,
        error_messages=_pick(_("Pick what becomes of the thirds.")),
    )
    reversed_sweep = forms.BooleanField(
        label=_("Taking every point is the reversed sweep: 0 for the taker, 11 to everyone else"),
        required=False,
        initial=True,
        template_name="matches/fields/checkbox.html",
    )

    def clean(self):
        data = super().clean()
        names = [data.get(f"player_{seat}") for seat in range(max(rules.A_PERDERE_PLAYERS))]
        playing = len(names) - next(
            (count for count, name in enumerate(reversed(names)) if name), len(names)
        )
        least = rules.A_PERDERE_PLAYERS[0]
        for seat, name in enumerate(names[: max(playing, least)]):
            if not name and f"player_{seat}" not in self.errors:
                self.add_error(f"player_{seat}", _("Type a name or pick a player."))
        if self.errors:
            return data
        players = [[name] for name in names[:playing]]
        game = rules.Game.A_PERDERE
        for error in rules.seating_errors(players, names[:playing], data["first_dealer"], game):
            if error.part == "seat":
                message = _("This player already sits at this match.")
                self.add_error(f"player_{error.params['seat']}", message)
            elif error.part == "first_dealer":
                self.add_error("first_dealer", rule_message(error))
            else:
                self.add_error(None, rule_message(error))
        data["terms"] = rules.APerdereTerms(
            data["line"], data["end"], data["fractions"], data["reversed_sweep"]
        )
        data["players"] = players
        return data


class APerdereDealForm(NextDeal):
    """A deal a perdere: each player's card points, the last trick included, typed whole
    (each drops their own thirds: "3⅔" is refused, saying so); a player out is sent as 0,
    unasked. Or who took every point, where the table plays the reversed sweep (a tap: no
    numbers needed)."""

    players = forms.TypedChoiceField(
        choices=[(count, count) for count in rules.A_PERDERE_PLAYERS],
        coerce=int,
        widget=forms.HiddenInput,
    )
    sweeper = forms.TypedChoiceField(
        label=_("Took every point"),
        coerce=int,
        required=False,
        empty_value=None,
        initial="",
        widget=Chips,
        error_messages={"invalid_choice": _("Pick one of the players still in.")},
    )

    def __init__(
        self,
        *args,
        player_names: Sequence[str],
        out: Sequence[bool] = (),
        sweep: bool = True,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.player_names = tuple(player_names)
        self.out = tuple(out) or (False,) * len(self.player_names)
        self.sweep = sweep  # the reversed sweep is played: who took every point is asked
        self.fields["players"].initial = len(self.player_names)
        self.fields["sweeper"].choices = [("", _("No one"))] + [
            (seat, name) for seat, name in enumerate(self.player_names) if not self.out[seat]
        ]
        for seat, name in enumerate(self.player_names):
            field = NumberField(label=name, most=rules.CARD_POINTS_PER_DEAL, card_points=True)
            field.widget = forms.TextInput({**NumberField.widget.attrs, "data-player": seat})
            self.fields[f"card_points_{seat}"] = field

    @classmethod
    def typed(cls, data) -> "APerdereDealForm":
        """What was typed, read before the match is: as many players as the form says."""
        count = plain_count(data.get("players"))
        return cls(data, player_names=("",) * count)

    @property
    def seats(self) -> list[tuple[forms.BoundField, bool]]:
        """Each player's card points, and whether the player is out."""
        return [(self[f"card_points_{seat}"], out) for seat, out in enumerate(self.out)]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        if data["players"] != len(self.player_names):
            self.add_error(None, STALE_PAGE)
            return data
        sweeper = data.get("sweeper")
        if sweeper is not None:  # the tap says it all, whatever numbers were typed
            data["entry"] = rules.APerdereEntry.swept(sweeper, len(self.player_names))
            return data
        cards = [data.get(f"card_points_{seat}") for seat in range(len(self.player_names))]
        missing = [
            seat for seat, points in enumerate(cards) if points is None and not self.out[seat]
        ]
        for seat in missing:
            message = _("Type %(player)s's card points: 0 if none.")
            self.add_error(
                f"card_points_{seat}", message % {"player": self.player_names[seat] or seat + 1}
            )
        if not missing:
            data["entry"] = rules.APerdereEntry([points or 0 for points in cards])
        return data

    def add_rule_error(self, error: rules.RuleError) -> None:
        """Said beside the field it is about, where the form draws one (not for a player out,
        nor who took every point where the table does not play it); else over the form."""
        field = None
        if error.part == "card_points" and error.side is not None and not self.out[error.side]:
            field = f"card_points_{error.side}"
        elif error.part == "sweeper" and self.sweep:
            field = "sweeper"
        self.add_error(field, rule_message(error))


class EditAPerdereDealForm(APerdereDealForm):
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=1)


def plain_count(value: object) -> int:
    """The players a deal's form says it was drawn for; the most there can be, if it says
    nothing plain (the form then refuses it as out of date)."""
    text = str(value or "")
    return (
        int(text)
        if text in {str(n) for n in rules.A_PERDERE_PLAYERS}
        else max(rules.A_PERDERE_PLAYERS)
    )


AnyDealForm = DealForm | SoloDealForm | APerdereDealForm


def typed_deal(data) -> AnyDealForm:
    """A deal's form as sent, by the game it says it is of, read before the match is (the
    service reads it, locked, and refuses a deal of another game)."""
    forms_by_game = {rules.Game.TERZIGLIO: SoloDealForm, rules.Game.A_PERDERE: APerdereDealForm}
    return forms_by_game.get(data.get("game"), DealForm).typed(data)


def deal_form(
    game: rules.Game,
    data=None,
    *,
    edit: bool = False,
    side_names=(),
    out=(),
    sweep: bool = True,
    **kwargs,
) -> AnyDealForm:
    """The form of a deal of this game (`edit`: of one on the sheet), for these sides (at a
    perdere, `out`: whether each player is out; `sweep`: the table plays the reversed sweep)."""
    if game is rules.Game.TRESSETTE:
        return (EditDealForm if edit else DealForm)(data, side_names=side_names, **kwargs)
    kwargs = {key: value for key, value in kwargs.items() if key == "initial"}
    if game is rules.Game.A_PERDERE:
        form = EditAPerdereDealForm if edit else APerdereDealForm
        return form(data, player_names=side_names, out=out, sweep=sweep, **kwargs)
    return (EditSoloDealForm if edit else SoloDealForm)(data, player_names=side_names, **kwargs)
