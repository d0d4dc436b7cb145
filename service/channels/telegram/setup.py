"""What the operator runs for Telegram: ``lupus setup`` registers the webhook (with the secret
Telegram then sends in every update, and the update types the bot reads) and the "/" menu;
``lupus doctor`` reads back where Telegram posts and what it holds (getWebhookInfo)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from service.channels.base import FAIL, OK, SKIP, Check
from service.channels.telegram.inbound import ALLOWED_UPDATES
from service.channels.telegram.presentation import MENU, menu
from service.channels.telegram.sender import bot_base_url
from service.channels.telegram.webhook import PATH
from service.settings import Settings
from service.texts.i18n import LANGUAGES

FIX = 'run `lupus setup` (heroku run lupus setup; fly ssh console -C "lupus setup")'


def webhook_url(cfg: Settings) -> str:
    return cfg.PUBLIC_URL.rstrip("/") + PATH


def _bot(cfg: Settings) -> Any:
    from telegram import Bot

    return Bot(cfg.TELEGRAM_BOT_TOKEN or "", base_url=bot_base_url(cfg.TELEGRAM_API_URL))


def setup(cfg: Settings, fresh: bool = False) -> list[Check]:
    """The webhook at PUBLIC_URL/telegram/webhook, and the "/" menu in every language of ours (by each
    user's Telegram language; English for the others), for private chats and for groups."""
    if not cfg.TELEGRAM_BOT_TOKEN:
        return []
    if not cfg.TELEGRAM_WEBHOOK_SECRET:
        return [
            Check(
                "telegram webhook",
                FAIL,
                "TELEGRAM_WEBHOOK_SECRET is not set: Telegram would post updates that anyone could forge",
            )
        ]
    from telegram import BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats
    from telegram.error import TelegramError

    url = webhook_url(cfg)

    async def register() -> str:
        async with _bot(cfg) as bot:
            await bot.set_webhook(
                url,
                secret_token=cfg.TELEGRAM_WEBHOOK_SECRET,
                allowed_updates=list(ALLOWED_UPDATES),
                drop_pending_updates=fresh,
            )
            scopes = {"private": BotCommandScopeAllPrivateChats(), "group": BotCommandScopeAllGroupChats()}
            for scope in MENU:
                for lang in (None, *LANGUAGES):  # None: everyone whose language has no menu of its own
                    commands = [BotCommand(c, d) for c, d in menu(lang or "en", scope)]
                    await bot.set_my_commands(commands, scope=scopes[scope], language_code=lang)
            return str(bot.username)

    try:
        username = asyncio.run(register())
    except TelegramError as e:
        return [Check("telegram webhook", FAIL, f"Telegram refused: {e} (is TELEGRAM_BOT_TOKEN the bot's token?)")]
    return [
        Check("telegram webhook", OK, f"@{username} now posts updates to {url}"),
        Check("telegram menu", OK, f"the / menu is set in {', '.join(LANGUAGES)}"),
    ]


def doctor(cfg: Settings) -> list[Check]:
    if not cfg.TELEGRAM_BOT_TOKEN:
        return [Check("telegram", SKIP, "off (TELEGRAM_BOT_TOKEN is not set)")]

    async def ask() -> Any:
        async with _bot(cfg) as bot:
            return await bot.get_webhook_info()

    info = asyncio.run(ask())
    want = webhook_url(cfg)
    out = []
    if info.url != want:
        where = f"to {info.url}" if info.url else "nowhere (no webhook is set)"
        out.append(Check("telegram webhook", FAIL, f"Telegram posts updates {where}, not to {want}: {FIX}"))
    else:
        out.append(Check("telegram webhook", OK, f"Telegram posts updates to {want}"))
    pending = int(info.pending_update_count or 0)
    out.append(
        Check(
            "telegram pending",
            FAIL if pending > 100 else OK,
            f"{pending} update(s) wait to be delivered" + (": the webhook is failing or slow" if pending > 100 else ""),
        )
    )
    if info.last_error_date is not None:
        when = info.last_error_date if info.last_error_date.tzinfo else info.last_error_date.replace(tzinfo=UTC)
        ago = datetime.now(UTC) - when
        recent = ago < timedelta(hours=1)
        out.append(
            Check(
                "telegram last error",
                FAIL if recent else OK,
                f"{int(ago.total_seconds() // 60)} min ago: {info.last_error_message}"
                + (" (a 403 is a wrong TELEGRAM_WEBHOOK_SECRET; a timeout or 5xx, the web process)" if recent else ""),
            )
        )
    return out
