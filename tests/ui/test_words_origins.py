"""lessons.qkv.example_tokens / grown_sizes: what the page says when a sentence or a size leaves the example
(issue 9). Expected tokens read off the presets' tables by hand: 犬が歩く gives X rows for 犬, が, 歩く (sizes
d_model 4, d_k 5, d_v 4); "A B C" gives Q, K, V rows for A, B, C (d_k = d_v = 2); "custom" gives nothing."""
from __future__ import annotations

import numpy as np

from lessons import qkv as L


def test_a_sentence_over_dog():
    s = L.with_text(L.default_state("dog"), "猫が魚を食べる")
    assert L.example_tokens(s) == (("が",), ("猫", "魚", "を", "食べる"))
    # and that is where the rows start: が the example's [0, 0, 1, 0], the others the seed's
    assert s.mats["X"][1].tolist() == [0, 0, 1, 0]
    assert not np.array_equal(s.mats["X"][0], [1, 0, 0, 1])


def test_repeats_and_order():
    s = L.with_text(L.default_state("dog"), "猫 犬 猫 が")
    assert L.example_tokens(s) == (("犬", "が"), ("猫",))


def test_nothing_to_say():
    assert L.example_tokens(L.default_state("dog")) is None  # its own sentence
    assert L.example_tokens(L.with_text(L.default_state("dog"), "犬  が 歩く")) is None  # same tokens, other spaces
    assert L.example_tokens(L.with_text(L.default_state("custom"), "犬 が")) is None  # custom gives no numbers
    assert L.example_tokens(L.with_text(L.default_state("dog"), "")) is None
    assert L.grown_sizes(L.with_sizes(L.default_state("custom"), d_k=9)) == []


def test_direct_example():
    s = L.with_text(L.default_state("direct3"), "A B D")
    assert L.example_tokens(s) == (("A", "B"), ("D",))
    assert L.grown_sizes(L.with_sizes(s, d_k=4, d_model=9)) == [("d_k", 2, 4)]  # no d_model in direct mode


def test_grown_sizes_of_dog():
    s = L.with_sizes(L.default_state("dog"), d_model=6, d_k=8, d_v=3)
    assert L.grown_sizes(s) == [("d_model", 4, 6), ("d_k", 5, 8)]
    given = np.array(L.PRESETS["dog"].weights["W_K"], dtype=float)
    assert np.array_equal(s.mats["W_K"][:4, :5], given)  # the example's numbers stay where they were
    assert L.grown_sizes(L.with_sizes(s, d_model=4, d_k=5)) == []
