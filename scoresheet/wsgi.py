"""WSGI entry point: gunicorn serves `scoresheet.wsgi`."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scoresheet.settings")

application = get_wsgi_application()
# Imported once Django is set up; a poll of an unchanged sheet is answered before Django's own.
from matches.views.polls import UnchangedPolls  # noqa: E402

application = UnchangedPolls(application)


def warm() -> None:
    """Load the views, the languages and the pages' templates as the process starts: else the
    first phone each process serves waits for them (150 to 200 ms here), its page painted late.
    """
    from django.conf import settings
    from django.template.loader import get_template
    from django.urls import get_resolver
    from django.utils import translation

    get_resolver().url_patterns  # noqa: B018 (imports every view and what it uses)
    for language, _name in settings.LANGUAGES:
        with translation.override(language):  # reads the language's catalog
            pass
    pages = sorted((settings.BASE_DIR / "templates").rglob("*.html"))
    for page in pages:
        get_template(str(page.relative_to(settings.BASE_DIR / "templates")))


warm()
