"""Names every channel can show and type, and SMS texts that read them right: a name with an emoji
(or a letter of another alphabet) is refused at ``join`` with a sentence in the joiner's language;
a name with accents GSM-7 lacks (Zoë, Sofía) is kept, and its owner told how SMS players read it;
the SMS summary counts every vote under its target once, whatever the letters of the names; an
emoji in relayed talk reaches an SMS reader as something he can read."""

from __future__ import annotations

from sqlalchemy import Engine

from service.channels.sms.gsm7 import EMOJI, fold, is_gsm7, plain_name
from service.texts.i18n import t

from .conftest import Harness
from .play import WORDS
from .test_sms_conversation import TG, Mixed


def test_a_name_sms_players_could_not_read_or_type_is_refused_with_a_sentence(h: Harness) -> None:
    h.say("host", "nuova lingua it")
    code = h.game().code
    for name in ("Ann😀", "Зоя", "🐺"):
        assert h.say("zed", f"entra {code} {name}") == [t("it", "svc.join.name_unshown", name=name)]
    assert h.game().status == "lobby" and h.say("zed", "giocatori")  # nothing seated him
    assert all(name not in " ".join(h.inbox("host")) for name in ("Ann😀", "Зоя"))


def test_an_accented_name_is_kept_and_its_owner_told_how_sms_players_read_it(h: Harness) -> None:
    h.say("host", "nueva idioma es")
    code = h.game().code
    out = h.say("sofia", f"unirse {code} Sofía")
    assert out[-1] == t("es", "svc.join.shown_as", name="Sofía", shown="Sofia"), out
    assert h.say("jose", f"unirse {code} José") == []  # GSM-7 has é: nothing to tell (his line is the join's)
    # The same name to an SMS reader is the same name.
    assert h.say("zoe", f"unirse {code} sofia") == [t("es", "svc.join.name_taken", name="sofia", code=code)]


def test_an_sms_player_refused_a_name_reads_why_in_one_short_text(db: Engine) -> None:
    h = Mixed(db)
    h.say("host", "nueva idioma es")
    code = h.game().code
    (answer,) = h.say("bob", f"unirse {code} Bob👍")
    assert answer == fold(t("es", "sms.svc.join.name_unshown")) and is_gsm7(answer) and len(answer) <= 160


def test_plain_names_are_what_an_sms_reader_sees_and_types() -> None:
    assert plain_name("Zoë") == "Zoe" and plain_name("Sofía") == "Sofia"
    assert plain_name("José") == "José" and plain_name("Çelik") == "Çelik"  # GSM-7's own letters stay
    assert plain_name("Ann😀") is None and plain_name("Łukasz") is None and plain_name("Зоя") is None


def test_emoji_reach_an_sms_reader_as_emoticons_or_one_mark() -> None:
    # "??" was all an SMS reader got of a ❤️ (a heart and its variation selector).
    assert fold("ti amo ❤️") == "ti amo <3"
    assert fold("ahah 😂😂😂") == "ahah :'D"
    assert fold("ok 👍🏽") == "ok (+1)"
    assert fold("il lupo 🐺🐺 è lui") == f"il lupo {EMOJI} è lui"
    assert fold("👨‍👩‍👧 famiglia") == f"{EMOJI} famiglia"
    assert fold("è lui 🐺😂") == f"è lui {EMOJI} :'D"
    assert "?" not in fold("🇮🇹 forza ☀️ 😀") and is_gsm7(fold("🇮🇹 forza ☀️ 😀"))


def test_relayed_talk_with_an_emoji_reads_on_sms(db: Engine) -> None:
    h = Mixed(db)
    h.say("host", "nuova lingua it")
    code = h.game().code
    for n in ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"):
        h.say(n, f"{WORDS['it']['join']} {code} {n}")
    h.say("host", "inizia")
    h.finish_phase()
    h.clear()
    h.say(TG, "Secondo me è bob 🐺😂")
    h.finish_phase()
    said = " ".join(h.inbox("cat"))
    assert "Secondo me è bob [emoji]" in said and "??" not in said, said


ACCENTED = {"bob": "Zoë", "cat": "josé", "dan": "Sofía"}


def test_the_sms_summary_counts_every_vote_under_its_target_whatever_the_names_letters(db: Engine) -> None:
    # Seen: "Votes: Sue(josé) Zoe>Sue." and "Votos: Pam:left(Ned,Diego) Pam:right(Pam) Sofia>Pam:left.":
    # a voter whose name SMS shows without its accent was left out of his target's count.
    h = Mixed(db)
    h.say("host", "nueva idioma es")
    code = h.game().code
    for n in ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"):
        h.say(n, f"unirse {code} {ACCENTED.get(n, n)}")
    h.say("host", "empezar")
    h.finish_phase()  # a night: whoever dies, the day begins
    state = h.state()
    alive = [p for p in state.players if p in state.alive]  # type: ignore[attr-defined]
    target = next(p for p in alive if p not in ACCENTED.values())
    voters = [p for p in alive if p != target]
    address = {v: k for k, v in ACCENTED.items()}
    for voter in voters:
        h.say(address.get(voter, voter), f"votar {target}")
    h.clear()
    h.finish_phase()
    readers = [p for p in ("eve", "fay", "gus", "hal") if p in alive and p != target]
    for reader in readers:
        text = "\n".join(h.inbox(reader))
        head = fold(t("es", "sms.held.votes", votes="")).removesuffix(".")
        assert head in text, text
        votes = text.split(head, 1)[1].split(".")[0].strip()
        assert votes.startswith(f"{target}(") and votes.endswith(")") and ">" not in votes, votes
        assert sorted(votes[len(target) + 1 : -1].split(",")) == sorted(fold(v) for v in voters), votes
