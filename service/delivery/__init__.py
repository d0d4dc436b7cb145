"""Outbound delivery: the senders (Telegram, Twilio, a recording fake), the global rate limiter, SMS arithmetic."""
