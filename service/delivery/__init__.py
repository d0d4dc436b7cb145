"""Outbound delivery, channel-neutral: the sender interface, the one global rate limiter, dispatch.

How the worker is meant to put them together for one outbox row (texts in, one attempt out):

    sender = senders[channel]                     # the channel's own sender, or a RecordingSender
    wait = limiter.try_acquire(sender.channel, chat_kind, address, cost=sender.cost(text))
    if wait:                                      # not now: defer this row (and the rows behind it)
        raise RetryLater(wait)
    result = sender.send(address, text, buttons=buttons, dedup_key=str(row.id))
    SENT        -> mark the row sent (store result.new_address if the group moved)
    RETRY_AFTER -> limiter.penalize(sender.channel, chat_kind, address, result.retry_after); RetryLater
    TRANSIENT   -> TransientError (the base task backs off)
    PERMANENT   -> mark the recipient unreachable (result.reason) and tell the host; never retry

Each registered channel says its own rate rules and makes its own sender from the settings
(`Channel.rules`, `Channel.outbound`); `wiring.make_delivery` puts them together, the limiter's
channel-wide budgets keyed by whose they are (the bot, the sender number).
"""
