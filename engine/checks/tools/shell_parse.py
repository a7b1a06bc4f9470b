"""Reading a command line into pipelines of simple commands: bashlex first, the fallback lexer
(``shell_lex``) for what bashlex cannot read.

bashlex is a real bash grammar but it does not implement ``[[ … ]]``, ``case``, ``$((…))``,
``time``, ``coproc`` or quoted heredoc delimiters, and it recurses on nesting; anything it
refuses, and any text longer than ``_BASHLEX_LIMIT``, is read by the lexer instead. Only what
neither can read (an unbalanced quote, too deep, too many commands) becomes a problem.
"""

from __future__ import annotations

import re
from typing import Any

import bashlex

from .shell_lex import finish_simple, lex, unquote
from .shell_model import MAX_DEPTH, MAX_TEXT, Budget, Pipeline, Redirect, Script, Simple, Sub

__all__ = ["read_script"]

_BASHLEX_LIMIT = 12_000
_BASHLEX_LOOPS = re.compile(r"\$\{(?![^}'\"`\n]*\})")
"""A ``${`` whose ``}`` is missing or beyond a quote: bashlex 0.18 loops forever on it."""
_BASHLEX_FAILS = (
    bashlex.errors.ParsingError,
    NotImplementedError,
    RecursionError,
    AssertionError,
    AttributeError,
    IndexError,
    KeyError,
    TypeError,
    ValueError,
)


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
            if kind == "word":
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
    if len(text) <= _BASHLEX_LIMIT and text.strip() and not _BASHLEX_LOOPS.search(text):
        used = budget.commands
        problems = list(budget.problems)
        try:
            nodes = bashlex.parse(text)
            return _Walker(text, depth, budget).script(list(nodes))
        except _BASHLEX_FAILS:
            budget.commands = used
            budget.problems[:] = problems
        except Exception:
            budget.commands = used
            budget.problems[:] = problems
    return lex(text, depth, budget, read_script)
