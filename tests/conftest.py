"""For every run of the suite: the gate on skipped tests (``tests/skips.py``)."""

from tests.skips import pytest_configure  # noqa: F401 - a hook: pytest finds it here
