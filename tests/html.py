"""Reading pages as the people at the table see them: parsed HTML, its words and fields."""

from bs4 import BeautifulSoup, Tag


def parsed(response) -> BeautifulSoup:
    """A page or an HTMX answer, parsed."""
    return BeautifulSoup(response.content.decode(), "html.parser")


def words(element: Tag | BeautifulSoup | None) -> str:
    """What an element says, its whitespace as a reader takes it: "" for no element."""
    return " ".join(element.get_text(" ").split()) if element is not None else ""


def said(response) -> str:
    """Everything a page or an answer says, in words."""
    return words(parsed(response))


def one(page: BeautifulSoup | Tag, selector: str) -> Tag:
    """The one element `selector` finds; an assertion error when there is none or many."""
    found = page.select(selector)
    assert len(found) == 1, f"{len(found)} elements for {selector!r}"
    return found[0]


def value(page: BeautifulSoup | Tag, name: str) -> str:
    """What a form's field `name` holds as drawn: a text input's value, a checked choice."""
    fields = page.select(f'[name="{name}"]')
    assert fields, f"no field {name!r}"
    if fields[0].get("type") in ("radio", "checkbox"):
        checked = [field.get("value", "on") for field in fields if field.has_attr("checked")]
        return checked[0] if checked else ""
    return fields[0].get("value", "")


def errors_of(page: BeautifulSoup | Tag, field_id: str) -> list[str]:
    """The messages said under a field (its error list, named by the field's id)."""
    found = page.select(f"#{field_id}_error li")
    return [words(item) for item in found]


def action(page: BeautifulSoup, button: Tag) -> str:
    """Where a button of the sheet's actions posts: its address, through the page's actions
    form (which carries the CSRF token), as a browser without JavaScript sends it."""
    form = one(page, f"form#{button['form']}")
    assert form["method"] == "post" and form.select_one("[name=csrfmiddlewaretoken]")
    return button["formaction"]


def csrf_token(response) -> str:
    """The CSRF token a page's forms send, as its script reads it (the secret it is masked
    from is kept in the phone's session)."""
    return parsed(response).select_one("[name=csrfmiddlewaretoken]")["value"]
