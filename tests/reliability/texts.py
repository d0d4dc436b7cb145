"""Hypothesis strategies for what hostile or careless people type (shared by the fuzz tests)."""

from __future__ import annotations

from hypothesis import strategies as st

from service.texts.grammar import MOVE_WORDS, SERVICE_WORDS

HOSTILE = [
    "'; DROP TABLE games; --",
    '" OR 1=1 --',
    "{target}",
    "{0}",
    "%s%s%s%n",
    "{{}}",
    "${jndi:ldap://x}",
    "<script>alert(1)</script>",
    "\u202e\u202dvote",
    "\ufeff",
    "\u200b" * 50,
    "🐺" * 300,
    "vote " + "x" * 5000,
    "vote\x00bob",
    "\x00",
    "#" * 100,
    "##",
    "#ZZZZ",
    "/start",
    "/vote@bot bob",
    "\r\n\r\n",
    "\t",
    " " * 200,
    "ĀĂĄĆĈ",
    "ﷺ",
    "𝕧𝕠𝕥𝕖 𝕓𝕠𝕓",
    "VOTE BOB",
    "vote ../../etc/passwd",
    "vote 0",
    "vote -1",
    "vote 1e309",
    "vote 99999999999999999999",
    "join ZZZZ " + "n" * 100,
    "new deck " + "seer " * 200,
    "lang " + "x" * 300,
]
WORDS = sorted({w for ws in SERVICE_WORDS.values() for w in ws} | {w for ws in MOVE_WORDS.values() for w in ws})
ARGS = [
    "ann",
    "bob",
    "cat",
    "1",
    "2",
    "0",
    "99",
    "yes",
    "no",
    "on",
    "off",
    "2h",
    "08:00",
    "it",
    "es",
    "en",
    "-",
    "",
    "x",
]


def hostile_texts(code: str) -> st.SearchStrategy[str]:
    """A command (maybe for this game, maybe garbled), arbitrary Unicode (NUL bytes too: the service
    drops them), or a known hostile string."""
    word = st.sampled_from(WORDS)
    arg = st.one_of(st.sampled_from(ARGS), st.text(max_size=12))
    prefix = st.sampled_from(["", f"#{code} ", f"#{code.lower()} ", "#ZZZZ ", "/", "#"])
    command = st.builds(lambda p, w, a: p + " ".join([w, *a]), prefix, word, st.lists(arg, max_size=3))
    return st.one_of(
        command,
        st.text(max_size=300),
        st.text(st.characters(codec="utf-8"), max_size=50),
        st.sampled_from(HOSTILE),
        st.builds(lambda a, b: a + b, st.sampled_from(HOSTILE), st.text(max_size=20)),
    )
