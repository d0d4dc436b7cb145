"""Where Twilio calls the app (under ``PUBLIC_URL``): what the webhook serves, what the sender names
for each text's report and what ``lupus setup`` points the number at. A leaf, so that each of them
may import it."""

PATH = "/sms/twilio"
"""Incoming texts (the number's "A message comes in")."""
STATUS_PATH = "/sms/twilio/status"
"""A text's delivery reports (the sender names it for each text)."""
