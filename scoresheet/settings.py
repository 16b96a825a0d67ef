"""Settings, read from the environment.

Development needs nothing set. Production differs only by environment variables:
DJANGO_DEBUG=0, DJANGO_SECRET_KEY, DJANGO_ALLOWED_HOSTS, DATABASE_URL, and behind an
HTTPS proxy DJANGO_CSRF_TRUSTED_ORIGINS.
"""

import hashlib
import os
import stat
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def release() -> str:
    """A name for this code: its Python files, templates, static files and translations."""
    digest = hashlib.blake2s(digest_size=8)
    for folder in ("matches", "scoresheet", "templates", "static", "locale"):
        for path in sorted((BASE_DIR / folder).rglob("*")):
            if path.is_file() and path.suffix not in {".pyc", ".po"}:
                digest.update(str(path.relative_to(BASE_DIR)).encode() + path.read_bytes())
    return digest.hexdigest()


def cache_dir(named: str, var_dir: Path) -> Path:
    """Where the shared cache's files are: in memory (/dev/shm) where the machine has it, in a
    folder of this user's and this var/'s own; else under var/. Writing a file and renaming it
    into place costs less CPU in memory than on a disk, and a save writes two. The cache holds
    pickles: a folder anyone else could have made or written to (/dev/shm is everyone's) is
    not used, here as the server starts and by scoresheet.cache on every use."""
    if named:
        return Path(named)
    folder = memory_folder(var_dir)
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        found = folder.lstat()
    except OSError:  # no /dev/shm, or not ours to write
        return var_dir / "cache"
    ours = stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid()
    return folder if ours and not found.st_mode & 0o077 else var_dir / "cache"


def memory_folder(var_dir: Path) -> Path:
    name = hashlib.blake2s(bytes(var_dir.resolve())).hexdigest()[:16]
    return Path("/dev/shm") / f"scoresheet-{os.getuid()}-{name}"


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in env_str(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", default=False)

SECRET_KEY = env_str("DJANGO_SECRET_KEY")
# Former keys, comma-separated: phones stay joined (signed session cookies) across a new key.
SECRET_KEY_FALLBACKS = env_list("DJANGO_SECRET_KEY_FALLBACKS")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off "
            "(set DJANGO_DEBUG=1 for development)."
        )
    SECRET_KEY = "insecure-development-key-only-for-debug"

# The container's own health check asks for http://localhost:8000/healthz.
ALLOWED_HOSTS = [*env_list("DJANGO_ALLOWED_HOSTS"), "localhost", "127.0.0.1"]
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.forms",
    "django_htmx",
    "matches",
]

MIDDLEWARE = [
    "matches.middleware.head_without_body",
    "django.middleware.security.SecurityMiddleware",
    "matches.middleware.permissions_policy",
    # Static files come compressed already (whitenoise): answered before Django's GZip.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.gzip.GZipMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "matches.middleware.unreadable_form_refused",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "matches.middleware.method_not_allowed_page",
]

ROOT_URLCONF = "scoresheet.urls"
WSGI_APPLICATION = "scoresheet.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.csp",
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

FORM_RENDERER = "matches.forms.FormRenderer"

# SQLite under var/ by default; DATABASE_URL names another SQLite file, or PostgreSQL to grow
# past one machine.
VAR_DIR = Path(env_str("DJANGO_VAR_DIR", str(BASE_DIR / "var")))
DATABASE_URL = env_str("DATABASE_URL")
DATABASE_URLS = (
    "DATABASE_URL must name PostgreSQL (postgres://user:password@host:5432/name) or a SQLite "
    "file (sqlite:////absolute/path/db.sqlite3, or sqlite:///path/db.sqlite3 under the project's "
    "folder), or be unset for SQLite in var/db.sqlite3"
)


def sqlite_database(path: Path) -> dict:
    """A SQLite file, set up as every one here is, whether DATABASE_URL names it or not."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # a fresh clone has no var/ yet
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": path,
        # Keep connections open: opening one runs the PRAGMAs below on every request.
        "CONN_MAX_AGE": env_int("DJANGO_CONN_MAX_AGE", 600),
        "OPTIONS": {
            # Writers queue up instead of failing with "database is locked".
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": (
                "PRAGMA journal_mode=WAL;"
                "PRAGMA synchronous=NORMAL;"
                "PRAGMA busy_timeout=20000;"
                "PRAGMA foreign_keys=ON;"
            ),
        },
        # A file, not memory: the race tests need real concurrent connections.
        "TEST": {"NAME": path.with_name(f"test_{path.name}")},
    }


def postgresql_database(found: dict) -> dict:
    """The PostgreSQL database DATABASE_URL names, with its connections' settings."""
    # No "SELECT 1" before each request's first query: it costs a round trip on every page.
    # After the database restarts, each kept connection fails one request (a phone says so
    # and tries again: no deal is ever saved twice) and is replaced.
    found.update(
        CONN_MAX_AGE=env_int("DJANGO_CONN_MAX_AGE", 60),
        CONN_HEALTH_CHECKS=env_bool("DJANGO_CONN_HEALTH_CHECKS", False),
    )
    # Parameters bound by the server: a query run a few times on a connection is prepared,
    # and planned once (psycopg's prepare_threshold), not on every page.
    found.setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=2)
    return found


def database(url: str) -> dict:
    """The database `url` names; SQLite in var/ when it names none. One the app cannot use is
    refused in words that leave the URL out (it may hold a password)."""
    if not url:
        return sqlite_database(VAR_DIR / "db.sqlite3")
    try:
        found = dj_database_url.parse(url)
    except ValueError:  # a scheme it does not know
        found = {"ENGINE": ""}
    engine, name = found["ENGINE"], str(found.get("NAME") or "")
    if engine == "django.db.backends.postgresql" and name:
        return postgresql_database(found)
    if engine != "django.db.backends.sqlite3" or not name:
        named = f"{url.split('://', 1)[0]}://" if "://" in url else "a URL without a scheme"
        raise ImproperlyConfigured(f"{DATABASE_URLS}, not {named}.")
    if name == ":memory:" or name.startswith("file:"):
        in_memory = "SQLite in memory (each process would have a database of its own)"
        raise ImproperlyConfigured(f"{DATABASE_URLS}, not {in_memory}.")
    if found.get("OPTIONS"):
        raise ImproperlyConfigured(f"{DATABASE_URLS}: a SQLite URL takes no options.")
    return sqlite_database(BASE_DIR / name)


DATABASES = {"default": database(DATABASE_URL)}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Only the admin has passwords (manage.py createsuperuser): not a short or common one.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in (
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    )
]

# Django's cache: the sheet read and its {% cache %} fragments at a revision, drawn once and
# shared by the server's processes. Every key names the revision it was drawn at, so nothing
# stale is served. By default in files (scoresheet.cache; DJANGO_CACHE_DIR names their folder, else
# cache_dir). DJANGO_CACHE_URL names another:
# redis://host:6379/0, one cache for many app servers; locmem://, each process its own.
CACHE_URL = env_str("DJANGO_CACHE_URL")
if CACHE_URL.startswith(("redis://", "rediss://")):
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
    }
elif CACHE_URL == "locmem://":
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 3000},
        }
    }
elif CACHE_URL:
    raise ImproperlyConfigured(f"DJANGO_CACHE_URL: redis://, rediss:// or locmem://: {CACHE_URL!r}")
else:
    CACHES = {
        "default": {
            "BACKEND": "scoresheet.cache.FileCache",
            "LOCATION": cache_dir(env_str("DJANGO_CACHE_DIR"), VAR_DIR),
            "OPTIONS": {"MAX_ENTRIES": env_int("DJANGO_CACHE_ENTRIES", 20_000)},
        }
    }
# A cache outlives a release: what one drew is not served by the next.
CACHES["default"]["KEY_PREFIX"] = release()
# Rate limits are counted in the database (matches.limits), shared by every worker.
# Exports of a whole table drawn per client address per hour (one already drawn for the
# table as it stands is read from EXPORTS_DIR, and not counted).
EXPORTS_PER_HOUR = env_int("DJANGO_EXPORTS_PER_HOUR", 60)
EXPORTS_WINDOW = 3600  # seconds
EXPORTS_DIR = VAR_DIR / "exports"
# New tables per client address per hour: a script cannot fill the database.
TABLES_PER_HOUR = env_int("DJANGO_TABLES_PER_HOUR", 30)
TABLES_WINDOW = 3600  # seconds
# Admin password tries per client address per quarter of an hour: no guessing at scale.
ADMIN_LOGINS_PER_WINDOW = env_int("DJANGO_ADMIN_LOGINS", 10)
ADMIN_LOGINS_WINDOW = 900  # seconds
# Proxies in front that each add the address they saw to X-Forwarded-For (0: none; the
# connection's own peer is the client). See matches.limits.client_address.
TRUSTED_PROXIES = env_int("DJANGO_TRUSTED_PROXIES", 0)

# A poll, or a sheet opened by a phone with no copy of it, may be answered from a match's
# state read this long ago by the same process (matches.views.watched): another
# phone's change shows at most that much later.
POLL_STALE_SECONDS = 1.0
# Each answer says in a Server-Timing header the app's CPU time for it (scoresheet.logs):
# `make bench` turns it on to tell the cost of each kind of request in a mix of them.
SERVER_TIMING = env_bool("DJANGO_SERVER_TIMING", False)

SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 400  # a phone stays joined for about a year
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
# No script reads the language cookie; it is sent only with this site's own pages and forms.
LANGUAGE_COOKIE_HTTPONLY = True
LANGUAGE_COOKIE_SAMESITE = "Lax"
# The admin's login leads to the admin (there is no other account page).
LOGIN_REDIRECT_URL = "/admin/"
# The CSRF secret is kept in the session (a signed cookie, as long-lived), not a cookie of
# its own: a page that draws a token does not set that cookie again on every answer. Every
# form, and HTMX (base.html's hx-headers), takes its token from the page.
CSRF_USE_SESSIONS = True

LANGUAGE_CODE = "it"
LANGUAGES = [("it", _("Italian")), ("en", _("English")), ("hr", _("Croatian"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("DJANGO_TIME_ZONE", "Europe/Rome")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "scoresheet.storage.MinifiedStaticFiles"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG

# A strict policy: scripts only from this site, each tag with the answer's nonce.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "manifest-src": [CSP.SELF],
    "worker-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # The Docker image sets DJANGO_SECURE_SSL_REDIRECT=1; the health check stays on plain HTTP.
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", default=False)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    # Preloading binds the domain to HTTPS in browsers for good: the operator's choice.
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", default=False)
    # check --deploy asks for preloading (W021); here it is opt-in, by DJANGO_HSTS_PRELOAD=1.
    SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
    SESSION_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {
            "()": "scoresheet.logs.RedactingFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "datefmt": "%Y-%m-%d %H:%M:%S %z",
        },
        # The access log's lines as web servers write them (the common log format's time).
        "access": {
            "()": "scoresheet.logs.RedactingFormatter",
            "format": "[%(asctime)s] %(message)s",
            "datefmt": "%d/%b/%Y:%H:%M:%S %z",
        },
    },
    "filters": {
        "denials": {
            "()": "django.utils.log.CallbackFilter",
            "callback": "ext://scoresheet.logs.without_denial_tracebacks",
        }
    },
    "handlers": {
        "stdout": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["denials"]},
        "access": {"class": "logging.StreamHandler", "formatter": "access"},
    },
    "root": {"handlers": ["stdout"], "level": env_str("DJANGO_LOG_LEVEL", "INFO")},
    "loggers": {
        "django.server": {"level": "WARNING"},
        # scoresheet.logs.AccessLog: a line per request, whatever DJANGO_LOG_LEVEL says.
        "scoresheet.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
    },
}
