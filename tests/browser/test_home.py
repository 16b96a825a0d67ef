import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_home_page_opens_on_a_phone(phone):
    phone.goto("/")
    assert phone.get_by_role("heading", level=1).inner_text() == "Tressette Scoresheet"
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 412
