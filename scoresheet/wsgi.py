"""WSGI entry point: gunicorn serves `scoresheet.wsgi`."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scoresheet.settings")

application = get_wsgi_application()
