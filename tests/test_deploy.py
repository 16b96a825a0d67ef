"""What production runs: settings that pass Django's deployment checks and refuse to start without
a secret, and the WSGI application the server is given."""

import errno
import io
import json
import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
import zlib
from contextlib import closing
from pathlib import Path

import pytest

from scoresheet.cache import FileCache
from scoresheet.settings import cache_dir, memory_folder

ROOT = Path(__file__).resolve().parents[1]
PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "a-long-random-production-secret-" + "x7Qp2Lm9" * 6,
    "DJANGO_ALLOWED_HOSTS": "scores.example.org",
    "DJANGO_CSRF_TRUSTED_ORIGINS": "https://scores.example.org",
    "DJANGO_SECURE_SSL_REDIRECT": "1",
}


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_deployment_checks_report_nothing_with_production_settings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_it_refuses_to_start_without_a_secret_key_when_debug_is_off():
    result = manage("check", **{**PRODUCTION, "DJANGO_SECRET_KEY": ""})
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


SHOW_DATABASE = (
    "import json; from django.conf import settings; d = settings.DATABASES['default']; "
    "shown = ('ENGINE', 'NAME', 'CONN_MAX_AGE', 'OPTIONS'); "
    "print(json.dumps({k: d[k] for k in shown}, default=str))"
)


def test_a_sqlite_url_gets_the_settings_of_the_default_sqlite_and_serves(tmp_path):
    """WAL, IMMEDIATE transactions, the busy timeout, and the writers' turn, beside its file."""
    default = manage("shell", "--no-imports", "-c", SHOW_DATABASE, **PRODUCTION,
                     DJANGO_VAR_DIR=str(tmp_path / "var"), DATABASE_URL="")  # fmt: skip
    named = tmp_path / "scores" / "tressette.sqlite3"
    env = {
        **PRODUCTION,
        "DJANGO_VAR_DIR": str(tmp_path / "var"),
        "DATABASE_URL": f"sqlite:///{named}",
    }
    shown = manage("shell", "--no-imports", "-c", SHOW_DATABASE, **env)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == {**json.loads(default.stdout), "NAME": str(named)}
    assert manage("migrate", "--no-input", "-v", "0", **env).returncode == 0
    create = "from matches import services; services.create_table(name='Bar')"
    created = manage("shell", "--no-imports", "-c", create, **env)
    assert created.returncode == 0, created.stderr
    with closing(sqlite3.connect(named)) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.execute("SELECT name FROM matches_table").fetchall() == [("Bar",)]
    assert (named.parent / "tressette.sqlite3.writers.lock").exists()
    # PostgreSQL's own options are PostgreSQL's only.
    postgres = manage("shell", "--no-imports", "-c", SHOW_DATABASE, **PRODUCTION,
                      DATABASE_URL="postgres://scorer@db.example.org/scores")  # fmt: skip
    options = json.loads(postgres.stdout)["OPTIONS"]
    assert options == {"server_side_binding": True, "prepare_threshold": 2}


@pytest.mark.parametrize(
    "url",
    ["mysql://scorer:hunter2@db/scores", "sqlite://", "sqlite:///x.sqlite3?mode=ro", "scores.db"],
)
def test_a_database_url_the_app_cannot_use_is_refused_at_start_in_words(url):
    result = manage("check", **PRODUCTION, DATABASE_URL=url)
    assert result.returncode != 0
    assert "DATABASE_URL must name PostgreSQL (postgres://" in result.stderr
    assert "or a SQLite file (sqlite:////" in result.stderr
    assert "hunter2" not in result.stderr


def test_collected_stylesheet_and_scripts_come_minified(settings, tmp_path):
    """What phones download: our own CSS and JS less their comments and layout, every copy
    whole (the hashed names the pages use, and their compressed forms), each script one a
    JavaScript engine reads."""
    import doctest
    import json

    from django.core.management import call_command

    from scoresheet import storage

    assert doctest.testmod(storage).failed == 0
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "scoresheet.storage.MinifiedStaticFiles"},
    }
    call_command("collectstatic", "--no-input", verbosity=0)
    hashed = json.loads((tmp_path / "staticfiles.json").read_text())["paths"]
    ours = ("css/app.css", "css/pages.css", "js/app.js", "js/sheet.js", "js/pages.js")
    ours += ("js/share.js", "js/offline.js")
    for name in ours:
        last = "}" if name.endswith(".css") else "})();"
        source = (ROOT / "static" / name).read_text()
        served = (tmp_path / hashed[name]).read_text()
        comment = "/*" if name.endswith(".css") else "\n  //"
        assert comment in source and comment not in served, name
        assert len(served.splitlines()) < len(source.splitlines()) / 5, name  # a line or few
        assert len(served) > len(source) / 3 and served.endswith(last), name
        assert served == (tmp_path / name).read_text()
        assert (tmp_path / f"{hashed[name]}.br").stat().st_size > 0
        if name.endswith(".js") and shutil.which("node"):
            checked = subprocess.run(
                ["node", "--check", tmp_path / hashed[name]], capture_output=True
            )
            assert checked.returncode == 0, (name, checked.stderr)


def test_the_processes_of_one_server_share_one_cache(tmp_path):
    """What one process draws, another reads (Django's cache): in files, in memory where
    the machine has it, in a folder of each var/'s own."""
    env = {**PRODUCTION, "DJANGO_VAR_DIR": str(tmp_path)}
    put = "from django.core.cache import cache; cache.set('drawn', 'once', 60)"
    assert manage("shell", "-c", put, **env).returncode == 0
    get = "from django.core.cache import cache; print(cache.get('drawn'))"
    got = manage("shell", "--no-imports", "-c", get, **env)
    assert got.stdout.strip() == "once", got.stderr
    folder = cache_dir("", tmp_path)
    try:
        assert len(list(folder.glob("*.djcache"))) == 1
        assert folder != memory_folder(tmp_path / "another")
        if Path("/dev/shm").is_dir():
            assert folder.parent == Path("/dev/shm")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="no /dev/shm here")
def test_a_cache_folder_in_memory_that_is_not_this_users_alone_is_not_used(tmp_path):
    """The cache holds pickles: a folder another user made (or a link to one) would run
    their code."""
    folder = memory_folder(tmp_path)
    fallback = tmp_path / "cache"
    try:
        folder.symlink_to(tmp_path)
        assert cache_dir("", tmp_path) == fallback
        folder.unlink()
        folder.mkdir(mode=0o777)
        folder.chmod(0o777)
        assert cache_dir("", tmp_path) == fallback
        if os.getuid() == 0:
            folder.chmod(0o700)
            os.chown(folder, 12345, -1)
            assert cache_dir("", tmp_path) == fallback
            os.chown(folder, 0, -1)
        folder.chmod(0o700)
        assert cache_dir("", tmp_path) == folder
    finally:
        if folder.is_symlink():
            folder.unlink()
        shutil.rmtree(folder, ignore_errors=True)


def test_the_caches_folder_can_be_named(tmp_path):
    env = {**PRODUCTION, "DJANGO_VAR_DIR": str(tmp_path), "DJANGO_CACHE_DIR": str(tmp_path / "c")}
    put = "from django.core.cache import cache; cache.set('drawn', 'once', 60)"
    assert manage("shell", "-c", put, **env).returncode == 0
    assert len(list((tmp_path / "c").glob("*.djcache"))) == 1


def test_a_value_the_cache_cannot_write_is_a_miss_and_a_third_of_it_makes_way(
    tmp_path, monkeypatch, caplog
):
    cache = FileCache(str(tmp_path), {})
    for number in range(9):
        cache.set(f"drawn-{number}", number)

    def full(*args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache, "_write_content", full)
    cache.set("drawn-10", 10)  # answered all the same
    assert cache.get("drawn-10") is None
    assert len(cache._list_cache_files()) == 6
    assert "kept nothing" in caplog.text and "No space left" in caplog.text


class Planted:
    """A pickle whose reading runs code: it makes the file `ran`."""

    def __init__(self, ran: Path) -> None:
        self.ran = ran

    def __reduce__(self):
        return (open, (str(self.ran), "x"))


def test_a_cache_folder_made_again_by_someone_else_is_never_read_nor_written(tmp_path, caplog):
    """The cache's folder deleted while the server runs, and made again by someone else, open
    to all, with a pickle planted in it."""
    folder, ran = tmp_path / "cache", tmp_path / "ran"
    cache = FileCache(str(folder), {})
    shutil.rmtree(folder)
    cache.set("drawn", "page", 60)  # made again by the app: its own, and used
    assert cache.get("drawn") == "page"
    planted = Path(cache._key_to_file("drawn"))
    shutil.rmtree(folder)
    folder.mkdir()
    folder.chmod(0o777)
    planted.write_bytes(pickle.dumps(None) + zlib.compress(pickle.dumps(Planted(ran))))
    assert cache.get("drawn") is None and not cache.has_key("drawn")
    assert not cache.touch("drawn")
    cache.set("other", "page", 60)
    assert [path.name for path in folder.iterdir()] == [planted.name]  # nothing written there
    assert not ran.exists()
    assert "not this user's alone" in caplog.text
    elsewhere = tmp_path / "elsewhere"  # a link in its place, to a folder open to all
    folder.rename(elsewhere)
    folder.symlink_to(elsewhere)
    assert cache.get("drawn") is None and not ran.exists()
    folder.unlink()
    elsewhere.rename(folder)
    folder.chmod(0o700)
    if os.getuid() == 0:  # a file or folder of another user's, whatever its mode
        os.chown(planted, 12345, -1)
        assert cache.get("drawn") is None
        os.chown(folder, 12345, -1)
        assert cache.get("drawn") is None
        assert not ran.exists()
        os.chown(folder, 0, -1)
    planted.unlink()
    cache.set("drawn", "page", 60)  # the folder this user's alone again: used again
    assert cache.get("drawn") == "page"
    (tmp_path / "named").symlink_to(folder)  # named through a link: the folder it leads to
    assert FileCache(str(tmp_path / "named"), {}).get("drawn") == "page"


def test_a_cache_for_many_app_servers_is_named_by_its_address():
    show = "from django.conf import settings; print(settings.CACHES['default']['BACKEND'])"
    named = manage(
        "shell", "--no-imports", "-c", show, **PRODUCTION, DJANGO_CACHE_URL="redis://cache:6379/0"
    )
    assert named.stdout.strip() == "django.core.cache.backends.redis.RedisCache", named.stderr
    wrong = manage("check", **PRODUCTION, DJANGO_CACHE_URL="memcache://cache")
    assert wrong.returncode != 0 and "DJANGO_CACHE_URL" in wrong.stderr


def test_the_servers_own_environment_never_reaches_a_request(monkeypatch):
    """granian puts its process's environment in every request's environ."""
    from scoresheet import wsgi

    seen = {}
    monkeypatch.setattr(wsgi, "_served", lambda environ, start_response: seen.update(environ))
    assert "DJANGO_SECRET_KEY" in os.environ  # as the server's is
    request = {"REQUEST_METHOD": "GET", "PATH_INFO": "/", "HTTP_HOST": "127.0.0.1"}
    wsgi.application({**os.environ, **request}, None)
    assert "DJANGO_SECRET_KEY" not in seen and "PATH" not in seen
    assert {name: seen[name] for name in request} == request


def test_a_body_cut_short_is_an_error_not_a_shorter_body():
    """A client gone mid-body: granian's input ends early; Django must not take it as whole."""
    from scoresheet.wsgi import _WholeBody

    body = _WholeBody(io.BytesIO(b"name=Bar&x=1\nnext"))
    assert body.readline(100) == b"name=Bar&x=1\n"
    assert body.read(2) == b"ne"
    with pytest.raises(OSError, match="cut short"):
        body.read(1000)
    with pytest.raises(OSError, match="cut short"):
        _WholeBody(io.BytesIO(b"no newline")).readline(100)
