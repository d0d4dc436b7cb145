"""The stand-in Telegram of the capacity bench, in a process of its own (so that its work is not
charged to the bench's interpreter): `service.sandbox.fake_telegram.FakeTelegram` enforcing
Telegram's limits (the bot's 30 a second, a private chat's burst of three then one a second, a
group's 20 a minute; 429 with retry_after), plus `GET /bench/stats` for the bench to read what it
received. Run as `python bench/capacity/standin.py PORT TOKEN`."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import uvicorn
from fastapi.responses import JSONResponse

from service.sandbox.fake_telegram import FakeTelegram


def main() -> None:
    port, token = int(sys.argv[1]), sys.argv[2]
    tg = FakeTelegram(token, enforce_limits=True, clock=time.time)
    app = tg.app

    async def stats() -> JSONResponse:
        sent = [(c.at, int(c.params["chat_id"])) for c in tg.calls("sendMessage") if c.status == 200]
        others = sum(1 for c in tg.calls() if c.method != "sendMessage" and c.status == 200)
        return JSONResponse({"sent": sent, "r429": tg.rejected(429), "other_ok": others,
                             "errors": sum(1 for c in tg.calls() if c.status not in (200, 429))})

    app.add_api_route("/bench/stats", stats, methods=["GET"])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
