"""The channel adapters: how a Telegram update or an incoming SMS becomes one command text for
``Service.handle_inbound``. No rules here: authenticate (in ``service.web``), parse, hand on."""
