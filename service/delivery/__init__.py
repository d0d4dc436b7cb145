"""Outbound delivery, channel-neutral: the sender interface, the one global rate limiter, dispatch.

How the worker is meant to put them together for one outbox row (texts in, one attempt out):

    sender = senders[channel]                     # TelegramSender / TwilioSender / RecordingSender
    wait = limiter.try_acquire(sender.channel, chat_kind, address, cost=sender.cost(text))
    if wait:                                      # not now: defer this row (and the rows behind it)
        raise RetryLater(wait)
    result = sender.send(address, text, buttons=buttons, dedup_key=str(row.id))
    SENT        -> mark the row sent (store result.new_address if the group moved)
    RETRY_AFTER -> limiter.penalize(sender.channel, chat_kind, address, result.retry_after); RetryLater
    TRANSIENT   -> TransientError (the base task backs off)
    PERMANENT   -> mark the recipient unreachable (result.reason) and tell the host; never retry

The limiter's channel-wide budgets belong to a bot or a sender number: build it with
`channel_ids={"telegram": telegram_sender.bot_id, "sms": twilio_sender.sender_id}` (the senders of
`service.channels.telegram.sender` and `service.channels.sms.sender`).
"""
