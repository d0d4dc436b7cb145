"""What the webhooks take, as OpenAPI descriptions (``openapi_extra`` of their routes).

The routes read their raw bodies themselves (to check a secret or a signature over exactly what was
sent, and to refuse big bodies before reading them), so FastAPI cannot infer these. They describe
what Telegram and Twilio send; they validate nothing. The app does not serve the description
(``openapi_url=None``): ``create_app(...).openapi()`` builds it, for schemathesis in the tests.
"""

from __future__ import annotations

from typing import Any

_INT = {"type": "integer"}
_STR = {"type": "string"}
_ERRORS = {
    "400": {"description": "Not a well-formed request of this kind"},
    "403": {"description": "Bad secret or signature, or another account"},
    "404": {"description": "This channel is off (its settings are missing)"},
    "413": {"description": "Body over the size limit"},
    "415": {"description": "Not the content type the platform sends"},
}
_USER = {"type": "object", "required": ["id", "is_bot", "first_name"],
         "properties": {"id": _INT, "is_bot": {"type": "boolean"}, "first_name": _STR, "username": _STR,
                        "language_code": _STR}}
_CHAT = {"type": "object", "required": ["id", "type"],
         "properties": {"id": _INT, "type": {"type": "string", "enum": ["private", "group", "supergroup", "channel"]},
                        "title": _STR, "first_name": _STR}}
_MESSAGE = {"type": "object", "required": ["message_id", "date", "chat"],
            "properties": {"message_id": _INT, "date": _INT, "chat": _CHAT, "from": _USER, "text": _STR}}

TELEGRAM_WEBHOOK: dict[str, Any] = {
    "summary": "A Telegram update (Bot API setWebhook)",
    "parameters": [{"name": "X-Telegram-Bot-Api-Secret-Token", "in": "header", "required": True, "schema": _STR}],
    "requestBody": {"required": True, "content": {"application/json": {"schema": {
        "type": "object", "required": ["update_id"],
        "properties": {"update_id": _INT, "message": _MESSAGE, "edited_message": _MESSAGE,
                       "callback_query": {"type": "object", "required": ["id", "from", "chat_instance"],
                                          "properties": {"id": _STR, "from": _USER, "chat_instance": _STR,
                                                         "data": _STR, "message": _MESSAGE}}}}}}},
    "responses": _ERRORS,
}

_SIGNATURE = {"name": "X-Twilio-Signature", "in": "header", "required": True, "schema": _STR}

TWILIO_SMS: dict[str, Any] = {
    "summary": "An incoming SMS (Twilio messaging webhook)",
    "parameters": [_SIGNATURE],
    "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": {
        "type": "object", "required": ["MessageSid", "AccountSid", "From", "To", "Body"],
        "properties": {"MessageSid": _STR, "AccountSid": _STR, "MessagingServiceSid": _STR, "From": _STR,
                       "To": _STR, "Body": _STR, "NumSegments": _STR, "OptOutType": _STR}}}}},
    "responses": {"200": {"description": "Empty TwiML: replies go through the outbox",
                          "content": {"text/xml": {"schema": _STR}}}, **_ERRORS},
}

TWILIO_STATUS: dict[str, Any] = {
    "summary": "A delivery report for a text sent (Twilio status callback)",
    "parameters": [_SIGNATURE, {"name": "key", "in": "query", "required": True, "schema": _STR}],
    "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": {
        "type": "object", "required": ["MessageSid", "AccountSid", "MessageStatus"],
        "properties": {"MessageSid": _STR, "AccountSid": _STR, "MessageStatus": _STR, "ErrorCode": _STR,
                       "To": _STR}}}}},
    "responses": {"204": {"description": "Recorded"}, **_ERRORS},
}
