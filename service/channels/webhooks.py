"""What every channel's webhook routes share: reading a platform's body within limits, and the
errors each route may answer, as OpenAPI says them. A channel's routes are its own
(``Channel.webhook``); the web app mounts what the registry holds.

The routes read their raw bodies themselves (to check a secret or a signature over exactly what was
sent, and to refuse big bodies before reading them), so FastAPI cannot infer what they take: each
route describes it (``openapi_extra``), validating nothing. The app does not serve the description
(``openapi_url=None``): ``create_app(...).openapi()`` builds it, for schemathesis in the tests.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from fastapi import HTTPException, Request

MAX_BODY = 64 * 1024
"""Telegram's updates and Twilio's forms are a few kilobytes; anything far bigger is not theirs."""

INT: dict[str, Any] = {"type": "integer"}
STR: dict[str, Any] = {"type": "string"}
ERRORS: dict[str, Any] = {
    "400": {"description": "Not a well-formed request of this kind"},
    "403": {"description": "Bad secret or signature, or another account"},
    "404": {"description": "This channel is off (its settings are missing)"},
    "413": {"description": "Body over the size limit"},
    "415": {"description": "Not the content type the platform sends"},
}


async def read_body(request: Request, content_type: str) -> bytes:
    """The body, refused early if it is too big (413) or not of the type the sender sends (415)."""
    length = request.headers.get("content-length", "")
    if length.isdecimal() and int(length) > MAX_BODY:  # not isdigit: int("²") fails
        raise HTTPException(413, "request body too large")
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != content_type:
        raise HTTPException(415, f"expected {content_type}")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise HTTPException(413, "request body too large")
    return bytes(body)


def parse_form(body: bytes) -> dict[str, str]:
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=bool(body))
    except (UnicodeDecodeError, ValueError):
        raise HTTPException(400, "malformed form") from None
    return dict(pairs)
