from django import template
from django.utils.translation import get_language

from matches.views.site import offline_words_url

register = template.Library()


@register.simple_tag
def offline_words() -> str:
    """The address of offline.js's words in the page's language."""
    return offline_words_url(get_language())
