"""Heroku's postdeploy step (app.json's ``lupus setup --postdeploy``), run once after a new app's
first release: what ``lupus doctor --setup`` checks, then what ``lupus setup`` does when those pass,
then what the operator does next.

It never fails. A failed postdeploy fails the whole new app's deploy, and on a new app the first
check cannot pass: its address has a random suffix nobody could type into the button's form, and
dyno metadata (which would tell the app its address) appears only from the next deploy. So it says
what it found and what to do, and exits 0.
"""

from __future__ import annotations

from service.channels import CHANNELS
from service.channels.base import FAIL, Check
from service.ops.doctor import run
from service.settings import Settings

ADDRESS = (
    "heroku config:set -a <app> PUBLIC_URL=$(heroku apps:info -a <app> -s | sed -n 's/^web_url=//p' | sed 's:/$::')"
)
NEXT_WITHOUT_ADDRESS = [
    "next: the web and worker refuse to start until the app knows its address (heroku logs -a <app> says so).",
    "  Set it (the app restarts), then tell the platforms where it is and check:",
    f"  {ADDRESS}",
    "  heroku run -a <app> lupus setup",
    "  heroku run -a <app> lupus doctor",
    "(deploy/README.md, sections 3 and 4a)",
]
FIX = (
    "next: configure a channel or fix the FAIL lines above, then: heroku run -a <app> lupus setup; heroku run "
    "-a <app> lupus doctor (deploy/README.md, sections 1, 2 and 4a)"
)
DONE = "next: once the worker and beat have started: heroku run -a <app> lupus doctor"


def postdeploy(settings: Settings) -> list[str]:
    """The lines to print: each check, each platform told, and the next step."""
    checks = run(settings, setup=True)
    lines = [check.line() for check in checks]
    if not settings.public_url_given():
        return [*lines, *NEXT_WITHOUT_ADDRESS]
    if _failed(checks):
        return [*lines, FIX]
    done = [check for channel in CHANNELS.values() for check in channel.setup(settings)]
    lines += [check.line() for check in done]
    return [*lines, FIX if _failed(done) or not done else DONE]


def _failed(checks: list[Check]) -> bool:
    return any(check.status == FAIL for check in checks)
