"""Numbers as typed on a phone: forms.read_number, which the deal's fields read with."""

import pytest
from django.core.exceptions import ValidationError
from hypothesis import given
from hypothesis import strategies as st

from matches.forms import read_number
from tests.alarm import fails_after


def said(error: ValidationError) -> str:
    return error.messages[0]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("7", 7),
        (" 07 ", 7),
        ("0", 0),
        ("000000000011", 11),
        ("\uff17", 7),  # a full-width keypad's 7
        ("\u0663", 3),  # an Arabic-Indic 3
        ("\uff10\uff10\uff10\uff10\uff17", 7),  # leading zeros of any script
        ("\u0660" * 5 + "7", 7),
    ],
)
def test_an_entry_is_read_as_a_whole_number(raw, expected):
    assert read_number(raw, label="Card points", most=11, card_points=True) == expected


DROPPED = "Card points must be a whole number: each side drops its own fraction, so "


@pytest.mark.parametrize(
    ("raw", "code", "message"),
    [
        ("", "blank", "Card points is empty: enter a whole number, like 7."),
        ("   ", "blank", "Card points is empty: enter a whole number, like 7."),
        ("-3", "negative", "Card points cannot be negative."),
        ("\u22123", "negative", "Card points cannot be negative."),
        ("-3.5", "negative", "Card points cannot be negative."),
        (
            "3.5",
            "fraction_dropped",
            "Card points must be a whole number: each side drops its own fraction, so 3.5 is 3.",
        ),
        ("abc", "not_a_number", "Card points must be a number, like 7."),
        ("7a", "not_a_number", "Card points must be a number, like 7."),
        ("1e3", "not_a_number", "Card points must be a number, like 7."),
        ("٣/", "not_a_number", "Card points must be a number, like 7."),
        ("7/3", "not_a_number", "Card points must be a number, like 7."),
        (
            "7.",
            "fraction_dropped",
            "Card points must be a whole number: each side drops its own fraction, so 7. is 7.",
        ),
        (
            "7.33",
            "fraction_dropped",
            "Card points must be a whole number: each side drops its own fraction, so 7.33 is 7.",
        ),
        (
            "7 ⅔",
            "fraction_dropped",
            "Card points must be a whole number: each side drops its own fraction, so 7 ⅔ is 7.",
        ),
        (
            ",5",
            "fraction_dropped",
            "Card points must be a whole number: each side drops its own fraction, so ,5 is 0.",
        ),
        ("⅓", "fraction_dropped", DROPPED + "⅓ is 0."),
        ("7.333333333", "fraction_dropped", DROPPED + "7.33333… is 7."),
        ("12⅓", "not_whole", "Card points must be a whole number, like 7."),  # over 11 anyway
        ("1" * 5000 + ".5", "too_large", "Card points is too large: at most 11."),
        ("1" * 5000 + "⅓", "too_large", "Card points is too large: at most 11."),
        ("1000", "too_large", "Card points is too large: at most 11."),
        ("9" * 5000, "too_large", "Card points is too large: at most 11."),
    ],
)
def test_a_bad_entry_gets_a_message_in_words(raw, code, message):
    with pytest.raises(ValidationError) as caught:
        read_number(raw, label="Card points", most=11, card_points=True)
    assert (caught.value.code, said(caught.value)) == (code, message)


def test_a_number_past_any_count_is_said_at_the_most_of_what_was_typed():
    # Card points at most 11 (the limit 999 of every entry would say nothing of the deal).
    with pytest.raises(ValidationError) as cards:
        read_number("9" * 20, label="Card points", most=11, card_points=True)
    assert said(cards.value) == "Card points is too large: at most 11."
    with pytest.raises(ValidationError) as declared:
        read_number("1000", label="Declarations", sums=True)
    assert said(declared.value) == "Declarations is too large: at most 999."


@given(st.text())
def test_whatever_is_typed_is_a_whole_number_or_a_message_in_words(raw):
    try:
        value = read_number(raw, label="Declared points", sums=True)
    except ValidationError as error:
        assert said(error).startswith("Declared points ")
    else:
        assert isinstance(value, int)
        assert 0 <= value <= 999


@given(st.integers(min_value=0, max_value=999))
def test_every_whole_number_typed_reads_back(number):
    assert read_number(f" {number} ", label="X") == number


@pytest.mark.parametrize("raw", ["-" + "1" * 100_000 + "x", "1" * 100_000 + ".5.5", "-1" * 50_000])
def test_a_huge_typed_string_is_refused_in_one_pass(raw):
    """Anyone with the scorer link could post one: a pattern that tried every split of its
    digits took minutes on 100,000 of them. The alarm fails the test long before."""
    hang = fails_after(5, "read_number backtracks: a long string hangs a worker")
    with hang, pytest.raises(ValidationError):
        read_number(raw, label="Card points", most=11, card_points=True)


def test_only_card_points_are_told_to_drop_a_fraction():
    """Thirds are a card-points thing: a declaration or a count is simply whole."""
    with pytest.raises(ValidationError) as caught:
        read_number("3,5", label="Declarations", sums=True)
    assert said(caught.value) == "Declarations must be a whole number, like 7."


@pytest.mark.parametrize(
    ("typed", "declared"), [("3+4", 7), ("+3", 3), (" 4 + 3 ", 7), ("+3+4", 7)]
)
def test_declarations_may_be_typed_as_the_chips_add_them_up(typed, declared):
    assert read_number(typed, label="Declarations", sums=True) == declared


@pytest.mark.parametrize("typed", ["3++4", "3+", "+", "3 4"])
def test_a_sum_of_declarations_half_typed_is_refused(typed):
    with pytest.raises(ValidationError) as caught:
        read_number(typed, label="Declarations", sums=True)
    assert said(caught.value) == "Declarations must be a number, like 7."


def test_card_points_are_one_number_not_a_sum():
    with pytest.raises(ValidationError) as caught:
        read_number("3+4", label="Card points", most=11, card_points=True)
    assert caught.value.code == "not_a_number"


def test_a_sum_of_declarations_longer_than_any_table_types_is_refused_unread():
    slow = fails_after(1, "a long sum of declarations is read part by part")
    with slow, pytest.raises(ValidationError) as caught:
        read_number("1+" * 1_200_000 + "1", label="Declarations", sums=True)
    assert said(caught.value) == "Declarations must be a number, like 7."
