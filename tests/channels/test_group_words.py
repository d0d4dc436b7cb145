"""Talk overheard in a Telegram group that is shaped like a move: answered privately, never
relayed to the SMS players (a Seer's slip in the group must not travel further)."""

from __future__ import annotations

from .conftest import SmsPlayer, Stack, TgPlayer
from .test_group import GROUP, kill_at_night, state, table, victims, work


def test_a_slip_of_a_move_in_the_group_is_answered_privately_and_not_relayed(stack: Stack) -> None:
    _, people = table(stack, "/new")
    sms = [p for p in people.values() if isinstance(p, SmsPlayer)]
    kill_at_night(stack, people, victims(stack, people, TgPlayer)[0])
    st = state(stack)
    speaker = next(p for p in people.values() if isinstance(p, TgPlayer) and p.first_name in st.alive)
    target = next(n for n in st.alive if n != speaker.first_name)
    before = {p.number: len(p.texts()) for p in sms}
    mine = len(speaker.texts())
    speaker.say(f"vot {target}", chat=GROUP)  # a slip of "vote"
    speaker.say(f"vote {target}", chat=GROUP)  # the move itself, typed without the slash
    speaker.say(f"Will {target} lie again?", chat=GROUP)  # talk that starts near a verb
    work(stack)
    answers = speaker.texts()[mine:]
    assert (
        answers
        == [f"Did you mean: vote {target}? Write moves to me here, privately: I passed nothing on to the others."] * 2
    ), answers
    assert not st.votes and not state(stack).votes  # nothing was cast
    stack.finish_phase()
    work(stack)
    for p in sms:
        news = "\n".join(p.texts()[before[p.number] :])
        assert f"Will {target} lie again?" in news, news
        assert f"vot {target}" not in news and f"vote {target}" not in news, news
