from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from service.delivery.batching import merge, split
from service.delivery.senders import Button

KB = [[Button("Bob", data="v:2")]]


def test_queued_group_texts_become_few_messages():
    queued = [("Alba.", None), ("Bob è morto.", None), ("Votate:", KB), ("Nota", None)]
    batches = merge(queued)
    assert [(b.text, b.items) for b in batches] == [("Alba.\n\nBob è morto.\n\nVotate:", (0, 1, 2)), ("Nota", (3,))]
    assert batches[0].buttons == KB and batches[1].buttons is None


def test_merge_respects_the_length_limit():
    queued = [("a" * 6, None), ("b" * 6, None), ("c" * 6, None)]
    assert [b.text for b in merge(queued, max_len=14)] == ["aaaaaa\n\nbbbbbb", "cccccc"]
    assert [b.items for b in merge([("x" * 20, None), ("y", None)], max_len=10)] == [(0,), (1,)]


def test_split_prefers_paragraphs_then_lines_then_words():
    text = "uno due tre\n\nquattro cinque\nsei"
    assert split(text, 15) == ["uno due tre", "quattro cinque", "sei"]
    assert split("abcdefghij", 4) == ["abcd", "efgh", "ij"]
    assert split("", 5) == [""]
    assert split(" bbbbbbbbb", 5) == ["bbbbb", "bbbb"]


@given(
    st.lists(st.tuples(st.text(min_size=1, max_size=50), st.booleans()), max_size=20),
    st.integers(min_value=20, max_value=200),
)
def test_merge_keeps_every_item_once_in_order(items, max_len):
    queued = [(t, KB if b else None) for t, b in items]
    batches = merge(queued, max_len=max_len)
    assert [i for b in batches for i in b.items] == list(range(len(queued)))
    for b in batches:
        assert len(b.items) == 1 or len(b.text) <= max_len
        assert b.text == "\n\n".join(queued[i][0] for i in b.items)
        assert (b.buttons is not None) == (queued[b.items[-1]][1] is not None)


@given(st.text(alphabet="ab \n", max_size=300), st.integers(min_value=5, max_value=50))
def test_split_pieces_fit_and_lose_no_words(text, max_len):
    pieces = split(text, max_len)
    assert all(len(p) <= max_len for p in pieces)
    words = [w[i : i + max_len] for w in text.split() for i in range(0, len(w), max_len)]
    assert [w for p in pieces for w in p.split()] == words


_words = st.text(alphabet="abcdefgh \n", min_size=0, max_size=900).map(lambda t: t.strip() or "x")


@given(st.lists(_words, min_size=1, max_size=8), st.sampled_from(["-77", "77", "+39333"]))
def test_a_chats_rows_go_out_whole_in_order_and_within_the_limit(texts: list[str], address: str) -> None:
    from service.channels import channel as channel_of
    from service.delivery.batching import sends
    from service.delivery.rows import Row

    channel = "sms" if address.startswith("+") else "telegram"
    limit = channel_of(channel).max_len
    assert limit is not None
    rows = [Row(i, 1, 5, channel, address, t * (1 + i % 5), None, f"k{i}", None) for i, t in enumerate(texts)]
    out = sends(rows)
    assert all(len(s.text) <= limit for s in out)
    assert [r.id for s in out for r in s.rows if s.finishes] == [r.id for r in rows]  # each once, in order
    assert "".join("".join(s.text.split()) for s in out) == "".join("".join(r.text.split()) for r in rows)
    if address != "-77":  # only a group's texts are merged
        assert all(len(s.rows) == 1 for s in out)
