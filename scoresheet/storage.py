"""Static files as phones get them: our own stylesheet and scripts minified.

The comments and the layout are for whoever reads the source; every phone downloads what is
sent. rcssmin and rjsmin take out comments and whitespace only: nothing is renamed or
rewritten. Vendored files (htmx) come minified already.
"""

import rcssmin
import rjsmin
from django.core.files.base import ContentFile
from whitenoise.storage import CompressedManifestStaticFilesStorage

_OURS = ("css/", "js/")


def minified(name: str, text: str) -> str:
    """
    >>> minified("css/app.css", "/* why */\\na { color: red; } /* more */\\n")
    'a{color:red}'
    >>> minified("js/app.js", '  // why\\nvar url = "http://x"; // a string\\n')
    'var url="http://x";'
    """
    if name.endswith(".css"):
        return rcssmin.cssmin(text)
    return rjsmin.jsmin(text)


class MinifiedStaticFiles(CompressedManifestStaticFilesStorage):
    def _save(self, name, content):
        if name.startswith(_OURS) and name.endswith((".css", ".js")):
            content.seek(0)  # hashing may have read it already
            text = content.read().decode()
            content = ContentFile(minified(name, text).encode())
        return super()._save(name, content)
