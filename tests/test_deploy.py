"""Production settings pass Django's deployment checks, and refuse to start without a secret."""

import os
import subprocess
import sys
from pathlib import Path

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


def test_collected_stylesheet_and_scripts_come_without_their_comments(settings, tmp_path):
    """What phones download: our own CSS and JS less their comments, every copy whole (the
    hashed names the pages use, and their compressed forms)."""
    import doctest
    import json

    from django.core.management import call_command

    from scoresheet import storage

    assert doctest.testmod(storage).failed == 0
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "scoresheet.storage.StaticFilesWithoutComments"},
    }
    call_command("collectstatic", "--no-input", verbosity=0)
    hashed = json.loads((tmp_path / "staticfiles.json").read_text())["paths"]
    for name, marker in (("css/app.css", "/*"), ("js/app.js", "\n  //"), ("js/sheet.js", "\n  //")):
        source = (ROOT / "static" / name).read_text()
        served = (tmp_path / hashed[name]).read_text()
        assert marker in source and marker not in served, name
        assert len(served) > len(source) / 2 and served == (tmp_path / name).read_text()
        assert (tmp_path / f"{hashed[name]}.br").stat().st_size > 0
