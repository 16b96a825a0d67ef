"""Parse and validate what people type. Every scoring rule is asked of `matches.rules`."""

import re
import unicodedata

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as translate
from django.utils.translation import gettext_lazy as _

from matches import rules
from matches.models import (
    NAME_MAX,
    SIDE_NAME_MAX,
    TABLE_NAME_MAX,
    DealKind,
    Player,
    TieRule,
    name_key,
)

ZWJ = "\u200d"
# The numeric keypad, with no `pattern`: the browser would refuse "7⅓" or " 7" with its own
# bubble, in its own language, before the app could read or explain them.
NUMERIC = {"inputmode": "numeric", "autocomplete": "off", "size": "3"}


# The fields of one side's column, which its name heads.
SIDE_FIELDS = ("card_points_", "declared_points_")


def rule_error(error: rules.RuleError, *, in_column: bool = False) -> ValidationError:
    """A rules message, translated into the language of the request. Shown `in_column`, under
    a field of the side's own column, it does not name the side again ("Alice & Carla: card
    points cannot…" is "Card points cannot…" there): a long name ran to lines of its own."""
    template = translate(error.template)
    if in_column and template.startswith("%(side)s: "):
        template = template.removeprefix("%(side)s: ")
        template = template[:1].upper() + template[1:]
    return ValidationError(template, code=error.code, params=error.params)


def add_rule_errors(form: forms.Form, invalid: rules.DealInvalid) -> None:
    for error in invalid.errors:
        field = error.field if error.field in form.fields else None
        in_column = field is not None and field.startswith(SIDE_FIELDS)
        form.add_error(field, rule_error(error, in_column=in_column))


def rule_messages(invalid: rules.DealInvalid) -> str:
    """Every broken rule in words, translated, for a refusal shown away from a form: naming
    the deal, which the page may not show (new settings can break a deal far up the sheet)."""
    said = " ".join(message for error in invalid.errors for message in rule_error(error).messages)
    number = invalid.errors[0].deal_number if invalid.errors else None
    if number is None:
        return said
    return _("Deal %(number)s: %(message)s") % {"number": number, "message": said}


STALE_PAGE = _("This page is out of date: reload it and try again.")


class FormWideErrors:
    """Errors of fields the page has no message slot for become the whole form's.

    Hidden fields fail only on a page from an older version or one tampered with: that is
    said in words. Radio choices fail only so too; their own messages name the choice.
    """

    form_wide: tuple[str, ...] = ()

    def _post_clean(self) -> None:
        super()._post_clean()
        for name in self.form_wide:
            errors = self._errors.pop(name, None)
            if not errors:
                continue
            for message in [STALE_PAGE] if self.fields[name].widget.is_hidden else errors:
                if message not in self.non_field_errors():
                    self.add_error(None, message)


EMOJI_BLOCKS = (0x1F000, 0x1FAFF)  # Mahjong tiles to Symbols and Pictographs Extended-A
# The flags of England, Scotland and Wales: a black flag, tag letters, a cancel tag.
_TAG_FLAG = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")


def hides_something(text: str) -> bool:
    """Does `text` hold a control, format or private character, or one Unicode has not
    assigned? A name could hide it: "Alice" and "Alice" + U+2065 look alike. The zero-width
    joiner is let in (emoji such as 👩‍🍳 need it), and so are the tags of a flag and emoji
    newer than this Python's Unicode (unassigned to it, but from the emoji blocks)."""
    return any(map(_unseen_or_unknown, _TAG_FLAG.sub("", text)))


def _unseen_or_unknown(char: str) -> bool:
    category = unicodedata.category(char)
    if category == "Cn":
        return not EMOJI_BLOCKS[0] <= ord(char) <= EMOJI_BLOCKS[1]
    return category in {"Cc", "Cf", "Co", "Cs"} and char != ZWJ


def clean_name(value: str, *, max_length: int) -> str:
    """A name as people type it: trimmed, one space between words, no control characters."""
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
    """A free-text name; the length is checked after trimming, with a message in words."""

    def __init__(self, *, max_length: int, **kwargs) -> None:
        self.name_max = max_length
        kwargs.setdefault("widget", forms.TextInput(attrs={"autocomplete": "off"}))
        super().__init__(**kwargs)

    def clean(self, value):
        value = clean_name(super().clean(value), max_length=self.name_max)
        if self.required and not value:
            raise ValidationError(self.error_messages["required"], code="required")
        return value


# About 40,000 deals. Checking a file takes memory many times its size: a bigger history
# goes in from the server's command line (manage.py import_table), which has no such cap.
IMPORT_MAX_BYTES = 20 * 1024 * 1024


class ImportForm(forms.Form):
    file = forms.FileField(
        label=_("A JSON export"),
        help_text=_("Restores a table exported from this app, as a new table with new links."),
        error_messages={"required": _("Choose the .json file of an export.")},
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


TOO_LARGE = _("The file is too large: at most %(max)s MB.")
_IMPORT_MAX_MB = {"max": IMPORT_MAX_BYTES // (1024 * 1024)}


def too_large_upload(content_length: str | None) -> str | None:
    """The refusal of a body that says it is larger than any import may be, else None.

    Read from the request's Content-Length before the body: a huge upload is then never
    written to disk. (The form checks the file itself too, for a body without a length.)
    """
    try:
        size = int(content_length or 0)
    except ValueError:
        return None
    # The file, and the form's other fields and boundaries around it.
    return TOO_LARGE % _IMPORT_MAX_MB if size > IMPORT_MAX_BYTES + 64 * 1024 else None


class PlayerForm(forms.Form):
    name = NameField(
        label=_("Player name"),
        max_length=NAME_MAX,
        error_messages={"required": _("Type the player's name.")},
    )


class MergeForm(forms.Form):
    """Which other player of the table a player is the same person as."""

    into = forms.ModelChoiceField(
        queryset=Player.objects.none(),
        error_messages={
            "required": _("Choose another player of this table."),
            "invalid_choice": _("Choose another player of this table."),
        },
    )

    def __init__(self, data, *, player: Player) -> None:
        super().__init__(data)
        self.fields["into"].queryset = player.table.players.exclude(pk=player.pk)


def _phone_label() -> NameField:
    return NameField(
        label=_("This phone's name"),
        max_length=NAME_MAX,
        required=False,
        help_text=_("Shown in the match history beside each change, e.g. “Carla's phone”."),
    )


class JoinForm(forms.Form):
    label = _phone_label()


class TableForm(forms.Form):
    """A new table, and the name of the phone that makes it (as a joining phone gives)."""

    label = _phone_label()
    name = NameField(
        label=_("Table name"),
        max_length=TABLE_NAME_MAX,
        error_messages={"required": _("Give the table a name, like “Bar Sport”.")},
    )


class LineField(forms.CharField):
    def clean(self, value):
        try:
            return rules.check_line(super().clean(value))
        except rules.RuleError as error:
            raise rule_error(error) from None


def _pick(message) -> dict:
    """A choice's messages: whether nothing or something unknown was sent, say what to pick."""
    return {"required": message, "invalid_choice": message}


class SettingsForm(FormWideErrors, forms.Form):
    form_wide = ("tie_rule",)

    line = LineField(
        label=_("Line"),
        initial=rules.DEFAULT_LINE,
        widget=forms.TextInput(attrs={**NUMERIC, "list": "common-lines"}),
        help_text=_("The total that wins: 21, 31, 41 or any whole number from 11 to 101."),
        error_messages={"required": _("Type the line: the total that wins, like 21.")},
    )
    tie_rule = forms.ChoiceField(
        label=_("When both sides pass the line on the same deal"),
        choices=TieRule,
        initial=TieRule.HIGHER_TOTAL,
        widget=forms.RadioSelect,
        error_messages=_pick(_("Pick what happens when both sides pass the line together.")),
    )
    claims_allowed = forms.BooleanField(
        label=_("Claims allowed (a side may stop a deal and claim the line)"), required=False
    )


SEAT_LABELS = [
    _("Side 1, first player"),
    _("Side 2, first player"),
    _("Side 1, second player"),
    _("Side 2, second player"),
]


class NewMatchForm(SettingsForm):
    form_wide = ("tie_rule", "players_per_side")

    players_per_side = forms.TypedChoiceField(
        label=_("Players"),
        choices=[(2, _("Four players, two a side")), (1, _("Two players (Tressette in due)"))],
        coerce=int,
        initial=2,
        widget=forms.RadioSelect,
        error_messages=_pick(_("Pick four players, two a side, or two players.")),
    )
    player_0 = NameField(label=_("First player"), max_length=NAME_MAX, required=False)
    player_2 = NameField(label=_("Partner"), max_length=NAME_MAX, required=False)
    player_1 = NameField(label=_("First player"), max_length=NAME_MAX, required=False)
    player_3 = NameField(label=_("Partner"), max_length=NAME_MAX, required=False)
    side_name_0 = NameField(label=_("Side name"), max_length=SIDE_NAME_MAX, required=False)
    side_name_1 = NameField(label=_("Side name"), max_length=SIDE_NAME_MAX, required=False)
    first_dealer = forms.TypedChoiceField(
        label=_("Who deals first"),
        choices=list(enumerate(SEAT_LABELS)),
        coerce=int,
        initial=0,
        widget=forms.RadioSelect,
        error_messages=_pick(_("Pick who deals first.")),
    )

    def clean(self):
        data = super().clean()
        seats = 2 * (data.get("players_per_side") or 2)
        if seats == 2:  # in due the partners' fields are hidden, and what they hold unread
            for seat in (2, 3):
                self.errors.pop(f"player_{seat}", None)
        names = {seat: data.get(f"player_{seat}", "") for seat in range(seats)}
        for seat, name in names.items():
            if not name and f"player_{seat}" not in self.errors:
                self.add_error(f"player_{seat}", _("Type a name or pick a player."))
        seen: dict[str, int] = {}
        for seat, name in names.items():
            if name and name_key(name) in seen:
                self.add_error(f"player_{seat}", _("This player already sits at this match."))
            seen.setdefault(name_key(name), seat)
        if data.get("first_dealer", 0) >= seats:
            self.add_error("first_dealer", _("Pick one of the players at the match."))
        if not self.errors:
            data["players"] = [[names[seat] for seat in range(side, seats, 2)] for side in (0, 1)]
        return data


class EntryField(forms.CharField):
    """A number typed on the phone's numeric keypad; `rules.parse_entry` reads it (and says
    in words what is wrong with one of any length)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(required=False, widget=forms.TextInput(attrs=NUMERIC), **kwargs)


def entry_data(entry: rules.DealEntry) -> dict[str, str]:
    """What a phone sends for `entry`, to put a deal in a form again."""
    data = {"kind": str(entry.kind), "side": "" if entry.side is None else str(entry.side)}
    for side in (0, 1):
        data[f"card_points_{side}"] = str(entry.card_points[side])
        data[f"declared_points_{side}"] = str(entry.declared_points[side])
    return data


class DealForm(FormWideErrors, forms.Form):
    """One deal: per side its card points and declarations, the kind and the sweeping side."""

    form_wide = ("number", "key")

    number = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    key = forms.CharField(widget=forms.HiddenInput, required=False, max_length=64)
    # Every kind is read, a claim too: whether this match allows claims is the rules' to say.
    kind = forms.ChoiceField(
        label=_("Deal"),
        choices=DealKind,
        initial=DealKind.NORMAL,
        widget=forms.RadioSelect,
        error_messages=_pick(_("Pick the kind of deal.")),
    )
    side = forms.TypedChoiceField(
        label=_("Which side"),
        coerce=int,
        required=False,
        empty_value=None,
        widget=forms.RadioSelect,
        error_messages={"invalid_choice": _("Pick one of the two sides.")},
    )
    card_points_0 = EntryField(label=_("Card points"))
    declared_points_0 = EntryField(label=_("Declarations"))
    card_points_1 = EntryField(label=_("Card points"))
    declared_points_1 = EntryField(label=_("Declarations"))

    def __init__(self, *args, side_names: tuple[str, str], claims_allowed: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.side_names = side_names
        self.claims_allowed = claims_allowed
        self.fields["side"].choices = list(enumerate(side_names))

    @property
    def kinds(self) -> list[tuple[str, str]]:
        """The kinds of deal the form offers: a claim only where the match allows claims."""
        claim = DealKind.CLAIM
        return [kind for kind in DealKind.choices if self.claims_allowed or kind[0] != claim]

    def _read(self, field: str) -> int | None:
        raw = self.cleaned_data.get(field, "")
        if raw in ("", None):
            return None
        try:  # said under the field, in the side's own column: named by the field alone
            return rules.parse_entry(raw, field=field, label=str(self.fields[field].label))
        except rules.RuleError as error:
            self.add_error(field, rule_error(error))
            return None

    def clean(self):
        data = super().clean()
        cards = [self._read(f"card_points_{i}") for i in (0, 1)]
        declared = [self._read(f"declared_points_{i}") for i in (0, 1)]
        if self.errors:
            return data
        try:
            card_points = rules.complete_card_points(
                cards[0], cards[1], kind=data.get("kind"), side=data.get("side")
            )
        except rules.RuleError as error:
            self.add_error(error.field or "card_points_0", rule_error(error))
            return data
        data["entry"] = rules.DealEntry(
            card_points=card_points,
            declared_points=(declared[0] or 0, declared[1] or 0),
            kind=rules.DealKind(data.get("kind") or DealKind.NORMAL),
            side=data.get("side") if data.get("kind") != DealKind.NORMAL else None,
        )
        return data


class EditDealForm(DealForm):
    form_wide = ("number", "key", "version")

    version = forms.IntegerField(widget=forms.HiddenInput, min_value=1)


class CountForm(FormWideErrors, forms.Form):
    """Count one side's pile: aces, figures and the last trick give both sides' card points.

    In a claim (`claim`) only the counted side's, and the last trick was never played.
    """

    form_wide = ("count_side", "last_trick")

    count_side = forms.TypedChoiceField(
        label=_("Whose pile"),
        coerce=int,
        widget=forms.RadioSelect,
        error_messages=_pick(_("Pick whose pile you counted.")),
    )
    aces = EntryField(label=_("Aces"))
    figures = EntryField(label=_("Figures (3, 2, king, cavallo, fante)"))
    last_trick = forms.BooleanField(label=_("Took the last trick"), required=False)

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
                aces=rules.parse_entry(data["aces"] or "0", field="aces", label=str(_("Aces"))),
                figures=rules.parse_entry(
                    data["figures"] or "0", field="figures", label=str(_("Figures"))
                ),
                last_trick=data["last_trick"],
                claim=self.claim,
            )
        except rules.RuleError as error:
            self.add_error(error.field if error.field in self.fields else None, rule_error(error))
            return data
        side = data["count_side"]
        data["card_points"] = counted if side == 0 else counted[::-1]
        return data
