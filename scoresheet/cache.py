"""The cache the server's processes share on one machine: Django's file cache, whose files
are written whole and renamed into place, so that a process never reads another's half.

Its files are pickles, which run code as they are read: a folder or a file that is not this
user's alone (one made again by someone else after the app's was deleted) is never read nor
written to."""

import logging
import os
import random
import stat

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache

CULL_EVERY = 500  # sets: listing a folder of thousands of files takes milliseconds

logger = logging.getLogger(__name__)


def private(found: os.stat_result, kind=stat.S_ISDIR) -> bool:
    """Of this kind (a folder, not a link to one, by default), this user's, and no one else
    may write to it."""
    return kind(found.st_mode) and found.st_uid == os.getuid() and not found.st_mode & 0o022


class FileCache(FileBasedCache):
    """Past MAX_ENTRIES files a third make way, as in Django's, but counted on one set in
    CULL_EVERY rather than on every one: the folder may hold a few hundred more meanwhile.
    A value that cannot be written (the folder full: a container's /dev/shm is 64 MB) is not
    kept, and a third of the files make way: a miss, never a failed answer. So is every value
    in a folder that is not this user's alone: its folder is checked on every use."""

    _refused = False  # said once, until the folder is this user's alone again

    def __init__(self, dir, params) -> None:
        # A folder named through a link is the folder it leads to as the server starts: on
        # every use after that, a link in its place is refused.
        super().__init__(os.path.realpath(dir), params)

    def get(self, key, default=None, version=None):
        return super().get(key, default, version) if self._private_folder() else default

    def has_key(self, key, version=None) -> bool:
        return self._private_folder() and super().has_key(key, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None) -> bool:
        return self._private_folder() and super().touch(key, timeout, version)

    def _is_expired(self, f) -> bool:
        """Every read opens the file and asks this first: one that is not this user's alone
        is taken for expired, never unpickled (checked on the file opened, not on its name)."""
        if not private(os.fstat(f.fileno()), stat.S_ISREG):
            logger.warning("The cache did not read %s: it is not this user's alone", f.name)
            return True
        return super()._is_expired(f)

    def _cull(self) -> None:
        if random.random() < 1 / CULL_EVERY:
            super()._cull()

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None) -> None:
        try:
            self._createdir()  # it may have been deleted meanwhile
            if not self._private_folder():
                return
            super().set(key, value, timeout, version)
        except OSError as error:
            logger.warning("The cache in %s kept nothing: %s", self._dir, error)
            try:
                files = self._list_cache_files()
                for name in random.sample(files, len(files) // self._cull_frequency):
                    self._delete(name)
            except OSError:
                pass  # no folder at all: nothing to make way

    def _private_folder(self) -> bool:
        try:
            found = os.lstat(self._dir)
        except FileNotFoundError:
            return False  # a miss; the next set makes it again
        if private(found):
            self._refused = False
            return True
        if not self._refused:
            self._refused = True
            logger.warning(
                "The cache does not use %s: not this user's alone, or not a folder", self._dir
            )
        return False
