"""The checks' memory of short texts: a reading is remembered only for short texts, a longer
one is read each time, and the clean-text set never keeps a long text and stays bounded."""

from __future__ import annotations

from humangr.engine.checks.remember import CleanTexts, remembered


def test_a_short_text_is_read_once_and_a_long_one_each_time() -> None:
    reads: list[str] = []

    @remembered(max_chars=5, maxsize=8)
    def read(text: str, flag: bool) -> tuple[str, bool]:
        reads.append(text)
        return (text.upper(), flag)

    assert read("abc", True) == ("ABC", True)
    assert read("abc", True) == ("ABC", True)
    assert read("abc", False) == ("ABC", False)
    assert read("abcdef", True) == ("ABCDEF", True)
    assert read("abcdef", True) == ("ABCDEF", True)
    assert reads == ["abc", "abc", "abcdef", "abcdef"]
    assert read.__name__ == "read"


def test_clean_texts_keep_only_short_texts_and_stay_bounded() -> None:
    clean: CleanTexts[str] = CleanTexts(limit=3, max_chars=4)
    clean.keep("long text", "long text")
    assert "long text" not in clean
    for word in ("a", "b", "c"):
        clean.keep(word, word)
    assert sorted(clean) == ["a", "b", "c"]
    clean.keep("d", "d")
    assert len(clean) <= 3
    assert "d" in clean
