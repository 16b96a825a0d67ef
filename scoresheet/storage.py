"""Static files as phones get them: our own stylesheet and scripts without their comments.

The comments are for whoever reads the source; every phone downloads what is sent. Only whole
comments go: a CSS /* … */ and a script line that is a // comment and nothing else, so no
code or string is touched. Vendored files (htmx) come minified already.
"""

import re

from django.core.files.base import ContentFile
from whitenoise.storage import CompressedManifestStaticFilesStorage

_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_JS_COMMENT_LINE = re.compile(r"^[ \t]*//.*\n", re.M)
_BLANK_LINES = re.compile(r"\n[ \t]*(?=\n)")
_OURS = ("css/", "js/")


def without_comments(name: str, text: str) -> str:
    """
    >>> without_comments("css/app.css", "/* why */\\na { color: red; } /* more */\\n")
    'a { color: red; } \\n'
    >>> without_comments("js/app.js", '  // why\\nvar url = "http://x";\\n')
    'var url = "http://x";\\n'
    """
    if name.endswith(".css"):
        text = _CSS_COMMENT.sub("", text)
    elif name.endswith(".js"):
        text = _JS_COMMENT_LINE.sub("", text)
    return _BLANK_LINES.sub("", text).lstrip("\n")


class StaticFilesWithoutComments(CompressedManifestStaticFilesStorage):
    def _save(self, name, content):
        if name.startswith(_OURS) and name.endswith((".css", ".js")):
            content.seek(0)  # hashing may have read it already
            text = content.read().decode()
            content = ContentFile(without_comments(name, text).encode())
        return super()._save(name, content)
