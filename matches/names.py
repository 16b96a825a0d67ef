"""What makes a name: when two names are the same player, where a name sorts, what it hides.

Plain Python (no Django): the rules' seating check, the models, the forms and the importer
all compare names here.
"""

import re
import unicodedata
from collections.abc import Sequence

ZWJ = "\u200d"
# Characters that change nothing one can see in a name: the joiner and variation selectors
# inside emoji (so 😀 and 😀 + U+FE0F are one name), Mongolian variation selectors, Khmer
# inherent vowels, and letters that draw as a blank.
_UNSEEN = re.compile("[\u200d\u034f\u180b-\u180f\u17b4\u17b5\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_BLANK = "\u3164\u2800\u115f\u1160\uffa0"
# The accents of Latin, Greek and Cyrillic letters, once apart from them (NFKD); not the vowel
# signs of scripts such as Devanagari, which make another name.
_ACCENTS = re.compile("[\u0300-\u036f]")
# Letters whose stroke or slash no decomposition takes off: "Łukasz" is Lukasz typed on a
# phone without Polish, as "Niccolò" is Niccolo. Applied after casefold (Ł is ł by then).
_PLAIN = str.maketrans(
    {"đ": "d", "ħ": "h", "\u0131": "i", "ł": "l", "ø": "o", "ŧ": "t", "æ": "ae", "œ": "oe"}
)
EMOJI_BLOCKS = (0x1F000, 0x1FAFF)  # Mahjong tiles to Symbols and Pictographs Extended-A
# The flags of England, Scotland and Wales: a black flag, tag letters, a cancel tag.
_TAG_FLAG = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")


def name_key(name: str) -> str:
    """What makes two names the same player: case (beyond A to Z), accents, unseen
    characters and compatibility forms (full-width letters, ligatures: NFKD) do not count.
    An empty key is no name at all, as are marks alone.

    >>> name_key("Élodie") == name_key("elodie"), name_key("Strauß") == name_key("STRAUSS")
    (True, True)
    >>> name_key("Łukasz") == name_key("Lukasz")
    True
    >>> name_key("\\uff21\\uff4c\\uff49\\uff43\\uff45") == name_key("alice")  # full-width
    True
    """
    key = _UNSEEN.sub("", name).strip(f"{_BLANK} \t\n")
    if all(unicodedata.category(char).startswith("M") for char in key):
        return ""
    return _ACCENTS.sub("", unicodedata.normalize("NFKD", key)).casefold().translate(_PLAIN)


def sort_key(name: str) -> tuple[str, str]:
    """Where a name goes in a list, as people alphabetise: accents, case and unseen
    characters aside (the name itself breaks ties). Databases sort A to Z only.

    >>> sorted(["Zoë", "Élodie", "Dino"], key=sort_key)
    ['Dino', 'Élodie', 'Zoë']
    """
    letters = unicodedata.normalize("NFKD", _UNSEEN.sub("", name))
    plain = "".join(c for c in letters if not unicodedata.combining(c))
    return plain.casefold().translate(_PLAIN), name


def pair_name(names: Sequence[str]) -> str:
    """A side named after its players: "Alice & Carla", or "Alice" alone in due."""
    return " & ".join(name.strip() for name in names)


def side_name(typed: str, players: Sequence[str]) -> str:
    """The name a side goes by: the one typed, unless it is blank or only its players'
    names spelled otherwise; then its players' names as the table spells them.

    >>> side_name("alice & CARLA", ["Alice", "Carla"]), side_name("Bar", ["Alice", "Carla"])
    ('Alice & Carla', 'Bar')
    """
    paired, typed = pair_name(players), typed.strip()
    return paired if name_key(typed) in ("", name_key(paired)) else typed


def hides_something(text: str) -> bool:
    """Does `text` hold a control, format or private character, or one Unicode has not
    assigned? "Alice" and "Alice" + U+2065 look alike. The zero-width joiner is let in
    (👩‍🍳 needs it), and so are a flag's tags and emoji newer than this Python."""
    return any(map(_unseen_or_unknown, _TAG_FLAG.sub("", text)))


def _unseen_or_unknown(char: str) -> bool:
    category = unicodedata.category(char)
    if category == "Cn":
        return not EMOJI_BLOCKS[0] <= ord(char) <= EMOJI_BLOCKS[1]
    return category in {"Cc", "Cf", "Co", "Cs"} and char != ZWJ
