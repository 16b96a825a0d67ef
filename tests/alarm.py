"""A guard against input that hangs a worker: not a timing of speed, a limit far above it."""

import signal
from contextlib import contextmanager


@contextmanager
def fails_after(seconds: int, why: str):
    """Fail the test with `why` if the block is still running after `seconds`."""

    def too_slow(signum, frame):
        raise AssertionError(why)

    former = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, former)
