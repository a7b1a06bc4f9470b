"""Reading a command line into pipelines of simple commands: bashlex first, the fallback lexer
(``shell_lex``) for what bashlex cannot read.

bashlex is a real bash grammar but it does not implement ``[[ … ]]``, ``case``, ``$((…))``,
``time``, ``coproc`` or quoted heredoc delimiters, and it recurses on nesting; anything it
refuses, and any text longer than ``_BASHLEX_LIMIT``, is read by the lexer instead. Only what
neither can read (an unbalanced quote, too deep, too many commands) becomes a problem.

bashlex is also ten times slower than the lexer, so text the two read alike (``plain``: no
compound command, subshell, negation, function, trailing comment, backslash or ``$'…'``) goes
to the lexer straight away (issue 19: p99 of a shell judgement under 5 ms). Where bashlex
misreads, the lexer reads instead: ``$(…)`` inside ``${…}`` or after ``~``, and backticks
around several lines, of which bashlex keeps only the first.
"""

from __future__ import annotations

import re
from typing import Any

from .shell_lex import finish_simple, lex, unquote
from .shell_lex import word_subs as lex_word_subs
from .shell_model import MAX_DEPTH, MAX_TEXT, Budget, Pipeline, Redirect, Script, Simple, Sub

__all__ = ["bashlex_script", "plain", "read_script"]

_BASHLEX_LIMIT = 12_000
_BASHLEX_LOOPS = re.compile(r"\$\{(?![^}'\"`\n]*\})")
"""A ``${`` whose ``}`` is missing or beyond a quote: bashlex 0.18 loops forever on it."""
_COMPOUND = re.compile(
    r"(?:^|[\n;&|()`])[ \t]*(?:(?:if|then|else|elif|fi|do|done|while|until|for|select|case|"
    r"esac|function|time|coproc|in|\{|\}|\[\[|\]\])(?=[\s;&|()<>]|$)|\(|!)|\(\s*\)|;;"
)
"""What the lexer reads otherwise than bashlex: reserved words, ``(``, ``!`` at the head of a
command (compound commands, subshells, negation), function definitions, ``case`` arms."""
_LATER_RESERVED = re.compile(
    r"[\s<>&|](?:if|then|else|elif|fi|do|done|while|until|for|select|case|esac|function|time|"
    r"coproc|in|\{|\}|\[\[|\]\]|!|\()(?=[\s;&|()<>]|$)"
)
_HEAD = re.compile(r"(?:^|[\n;&|()`])[ \t]*(?:[A-Za-z_]\w*(?:\[[^\]\n]*\])?\+?=|\d*[<>]|&>)")
"""With ``_LATER_RESERVED``: a reserved word after a command's leading assignment or
redirection, which bashlex still reads as reserved (``X=1 fi``)."""
_COMMENT = re.compile(r"(?<=[\s;&|()<>])#")
_MAX_SUSPECTS = 32
"""Past this many comments or later reserved words, text goes to bashlex (keeps ``plain``
linear)."""
_BACKTICK_LINES = re.compile(r"`[^`]*\n[^`]*`")
"""Backticks around several lines: bashlex reads only the first line inside."""


class _Walker:
    """bashlex's nodes → ``Script``."""

    def __init__(self, text: str, depth: int, budget: Budget) -> None:
        self.text, self.depth, self.budget = text, depth, budget

    def raw(self, node: Any) -> str:
        start, end = getattr(node, "pos", (0, 0))
        return str(self.text[start:end])

    def script(self, nodes: list[Any]) -> Script:
        out = Script()
        for node in nodes:
            self.node(node, out)
        return out

    def node(self, node: Any, out: Script) -> None:
        kind = getattr(node, "kind", "")
        if kind == "list":
            for part in node.parts:
                if getattr(part, "kind", "") == "operator":
                    if part.op == "&" and out.pipelines:
                        out.pipelines[-1].background = True
                else:
                    self.node(part, out)
        elif kind == "pipeline":
            pipe = Pipeline()
            for part in node.parts:
                if getattr(part, "kind", "") != "pipe":
                    pipe.commands.extend(self.members(part, out))
            if pipe.commands:
                out.pipelines.append(pipe)
        elif kind == "function":
            body = Script()
            for part in node.parts:
                if getattr(part, "kind", "") == "compound":
                    self.node(part, body)
            name = next((p.word for p in node.parts if getattr(p, "kind", "") == "word"), "")
            out.functions[name] = body
        elif kind == "command":
            cmd = self.simple(node)
            if cmd is not None:
                out.pipelines.append(Pipeline([cmd]))
        else:
            redirects = [self.redirect(r, Simple()) for r in getattr(node, "redirects", [])]
            before = len(out.pipelines)
            loop = _loop_variable(node)
            if loop is not None:  # ``for d in /home/*``: the body sees what ``d`` takes
                out.pipelines.append(Pipeline([Simple(assigns=[loop], text="for")]))
            for part in list(getattr(node, "list", [])) + list(getattr(node, "parts", [])):
                part_kind = getattr(part, "kind", "")
                if part_kind == "word":
                    holder = Simple()
                    self.word_subs(part, -1, holder)
                    if holder.subs:
                        out.pipelines.append(Pipeline([holder]))
                elif part_kind not in ("reservedword", "operator", "pipe"):
                    self.node(part, out)
            for pipe in out.pipelines[before:]:
                for cmd in pipe.commands:
                    cmd.redirects.extend(r for r in redirects if r is not None)

    def members(self, part: Any, out: Script) -> list[Simple]:
        if getattr(part, "kind", "") == "command":
            cmd = self.simple(part)
            return [cmd] if cmd is not None else []
        inner = Script(functions=out.functions)
        self.node(part, inner)
        return [cmd for pipe in inner.pipelines for cmd in pipe.commands]

    def word_subs(self, node: Any, index: int, cmd: Simple) -> None:
        raw = self.raw(node)
        if ("${" in raw or "~" in raw) and ("$(" in raw or "`" in raw):
            # bashlex leaves ``$(…)`` inside ``${…}`` or after ``~`` unread: the lexer reads it
            for sub in lex_word_subs(raw, self.depth, self.budget, read_script):
                cmd.subs.append(Sub(sub.kind, index, sub.script))
            return
        for part in getattr(node, "parts", []) or []:
            kind = getattr(part, "kind", "")
            if kind in ("commandsubstitution", "processsubstitution"):
                if self.depth + 1 > MAX_DEPTH:
                    self.budget.problem("commands nested too deep")
                    continue
                sub_kind = "$" if kind == "commandsubstitution" else self.raw(part)[:1]
                inner = _Walker(self.text, self.depth + 1, self.budget).script([part.command])
                cmd.subs.append(Sub(sub_kind, index, inner))
            elif kind not in ("word",):
                self.word_subs(part, index, cmd)

    def redirect(self, node: Any, cmd: Simple) -> Redirect | None:
        if getattr(node, "kind", "") != "redirect":
            return None
        fd = node.input if isinstance(getattr(node, "input", None), int) else None
        output = node.output
        target = str(output) if isinstance(output, int) else str(getattr(output, "word", ""))
        if isinstance(output, int) is False and output is not None:
            self.word_subs(output, -1, cmd)
        heredoc = getattr(node, "heredoc", None)
        if heredoc is not None:
            body = str(heredoc.value)
            head, _, last = body.rpartition("\n")
            target = head if last.strip() == target.strip("'\"") else body
        return Redirect(str(node.type), fd, target)

    def simple(self, node: Any) -> Simple | None:
        cmd = Simple(text=self.raw(node).strip())
        for part in node.parts:
            kind = getattr(part, "kind", "")
            if kind == "word" or (kind == "assignment" and cmd.words):  # ``a >f X=1``: a word
                raw = self.raw(part)
                word = str(part.word)
                if any(c in raw for c in "'\"\\"):
                    word = unquote(raw)
                self.word_subs(part, len(cmd.words), cmd)
                cmd.words.append(word)
            elif kind == "assignment":
                self.word_subs(part, -1, cmd)
                raw = self.raw(part)
                text = unquote(raw) if any(c in raw for c in "'\"\\") else str(part.word)
                name, _, value = text.partition("=")
                cmd.assigns.append((name.rstrip("+"), value))
            else:
                redirect = self.redirect(part, cmd)
                if redirect is not None:
                    cmd.redirects.append(redirect)
        done = finish_simple(cmd)
        if done is None or not self.budget.take():
            return None
        return done


def _loop_variable(node: Any) -> tuple[str, str] | None:
    """A ``for NAME in WORDS`` loop's variable and every value it takes, as one assignment
    (``d`` = ``/home/*``): a command of the body that uses ``$d`` is read with all of them."""
    parts = list(getattr(node, "parts", []) or [])
    words = [p for p in parts if getattr(p, "kind", "") in ("word", "reservedword")]
    if len(words) < 4 or getattr(words[0], "word", "") != "for":
        return None
    if getattr(words[2], "word", "") != "in" or getattr(words[1], "kind", "") != "word":
        return None
    items: list[str] = []
    for part in words[3:]:
        if getattr(part, "kind", "") != "word":
            break
        items.append(str(part.word))
    return (str(words[1].word), " ".join(items)) if items else None


def plain(text: str) -> bool:
    """True when the fallback lexer reads ``text`` exactly as bashlex does (the same
    ``Script`` and budget; ``tests/checks/tools/test_shell_reader.py`` holds the two to it):
    no compound command, subshell, negation, function, comment after a word, backslash or
    ``$'…'``. Such text skips bashlex, which is ten times slower; the ``$(…)`` inside it is
    read by ``read_script`` again. Linear in ``text``."""
    if "\\" in text or "$'" in text or _COMPOUND.search(text):
        return False
    for count, m in enumerate(_COMMENT.finditer(text)):
        if count >= _MAX_SUSPECTS or text[text.rfind("\n", 0, m.start()) + 1 : m.start()].strip():
            return False  # a comment after a word on its line
    for count, m in enumerate(_LATER_RESERVED.finditer(text)):
        start = max(text.rfind("\n", 0, m.start()), text.rfind(";", 0, m.start()), 0)
        if count >= _MAX_SUSPECTS or _HEAD.search(text, start, m.start() + 1):
            return False
    return True


def bashlex_script(text: str, depth: int, budget: Budget) -> Script | None:
    """``text`` as bashlex reads it, or None (the budget as it was) when bashlex cannot."""
    used = budget.commands
    problems = list(budget.problems)
    import bashlex  # here, not at the top: importing it builds its grammar (0.15 s a process)

    try:
        nodes = bashlex.parse(text)
        return _Walker(text, depth, budget).script(list(nodes))
    except Exception:  # bashlex's ParsingError, or any bashlex bug: the lexer reads the text
        pass
    budget.commands = used
    budget.problems[:] = problems
    return None


def read_script(text: str, depth: int = 0, budget: Budget | None = None) -> Script:
    """The pipelines of ``text``; what could not be read goes to ``budget.problems``.
    Never raises."""
    budget = budget if budget is not None else Budget()
    if depth > MAX_DEPTH:
        budget.problem("commands nested too deep")
        return Script()
    if len(text) > MAX_TEXT:
        budget.problem(f"longer than {MAX_TEXT} characters")
        text = text[:MAX_TEXT]
    if "\x00" in text:
        text = text.replace("\x00", " ")
    if (
        len(text) <= _BASHLEX_LIMIT
        and text.strip()
        and not _BASHLEX_LOOPS.search(text)
        and not _BACKTICK_LINES.search(text)
        and not plain(text)
    ):
        script = bashlex_script(text, depth, budget)
        if script is not None:
            return script
    return lex(text, depth, budget, read_script)
