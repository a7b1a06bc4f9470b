"""A message's text as its reader sees it (for ``prose``): the same words in another form are
the same message. The readers of ``prose`` are run again on this view when it differs:

- characters no one sees are dropped (zero-width spaces and joiners, soft hyphens, direction
  marks: ``pass\u200bword`` reads ``password``) and odd spaces become spaces;
- Cyrillic and Greek letters written inside a Latin word read as the Latin letters they pass
  for (``pаssword`` with a Cyrillic ``а``), and full-width letters as plain ones;
- HTML is read as shown: tags go (``<b>pass</b>word``), hidden elements with them, entities
  are decoded (``&#112;assword``) and a link reads ``text (target)``;
- a command's lines joined where a backslash continues them;
- Markdown (``[text](<target> "title")``) and Slack (``<target|text>``) links read
  ``text (target)``.

Pure functions; each pass is gated by a character test and bounded.
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["reader_view"]

_MAX_TEXT = 20_000
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff]"
)
_ODD_SPACE = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_CONFUSABLE = str.maketrans(
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u0501\u04bb\u0410\u0412\u0415"
    "\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u03bf\u03b1\u03b9\u03ba\u03bd\u03c1\u039f"
    "\u0391\u0392\u0395\u0397\u0399\u039a\u039c\u039d\u03a1\u03a4\u03a7",
    "aeopcyxijsdhABEKMHOPCTXoaikvpOABEHIKMNPTX",
)
"""Cyrillic and Greek letters that pass for Latin ones."""
_MIXED_WORD = re.compile(r"[^\W\d_]{2,64}")
_HIDDEN = re.compile(
    r"(?is)<(span|div|font|p|td|b|i)\b[^>]{0,400}?(?:display\s{0,3}:\s{0,3}none|"
    r"visibility\s{0,3}:\s{0,3}hidden|font-size\s{0,3}:\s{0,3}0(?:px|pt|em)?\s{0,3}[;\"'])"
    r"[^>]{0,400}>[^<]{0,400}</\1\s{0,3}>"
)
_SCRIPT = re.compile(r"(?i)<(script|style|head)\b")
_ANCHOR = re.compile(
    r"(?is)<a\b[^>]{0,400}?\bhref\s{0,3}=\s{0,3}[\"']?([^\"'\s>]{1,2000})[^>]{0,400}>"
    r"(.{0,400}?)</a\s{0,3}>"
)
_BLOCK = re.compile(r"(?i)<(?:br|/?p|/?div|/?li|/?tr|/?h[1-6]|/?table|/?ul|/?ol|hr)\b[^>]{0,400}>")
_TAG = re.compile(r"</?[A-Za-z!][^<>]{0,400}>")
_MARKDOWN = re.compile(
    r"\[([^\]\n]{1,300})\]\(\s{0,3}<?([a-z][a-z0-9+.-]{0,15}:[^)\s>\[\]]{1,2000})>?"
    r"(?:\s{1,3}(?:\"[^\"\n]{0,200}\"|'[^'\n]{0,200}'))?\s{0,3}\)",
    re.I,
)
_SLACK = re.compile(
    r"<((?:https?|mailto|ftp|javascript|data):[^|<>\s]{1,2000})(?:\|([^<>]{0,400}))?>"
)


def _latin(match: re.Match[str]) -> str:
    word = match.group(0)
    if word.isascii() or not any("a" <= c.lower() <= "z" for c in word):
        return word
    return word.translate(_CONFUSABLE)


def _html(text: str) -> str:
    for _ in range(16):  # each block cut to its end tag, or to the text's end without one
        m = _SCRIPT.search(text)
        if m is None:
            break
        end = text.lower().find(f"</{m.group(1).lower()}", m.end())
        text = text[: m.start()] + " " + (text[end + 2 :] if end >= 0 else "")
    text = _HIDDEN.sub("", text)
    text = _ANCHOR.sub(lambda m: f"{m.group(2)} ({html.unescape(m.group(1))})", text)
    text = _BLOCK.sub("\n", text)
    return _TAG.sub("", text)


def reader_view(raw: str) -> str | None:
    """``raw`` as its reader sees it, or None when that is ``raw`` itself."""
    text = raw[:_MAX_TEXT]
    if not text.isascii():
        text = _INVISIBLE.sub("", text)
        text = _ODD_SPACE.sub(" ", text)
        if any("\uff01" <= c <= "\uff5e" for c in text):
            text = unicodedata.normalize("NFKC", text)
        text = _MIXED_WORD.sub(_latin, text)
    if "\\\n" in text:
        text = re.sub(r"\\\n[ \t]{0,40}", " ", text)  # a shell line's continuation
    if "<" in text and _TAG.search(text):
        if "|" in text or "<http" in text:
            text = _SLACK.sub(lambda m: f"{m.group(2) or ''} ({m.group(1)})", text)
        text = _html(text)
    if "&" in text and ";" in text:
        text = html.unescape(text)
    if "](" in text:
        text = _MARKDOWN.sub(lambda m: f"{m.group(1)} ({m.group(2)})", text)
    return None if text == raw[:_MAX_TEXT] else text
