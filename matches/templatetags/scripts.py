from django import template
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from scoresheet.scripts import LOADER

register = template.Library()

EVERY_PAGE = ("django_htmx/htmx-2.min.js", "js/app.js")


@register.simple_tag
def scripts(*names: str) -> str:
    """The loader of every page's scripts and then `names`, and of the manifest in the page's
    language (scoresheet/scripts.py)."""
    urls = " ".join(static(name) for name in (*EVERY_PAGE, *names))
    manifest = reverse("manifest", args=[get_language()])
    return format_html(
        '<script data-src="{}" data-manifest="{}">{}</script>', urls, manifest, mark_safe(LOADER)
    )
