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


@given(st.lists(st.tuples(st.text(min_size=1, max_size=50), st.booleans()), max_size=20),
       st.integers(min_value=20, max_value=200))
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
    words = [w[i:i + max_len] for w in text.split() for i in range(0, len(w), max_len)]
    assert [w for p in pieces for w in p.split()] == words
