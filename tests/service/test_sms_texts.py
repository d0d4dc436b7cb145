"""What an SMS player is sent: about one text per phase. The public commentary (each nomination,
each join, town talk) is held and summarised in the next phase's text; what one command writes to
one SMS reader goes as one text, with his numbered options; his own commands are answered at once,
except his moves after his first night choice and first nomination, which the next phase's text
shows (his votes among everyone's); a refused move is always answered.
Telegram players keep getting everything as it happens. Nothing is lost, nothing leaks: checked
against the same seeded game played on a channel that merges nothing."""

from __future__ import annotations

import re
from collections import Counter

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from engine import Phase
from service.channels.sms import MERGED as SMS_MERGED
from service.game.room import FIRST_TOLD
from service.store.models import Identity, Outbox
from service.texts.digest import SMS_OWN_VOTE

from .conftest import Harness, deliver_all
from .play import NAMES, play_phase, play_to_end
from .sms_shown import shown

TG = "ann"  # the one Telegram player of the mixed games


class Mixed(Harness):
    """The harness, with every player texting by SMS (his phone number is his name) except those
    named in ``telegram``; both channels are recorded."""

    def __init__(self, db: Engine, telegram: frozenset[str] = frozenset(), channel: str = "sms") -> None:
        super().__init__(db)
        self.telegram, self.via = telegram, channel

    def say(self, who: str, text: str, external_id: str | None = None) -> list[str]:
        channel = "telegram" if who in self.telegram else self.via
        return self.svc.handle_inbound(channel, who, external_id or f"m{next(self._ids)}", text)

    def deliver(self) -> None:
        senders = {"sms": self.channel, "telegram": self.channel, "test": self.channel}
        deliver_all(self.db, senders, self.clock)


def _open(h: Harness) -> str:
    h.say("host", "new")
    code = h.game().code
    for n in NAMES:
        h.say(n, f"join {code} {n}")
    h.say("host", "start")
    return code


def _roles(h: Harness) -> dict[str, str]:
    return {p: r.value for p, r in h.state().roles.items()}  # type: ignore[attr-defined]


def _to_nominations(h: Harness) -> dict[str, str]:
    roles = _roles(h)
    wolves = [p for p in NAMES if roles[p] == "werewolf"]
    victim = next(p for p in NAMES if roles[p] == "villager" and p != TG)
    for w in wolves:
        h.say(w, f"kill {victim}")
    h.clear()
    h.finish_phase()
    assert h.state().phase is Phase.NOMINATIONS
    return roles


def test_an_sms_player_gets_one_text_at_a_phase_change_with_numbered_options(db: Engine) -> None:
    h = Mixed(db, frozenset({TG}))
    _open(h)
    roles = _to_nominations(h)
    alive = list(h.state().alive)  # type: ignore[attr-defined]
    sms = next(p for p in alive if p != TG and roles[p] == "villager")
    (text,) = h.inbox(sms)  # dawn, the nominations and his choices: one text
    assert "Dawn" in text and "public vote" in text
    listed = re.findall(r"(\d+) (\w+)", text.split("Reply: vote")[1])
    assert [name for _, name in listed] == [p for p in h.state().players if p in alive]
    # The Telegram player got the same news as separate messages, as before.
    assert len(h.inbox(TG)) >= 3
    # He answers with a number, and is answered at once, in one short text: on the first day, with
    # a word on why his next votes get no answer.
    number, target = listed[2]
    h.clear()
    h.say(sms, f"vote {number}")
    (reply,) = h.inbox(sms)
    assert reply.startswith(f"{sms} votes {target}.") and len(reply) <= 160
    assert reply.endswith(
        "From now on only secret votes and refused moves get a reply: the next phase's text shows the rest."
    ), reply


def test_the_only_numbers_before_a_name_are_the_options_he_may_answer_with(db: Engine) -> None:
    # The game's first text carries the deck and, for the pack, the night's numbered choices:
    # were anything else numbered, "kill 2" would read two ways.
    h = Mixed(db)
    _open(h)
    wolf = next(p for p, r in _roles(h).items() if r == "werewolf")
    start = next(t for t in h.inbox(wolf) if "Reply: kill" in t)
    assert start.startswith(f"Game {h.game().code}, {len(NAMES)} players: ")
    head, options = start.split("Reply: kill")
    assert not re.findall(rf"\d+ ({'|'.join(NAMES)})\b", head), head
    assert re.findall(r"(\d+) (\w+)", options)


def test_held_votes_are_summarised_in_the_next_phase_text(db: Engine) -> None:
    h = Mixed(db, frozenset({TG}))
    _open(h)
    _to_nominations(h)
    h.clear()
    players = list(h.state().players)
    alive = [p for p in players if p in h.state().alive]  # type: ignore[attr-defined]
    reader = next(p for p in alive if p != TG)
    others = [p for p in alive if p != reader]  # nobody votes him: he is no suspect, and may vote
    cast: dict[str, list[str]] = {}
    for i, voter in enumerate(players):
        if voter == reader:
            continue
        target = others[i % len(others)]
        assert h.say(voter, f"vote {target}") == []
        cast.setdefault(target, []).append(voter)
        # Nothing reaches the SMS reader while others vote; the Telegram player sees each vote.
        assert h.inbox(reader) == []
    assert sum(" votes " in m for m in h.inbox(TG)) == sum(map(len, cast.values())), h.inbox(TG)
    h.finish_phase()
    assert h.state().phase is Phase.BALLOT
    (text,) = h.inbox(reader)
    # By target, with who voted, most voted first (the first voted first among equals).
    groups = sorted(cast.items(), key=lambda kv: -len(kv[1]))
    summary = " ".join(f"{tg}({','.join(vs)})" for tg, vs in groups)
    assert f"Votes: {summary}." in text, text
    # The suspects are named once, by his options, which the ballot's line leaves them to (the
    # day.suspects row is written, not sent).
    suspects = list(h.state().suspects)  # type: ignore[attr-defined]
    seats = [players.index(s) + 1 for s in suspects]
    reply = f"Reply: vote {seats[0]} {suspects[0]} {seats[1]} {suspects[1]}"
    assert "\nSecret ballot until " in text and text.endswith("\n" + reply), text
    ballot = next(line for line in text.split("\n") if line.startswith("Secret ballot"))
    assert "Suspects:" not in text and not any(s in ballot for s in suspects), text
    order = ["Votes:", "Secret ballot", reply]
    assert [text.index(part) for part in order] == sorted(text.index(part) for part in order)
    with Session(h.db) as s:
        assert not s.exec(select(Outbox).where(Outbox.status == "held")).all()


def test_a_telegram_player_gets_each_vote_at_once(db: Engine) -> None:
    h = Mixed(db, frozenset({TG}))
    _open(h)
    _to_nominations(h)
    h.clear()
    voters = [p for p in h.state().players if p != TG]
    for n, voter in enumerate(voters, start=1):
        h.say(voter, f"vote {TG}")
        got = h.inbox(TG)
        assert len(got) == n and got[-1].startswith(f"{voter} votes {TG}."), got


def test_an_sms_players_later_nominations_are_not_answered_but_shown_in_the_next_phase_text(db: Engine) -> None:
    h = Mixed(db, frozenset({TG}))
    _open(h)
    _to_nominations(h)
    for _ in range(3):  # the first day's nominations and ballot, the second night
        play_phase(h)
    assert h.state().phase is Phase.NOMINATIONS and h.state().day == 2
    alive = [p for p in h.state().players if p in h.state().alive]  # type: ignore[attr-defined]
    voter, target = [p for p in alive if p != TG][:2]
    h.clear()
    assert h.say(voter, f"vote {target}") == [] and h.inbox(voter) == []
    # Refused or not understood: answered at once.
    assert h.say(voter, f"vote {target}") and h.inbox(voter)
    h.clear()
    h.finish_phase()
    (text,) = h.inbox(voter)
    assert re.search(rf"Votes: .*\b{target}\([^)]*\b{voter}\b", text), text
    suspects = list(h.state().suspects)  # type: ignore[attr-defined]
    balloter = next(p for p in alive if p not in suspects and p != TG)
    h.clear()
    # A secret ballot is answered at once (nothing else shows it before the reveal), changed too.
    for suspect in suspects[:2]:
        h.say(balloter, f"vote {suspect}")
        assert h.inbox(balloter) == [f"Secret vote for {suspect} noted. You may change it until the ballot closes."]
        h.clear()
    h.finish_phase()
    (text,) = h.inbox(balloter)
    assert re.search(rf"Ballots: .*\b{suspects[1]}\([^)]*\b{balloter}\b", text), text


def test_joins_go_without_saying_when_the_game_starts_and_the_seating_is_his_on_request(db: Engine) -> None:
    h = Mixed(db, frozenset({TG}))
    h.say("host", "new")
    code = h.game().code
    for n in NAMES:
        h.say(n, f"join {code} {n}")
        count = NAMES.index(n) + 1  # his own join, answered at once
        assert h.inbox(n) == [f"{n} joined game {code} ({count} player{'' if count == 1 else 's'})."]
    assert NAMES[0] == TG
    sms = NAMES[1]
    assert len(h.inbox(sms)) == 1  # the joins after his own are held
    assert len(h.inbox(TG)) == len(NAMES)  # Telegram: each join as it comes
    h.clear()
    h.say("host", "start")
    (got,) = h.inbox(sms)
    assert got.startswith(f"Game {code}, {len(NAMES)} players: "), got
    # Neither the joins nor the seating: the text says how to ask for the seating, and he can.
    assert "Joined:" not in got and "Seating: text players." in got, got
    assert "clockwise" not in got, got
    seating = list(h.state().players)
    (reply,) = h.say(sms, "players")
    assert reply == "Seating, clockwise: " + ", ".join(f"{i} {n}" for i, n in enumerate(seating, start=1)) + "."


def _rows(h: Harness, channel: str) -> dict[str, list[Outbox]]:
    """Each player's outbox rows on ``channel`` (by address), oldest first."""
    with Session(h.db) as s:
        found = s.exec(
            select(Outbox, Identity)
            .join(Identity, col(Identity.id) == col(Outbox.identity_id))
            .order_by(col(Outbox.id))
        ).all()
    out: dict[str, list[Outbox]] = {}
    for row, person in found:
        if person.channel == channel:
            out.setdefault(person.address, []).append(row)
    return out


def _what(row: Outbox) -> tuple[str, str]:
    """What caused a row, the same in two runs: its key and its dedup key without the ids."""
    return row.key, re.sub(r"^g\d+:|:i\d+(?=:|$)|^in\d+", "", row.dedup_key)


def test_nothing_is_lost_or_leaked_against_a_game_that_merges_nothing(db: Engine) -> None:
    """The same seeded game twice: every player by SMS, then on a channel that holds and merges
    nothing. The SMS run writes each player exactly the rows the plain run writes him (same events,
    same audiences), but for the nights revealed at the end, which an SMS player has on request
    (``status``); and what each SMS player is sent is exactly his own rows, joined: nothing
    else, nothing missing."""
    runs = []
    for channel in ("sms", "test"):
        h = Mixed(db, channel=channel)
        _open(h)
        play_to_end(h)
        h.deliver()
        runs.append((h, _rows(h, channel)))
    (sms, by_sms), (_, plain) = runs
    sms_ids = set(by_sms)
    assert sms_ids == plain.keys() == {*NAMES, "host"}
    # What the SMS run writes besides: merged texts, summaries, the summary's copy of his own
    # first-day nomination (answered at once, and shown with everyone's in the next phase's text),
    # and, once a game, the word that his moves are answered by the next phase's text.
    added = {SMS_MERGED, "svc.digest", SMS_OWN_VOTE, FIRST_TOLD}
    for who in sms_ids:
        rows = by_sms[who]
        (reveal,) = [r for r in plain[who] if r.key == "svc.reveal"]
        assert Counter(_what(r) for r in rows if r.key not in added) == Counter(
            _what(r) for r in plain[who] if r is not reveal
        )
        assert _told(sms.say(who, "status")[0].split("\nWhat happened: ")[1]) == _told(
            reveal.text.removeprefix("What happened, night by night:\n")
        ), who
        assert all(r.status in ("sent", "merged") for r in rows), who
        got = sms.channel.sent[who]
        assert len(got) == sum(r.status == "sent" for r in rows) < len(plain[who]) / 2
        # His texts are his rows: each merged or sent row's text is taken out of them once (longest
        # first, so a summary goes before the items it holds); only line breaks may remain.
        rest = "\n".join(got)
        sent = rest
        for row in sorted((r for r in rows if r.key != SMS_MERGED), key=lambda r: -len(r.text)):
            if row.text in rest:
                rest = rest.replace(row.text, "", 1)
            else:  # a held item: in a later text, where a summary or the revealed ballots show it
                assert shown(row, sent, who), (who, row.key, row.text)
        assert not rest.strip(), f"{who} was sent {rest.strip()!r}, from no row of his"


def _told(text: str) -> list[str]:
    """The history's sentences, as Telegram (one line a night, names after a comma and a space) or
    SMS (one text, names after a comma) tells them."""
    return [part.strip() for part in text.replace(", ", ",").replace("\n", " ").split(". ") if part.strip()]


def test_town_talk_is_held_for_sms_players_and_comes_with_the_next_phase(db: Engine) -> None:
    h = Mixed(db, frozenset({TG}))
    _open(h)
    _to_nominations(h)
    alive = [p for p in h.state().players if p in h.state().alive]  # type: ignore[attr-defined]
    speaker, reader = [p for p in alive if p != TG][:2]
    assert h.say(reader, "digest off") == ["By SMS the town square always comes as one summary with each phase's text."]
    h.clear()
    h.say(speaker, "it was the baker!")
    assert h.inbox(reader) == [] and h.inbox(speaker) == []
    assert h.inbox(TG) == [f"{speaker}: it was the baker!"]
    h.finish_phase()
    (text,) = h.inbox(reader)
    assert text.startswith(f"Town square (1 message): {speaker}: it was the baker!\n"), text


def test_the_ballots_line_leaves_the_suspects_to_a_voters_options_and_names_them_to_the_rest(db: Engine) -> None:
    h = Mixed(db, frozenset({TG}))
    _open(h)
    _to_nominations(h)
    h.clear()
    h.finish_phase()  # nobody nominates: the order around the table names the suspects
    state = h.state()
    assert state.phase is Phase.BALLOT
    suspects = list(state.suspects)  # type: ignore[attr-defined]
    named = f"Ballot: {suspects[0]} or {suspects[1]}, until "
    for p in (p for p in NAMES if p != TG):
        (text,) = h.inbox(p)
        votes = p in state.alive and p not in suspects  # type: ignore[attr-defined]
        lines = f"\n{text}"
        assert (
            ("\nSecret ballot until " in lines and "\nReply: vote " in lines)
            if votes
            else (named in text and "Reply:" not in text)
        ), (p, text)
    told = "\n".join(h.inbox(TG))
    voter_line = "Ballot: you vote in secret for one of the suspects."
    assert (voter_line in told) == (TG in state.alive and TG not in suspects), told  # type: ignore[attr-defined]
