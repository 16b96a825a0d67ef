"""The cache the server's processes share on one machine: Django's file cache, whose files
are written whole and renamed into place, so that a process never reads another's half."""

import random

from django.core.cache.backends.filebased import FileBasedCache

CULL_EVERY = 500  # sets: listing a folder of thousands of files takes milliseconds


class FileCache(FileBasedCache):
    """Past MAX_ENTRIES files a third make way, as in Django's, but counted on one set in
    CULL_EVERY rather than on every one: the folder may hold a few hundred more meanwhile."""

    def _cull(self) -> None:
        if random.random() < 1 / CULL_EVERY:
            super()._cull()
