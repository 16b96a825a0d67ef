"""The app's settings, with the bare save (bench/bare.py) at the real save's address."""

from scoresheet.settings import *  # noqa: F403

ROOT_URLCONF = "bare"
