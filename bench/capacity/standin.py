"""The stand-in Telegram of the capacity bench, in a process of its own (so that its work is not
charged to the bench's interpreter): `service.sandbox.fake_telegram.FakeTelegram` enforcing
Telegram's limits (the bot's 30 a second, a private chat's burst of three then one a second, a
group's 20 a minute; 429 with retry_after), plus `GET /bench/stats` for the bench to read what it
received (`?texts`: with each text and its chat). Each Bot API call takes LATENCY seconds more
(half before it is handled, half before its answer), as the network between a dyno and Telegram's
servers does: a sender that waits for each answer before the next send is bound by it, as it would
be in production. Run as
`python bench/capacity/standin.py PORT TOKEN [LATENCY]`."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import uvicorn
from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.sandbox.fake_telegram import FakeTelegram


class Latency:
    """The network's round trip on every Bot API call (not on the bench's own `/bench/stats`)."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app, self.half = app, seconds / 2

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/bot") or self.half <= 0:
            await self.app(scope, receive, send)
            return
        await asyncio.sleep(self.half)

        async def answer(message: Message) -> None:
            if message["type"] == "http.response.start":
                await asyncio.sleep(self.half)
            await send(message)

        await self.app(scope, receive, answer)


def main() -> None:
    port, token = int(sys.argv[1]), sys.argv[2]
    latency = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    tg = FakeTelegram(token, enforce_limits=True, clock=time.time)
    app = tg.app

    async def stats(request: Request) -> JSONResponse:
        sent = [(c.at, int(c.params["chat_id"])) for c in tg.calls("sendMessage") if c.status == 200]
        others = sum(1 for c in tg.calls() if c.method != "sendMessage" and c.status == 200)
        texts = (
            [
                (int(c.params["chat_id"]), str(c.params.get("text", "")))
                for c in tg.calls("sendMessage")
                if c.status == 200
            ]
            if "texts" in request.query_params
            else []
        )
        return JSONResponse(
            {
                "sent": sent,
                "texts": texts,
                "r429": tg.rejected(429),
                "other_ok": others,
                "errors": sum(1 for c in tg.calls() if c.status not in (200, 429)),
            }
        )

    app.add_api_route("/bench/stats", stats, methods=["GET"])
    uvicorn.run(Latency(app, latency), host="127.0.0.1", port=port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
