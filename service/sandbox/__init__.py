"""Local stand-ins for the Telegram Bot API and Twilio's Messages API (the sandbox and the tests)."""
