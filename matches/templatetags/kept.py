"""{% keep key %}…{% endkeep %}: a page drawn once per `key` and kept in Django's cache;
{% own %}, this phone's own part of a page; {% fresh_key %}, a form's idempotency key.

The view gives the key (views/kept.py), naming all the page depends on (a match's revision,
the role, the language...), or None when the page holds something of this request's only (a
notice, a form sent back): then it is drawn every time. What is this phone's own (its CSRF
token, a deal's idempotency key) is drawn after the kept part, by {% own %}, as a page
answered from what is kept draws it (views/kept.drawn).
"""

import re
import secrets

from django import template
from django.utils.safestring import SafeString

from matches.views import kept

register = template.Library()

# A kept page is stored without the templates' indentation and blank lines (none of its
# pages has a <pre> or a <textarea>, where they would count): a third less to send.
_INDENTATION = re.compile(r"\n\s+")


class KeepNode(template.Node):
    def __init__(self, nodelist: template.NodeList, key: template.base.FilterExpression):
        self.nodelist, self.key = nodelist, key

    def render(self, context: template.Context) -> str:
        key = self.key.resolve(context)
        if not key:  # None, or no key given at all
            return self.nodelist.render(context)
        if (found := kept.page(key)) is not None:
            return found.decode()
        drawn = _INDENTATION.sub("\n", self.nodelist.render(context))
        kept.keep_page(key, drawn)
        return drawn


@register.tag
def keep(parser: template.base.Parser, token: template.base.Token) -> KeepNode:
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("{% keep key %} takes one argument")
    nodelist = parser.parse(("endkeep",))
    parser.delete_first_token()
    return KeepNode(nodelist, parser.compile_filter(bits[1]))


@register.simple_tag(takes_context=True)
def own(context: template.Context) -> SafeString:
    """This phone's own part of the page, which ends it (own.html)."""
    return SafeString(kept.own(getattr(context, "request", None), context))


@register.simple_tag
def fresh_key() -> str:
    """An idempotency key for a form this phone sends: a second tap is told of the first."""
    return secrets.token_urlsafe(16)
