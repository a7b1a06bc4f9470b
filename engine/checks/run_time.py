"""What a source file in another language runs that it builds at run time, so no local check
can read it (``source_code``): a process started with a command that is no literal (``exec(cmd)``,
``exec.Command("sh", "-c", fmt.Sprintf(…))``, ``system(buf)``, a template with values put in),
or code evaluated from a value (``eval(x)``, ``CSharpScript.EvaluateAsync(body)``, a SpEL
``parseExpression(input)``). Without an LLM, such a file needs a human: what cannot be read is
not vouched for. Fixed commands with values as separate arguments (``ffmpeg -i IN OUT``) are
read by the shell rules and are not this."""

from __future__ import annotations

import re

from .tools.shell_code import call_region
from .tools.source_calls import wrapper_calls

__all__ = ["built_at_run_time"]

_MAX_CALLS = 64
_START = re.compile(
    r"(?:(?<![\w.$])|(?<=[\"']\.)|(?:child_process|cp|shell|getRuntime\(\)|Kernel|Open3|"
    r"require\(\s*[\"'](?:node:)?child_process[\"']\s*\))\.)"
    r"(?:execSync|exec|execa|execaCommand|spawn|spawnSync|system|shell_exec|passthru|popen|"
    r"proc_open|capture[23e]?)\s*\(|"
    r"(?:exec\.Command(?:Context)?|ProcessBuilder|IO\.popen|Command::new|Process\.(?:run|start|Start)|"
    r"new\s+Deno\.Command|Bun\.spawn(?:Sync)?|:os\.cmd|System\.cmd|io\.popen|os\.execute)\s*\("
)
"""Calls that start a process (bare names only where no other meaning is common)."""
_EVALUATE = re.compile(
    r"(?:(?<![\w.$])(?:eval|instance_eval|class_eval|module_eval|loadstring|create_function)|"
    r"new\s+Function|vm\.runIn\w+|Code\.eval_string|CSharpScript\.(?:EvaluateAsync|RunAsync)|"
    r"\.parseExpression|ScriptEngine\w*\.eval|\bengine\.eval|Invoke-Expression|"
    r"GroovyShell\(\)\.evaluate)\s*\("
)
"""Calls that evaluate code."""
_LITERAL = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`[^`]*`")
_PLAIN = re.compile(
    r"\s*(?:@|r#*)?(?:\"(?:[^\"\\\n$#{]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`[^`$]*`)#*\s*$"
)
_SHELL_SWITCH = re.compile(r"""["'](?:-c|/c|/C|-Command|-EncodedCommand|-e)["']""")
_BUILT = re.compile(
    r"\$\{|#\{|%[sdv]|\{\}|\+\s*[A-Za-z_(]|\b(?:format|sprintf|Sprintf|concat)\b|"
    r"\.\.\s*[A-Za-z_(]|[\"']\s*\.\s*\$\w"
)
"""A value put into a command: interpolated, formatted, or joined (``+``, Lua's ``..``, PHP's
``.``)."""


def _arguments(code: str, start: int) -> str:
    """The argument text of the call whose opening parenthesis is just before ``start``."""
    return call_region(code, start, "(", "\"'`")


def _unread_command(arguments: str) -> bool:
    """Whether the command of a process call is built at run time (no literal program or
    command, or a shell's script that is not one literal)."""
    if not _LITERAL.search(arguments):
        return bool(arguments.strip())
    switch = _SHELL_SWITCH.search(arguments)
    if switch is not None:
        script = arguments[switch.end() :].lstrip(" ,\n\t")
        head = re.split(r",\s*(?![^()]*\))", script, maxsplit=1)[0]
        return not _PLAIN.match(head.rstrip(") ]\n"))
    first = re.split(r",\s*(?![^()]*\))", arguments, maxsplit=1)[0]
    return bool(_BUILT.search(first)) and not _PLAIN.match(first)


_NAME = re.compile(r"\s*&?([A-Za-z_]\w{0,40})\s*(?:[,)!]|$)")


def _helpers_named(code: str) -> bool:
    """Whether the file has helpers that start the program they are given, and every call of
    them names its program literally (those calls are judged as commands themselves)."""
    helpers = wrapper_calls(code)
    return bool(helpers) and all(_LITERAL.match(call.lstrip()) for _, _, call in helpers)


def _from_literals(code: str, arguments: str, helpers_named: bool) -> bool:
    """Whether a call's first argument is a name the file gives literal values only: a helper's
    parameter (``helpers_named``), assigned an expression with a literal in it (``psi = new
    ProcessStartInfo("magick")``) or bound by a loop over a literal list (``for {cmd, args} <-
    [{"mix", …}]``)."""
    m = _NAME.match(arguments)
    if m is None:
        return False
    if helpers_named:
        return True
    name = re.escape(m.group(1))
    assigned = re.search(
        rf"\b{name}\s*(?::\s*[^=\n]{{1,60}})?(?::=|=)(?!=)\s*([^;\n]{{1,300}})", code
    )
    if assigned is not None:
        value = assigned.group(1)
        return bool(_LITERAL.search(value)) and not _BUILT.search(value)
    looped = re.search(rf"\b{name}\b[^\n]{{0,80}}(?:<-|\bin\b|\bof\b)\s*\[", code)
    return looped is not None


def built_at_run_time(code: str) -> tuple[int, str] | None:
    """The offset and kind (``command`` or ``code``) of the first process started, or code
    evaluated, from something built at run time; ``None`` when every one is read."""
    helpers_named: bool | None = None
    for count, m in enumerate(_START.finditer(code)):
        if count >= _MAX_CALLS:
            break
        arguments = _arguments(code, m.end())
        if not _unread_command(arguments):
            continue
        if helpers_named is None:
            helpers_named = _helpers_named(code)
        if not _from_literals(code, arguments, helpers_named):
            return m.start(), "command"
    for count, m in enumerate(_EVALUATE.finditer(code)):
        if count >= _MAX_CALLS:
            break
        arguments = _arguments(code, m.end())
        if arguments.strip() and not _PLAIN.match(arguments.split(",")[0]):
            return m.start(), "code"
    return None
