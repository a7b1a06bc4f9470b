"""The fallback reader: a small, linear shell lexer for what bashlex cannot read (``[[ … ]]``,
``case``, ``$((…))``, ``time``, ``coproc``, arrays, very long or very nested input).

It splits on the control operators, removes quotes (``'…'``, ``"…"``, ``$'…'`` decoded,
backslashes), keeps ``$(…)``, backticks and ``<(…)`` as substitutions read recursively, reads
redirections and heredoc bodies, and drops reserved words. It never raises: an unbalanced quote
or parenthesis becomes a problem in the budget and the rest of the text is still read.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .shell_lex_words import RESERVED, ansi_c, balanced, finish_simple
from .shell_model import MAX_DEPTH, Budget, Pipeline, Redirect, Script, Simple, Sub

__all__ = ["RESERVED", "ansi_c", "finish_simple", "lex", "unquote", "word_subs"]

Reader = Callable[[str, int, Budget], Script]

_REDIR = re.compile(r"(\d{1,2})?(&>>|&>|<<<|<<-|<<|<>|>>|>&|<&|>\||>|<)")
_OPS = re.compile(r"&&|\|\||;;|\|&|[;&|()]")
"""The control operators, longest first."""
_STOP = frozenset(" \t\n;&|()<>")
_PLAIN = re.compile(r"[^ \t\n;&|()<>\\'\"$`]+")
"""A run of characters no rule of ``word`` treats specially: taken whole, not one by one."""
_QUOTED_PLAIN = re.compile(r'[^"\\$`]+')
"""The same inside double quotes."""


class _Lexer:
    def __init__(self, text: str, depth: int, budget: Budget, reader: Reader) -> None:
        self.text, self.n, self.i = text, len(text), 0
        self.depth, self.budget, self.reader = depth, budget, reader
        self.script = Script()
        self.pipe = Pipeline()
        self.cmd = Simple()
        self.start = 0
        self.heredocs: list[tuple[Simple, int, str, bool]] = []
        self.parens = 0
        self.piped = False
        self.params = 0

    def sub(self, kind: str, inner: str, word: int) -> None:
        if self.depth + 1 > MAX_DEPTH:
            self.budget.problem("commands nested too deep")
            return
        self.cmd.subs.append(Sub(kind, word, self.reader(inner, self.depth + 1, self.budget)))

    def end_command(self, end: int | None = None) -> None:
        self.cmd.text = self.text[self.start : self.i if end is None else end].strip()
        done = finish_simple(self.cmd)
        if done is not None and self.budget.take():
            self.pipe.commands.append(done)
        self.cmd = Simple()

    def end_pipeline(self, background: bool = False, end: int | None = None) -> None:
        self.end_command(end)
        if self.pipe.commands:
            self.pipe.background = background
            self.script.pipelines.append(self.pipe)
        self.pipe = Pipeline()

    def read_heredocs(self) -> None:
        for cmd, index, delim, strip in self.heredocs:
            lines: list[str] = []
            while self.i < self.n:
                end = self.text.find("\n", self.i)
                end = self.n if end < 0 else end
                line = self.text[self.i : end]
                self.i = end + 1
                if (line.lstrip("\t") if strip else line) == delim:
                    break
                lines.append(line.lstrip("\t") if strip else line)
            old = cmd.redirects[index]
            cmd.redirects[index] = Redirect(old.op, old.fd, "\n".join(lines))
        self.heredocs.clear()

    def word(self) -> str:
        """Scan one word from ``self.i``; substitutions go to the current command."""
        text, n = self.text, self.n
        out: list[str] = []
        index = len(self.cmd.words)
        i = self.i
        if i + 1 < n and text[i] in "<>" and text[i + 1] == "(":
            end = balanced(text, i + 2, ")")
            if end < 0:
                self.budget.problem("unbalanced parenthesis")
                end = n
            self.sub(text[i], text[i + 2 : end], index)
            self.i = min(end + 1, n)
            return text[i : end + 1]
        plain = _PLAIN.match
        while i < n:
            if (run := plain(text, i)) is not None:
                out.append(run.group())
                i = run.end()
                continue
            c = text[i]
            if c in _STOP:
                if c in "<>" and out and i + 1 < n and text[i + 1] == "(":
                    end = balanced(text, i + 2, ")")  # ``a>(…)``: as bash, one word
                    if end < 0:
                        self.budget.problem("unbalanced parenthesis")
                        end = n
                    self.sub(c, text[i + 2 : end], index)
                    out.append(text[i : end + 1])
                    i = min(end + 1, n)
                    continue
                if c == "(" and out and out[-1].endswith("="):
                    end = balanced(text, i + 1, ")")
                    end = n - 1 if end < 0 else end
                    out.append(text[i : end + 1])
                    i = end + 1
                    continue
                break
            if c == "\\":
                if i + 1 < n and text[i + 1] != "\n":
                    out.append(text[i + 1])
                i += 2
            elif c == "'" or (c == "$" and text.startswith("$'", i)):
                ansi = c == "$"
                i += 1 if not ansi else 2
                end = i
                while end < n and text[end] != "'":
                    end += 2 if ansi and text[end] == "\\" else 1
                if end >= n:
                    self.budget.problem("unbalanced quote")
                body = text[i:end]
                out.append(ansi_c(body) if ansi else body)
                i = end + 1
            elif c == '"':
                i = self.dquote(i + 1, out, index)
            else:
                i = self.dollar(i, out, index)
        self.i = i
        return "".join(out)

    def dquote(self, i: int, out: list[str], index: int) -> int:
        text, n = self.text, self.n
        plain = _QUOTED_PLAIN.match
        while i < n and text[i] != '"':
            if (run := plain(text, i)) is not None:
                out.append(run.group())
                i = run.end()
                continue
            c = text[i]
            if c == "\\" and i + 1 < n:
                nxt = text[i + 1]
                if nxt != "\n":
                    out.append(nxt if nxt in '$`"\\' else c + nxt)
                i += 2
            elif c in "$`":
                i = self.dollar(i, out, index)
            else:
                out.append(c)
                i += 1
        if i >= n:
            self.budget.problem("unbalanced quote")
        return i + 1

    def dollar(self, i: int, out: list[str], index: int) -> int:
        """``$(…)``, ``$((…))``, ``${…}``, backticks, or one plain character at ``i``."""
        text, n = self.text, self.n
        if text.startswith("$((", i):
            end = balanced(text, i + 2, ")")
            if end < 0:
                self.budget.problem("unbalanced parenthesis")
                end = n - 1
            out.append(text[i : end + 1])
            return end + 1
        if text.startswith("$(", i) or text.startswith("${", i):
            close = ")" if text[i + 1] == "(" else "}"
            end = balanced(text, i + 2, close)
            if end < 0:
                self.budget.problem(
                    "unbalanced parenthesis" if close == ")" else "unbalanced brace"
                )
                end = n
            if close == ")":
                self.sub("$", text[i + 2 : end], index)
            else:
                self.param(i + 2, end, index)
            out.append(text[i : end + 1])
            return end + 1
        if text[i] == "`":
            end = i + 1
            while end < n and text[end] != "`":
                end += 2 if text[end] == "\\" else 1
            if end >= n:
                self.budget.problem("unbalanced backquote")
            self.sub("$", text[i + 1 : end].replace("\\`", "`"), index)
            out.append(text[i : end + 1])
            return end + 1
        out.append(text[i])
        return i + 1

    def param(self, i: int, end: int, index: int) -> None:
        """The substitutions inside ``${…}`` (``${x:-$(id)}`` runs ``id``), at most
        ``MAX_DEPTH`` braces deep (each level scans its body again)."""
        if self.params >= MAX_DEPTH:
            self.budget.problem("commands nested too deep")
            return
        self.params += 1
        text = self.text
        while i < end:
            c = text[i]
            if c == "\\":
                i += 2
            elif c == "`" or (c == "$" and text.startswith(("$(", "${"), i)):
                i = self.dollar(i, [], index)
            else:
                i += 1
        self.params -= 1

    def redirect(self, m: re.Match[str]) -> None:
        self.i = m.end()
        while self.i < self.n and self.text[self.i] in " \t":
            self.i += 1
        op = m.group(2)
        fd = int(m.group(1)) if m.group(1) else None
        count = len(self.cmd.words)
        target = self.word() if self.i < self.n and self.text[self.i] not in "\n;&|)" else ""
        del self.cmd.words[count:]
        for sub in self.cmd.subs:
            if sub.word >= count:
                sub.word = -1
        if op in ("<<", "<<-"):
            self.heredocs.append((self.cmd, len(self.cmd.redirects), target, op == "<<-"))
        self.cmd.redirects.append(Redirect(op, fd, target))

    def run(self) -> Script:
        text, n = self.text, self.n
        while self.i < n and not self.budget.exhausted:
            c = text[self.i]
            if c in " \t":
                self.i += 1
            elif c == "\\" and text.startswith("\\\n", self.i):
                self.i += 2
            elif c == "#" and not self.cmd.words:
                end = text.find("\n", self.i)
                self.i = n if end < 0 else end
            elif c == "\n":
                cmd = self.cmd
                if not (self.piped and not (cmd.words or cmd.assigns or cmd.redirects)):
                    self.end_pipeline()  # a line ending in ``|`` goes on on the next one
                    self.piped = False
                self.i += 1
                self.read_heredocs()
                self.start = self.i
            elif (m := _REDIR.match(text, self.i)) and not (
                m.group(2) in ("<", ">") and text.startswith("(", m.end())
            ):
                self.redirect(m)
            elif (op := _OPS.match(text, self.i)) is not None:
                self.operator(op.group())
            else:
                before = self.i
                self.cmd.words.append(self.word())
                if self.i == before:  # a character no rule consumes: keep it, move on
                    self.cmd.words[-1] = text[before]
                    self.i += 1
        self.end_pipeline()
        if self.heredocs:
            self.read_heredocs()
        return self.script

    def operator(self, op: str) -> None:
        at = self.i  # the command's text ends before its operator
        self.i += len(op)
        self.piped = op in ("|", "|&")
        if op in ("|", "|&"):
            self.end_command(at)
        elif op == "(" and len(self.cmd.words) == 1 and self.text.startswith(")", self.i):
            self.cmd = Simple()  # ``name() { … }``: a function definition, not a command
            self.i += 1
        elif op == ")" and self.parens == 0:
            self.cmd = Simple()  # a ``case`` pattern ``a|b)``
            self.pipe = Pipeline()
        else:
            self.parens += {"(": 1, ")": -1}.get(op, 0)
            self.end_pipeline(background=op == "&", end=at)
        self.start = self.i


def unquote(raw: str) -> str:
    """One word's text with its quotes removed, as the shell would (``'a "b"'`` → ``a "b"``);
    substitutions inside are kept as written, not read."""
    return _Lexer(raw, MAX_DEPTH, Budget(), lambda t, d, b: Script()).word()


def word_subs(raw: str, depth: int, budget: Budget, reader: Reader) -> list[Sub]:
    """The substitutions the lexer reads in one word as written (``${x:-$(id)}``), each
    read with ``reader``."""
    lexer = _Lexer(raw, depth, budget, reader)
    lexer.word()
    return lexer.cmd.subs


def lex(text: str, depth: int, budget: Budget, reader: Reader | None = None) -> Script:
    """Read ``text`` into a script; nested substitutions are read with ``reader`` (this lexer
    by default). Never raises."""
    return _Lexer(text, depth, budget, reader or (lambda t, d, b: lex(t, d, b))).run()
