"""The inbox's forms, read strictly: URL-encoded UTF-8, a size limit, the expected fields only,
each at most once, no control characters in free text."""

from __future__ import annotations

import re
from collections.abc import Collection
from urllib.parse import parse_qsl

from starlette.requests import Request

from humangr.engine.errors import EngineError

__all__ = ["MAX_FORM_BYTES", "BadForm", "clean_text", "read_form", "require"]

MAX_FORM_BYTES = 16_384
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


class BadForm(EngineError):
    """A form the inbox cannot take; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


async def read_form(request: Request, allowed: Collection[str]) -> dict[str, str]:
    """The posted fields, each of ``allowed`` at most once and nothing else; a ``BadForm``
    otherwise (``require`` then says which are needed)."""
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise BadForm("send the form as application/x-www-form-urlencoded", 415)
    declared = request.headers.get("content-length", "0")
    if not declared.isdigit() or int(declared) > MAX_FORM_BYTES:
        raise BadForm(f"a form is at most {MAX_FORM_BYTES:,} bytes", 413)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise BadForm(f"a form is at most {MAX_FORM_BYTES:,} bytes", 413)
    try:
        pairs = parse_qsl(
            bytes(body).decode("ascii"),
            keep_blank_values=True,
            strict_parsing=bool(body),
            encoding="utf-8",
            errors="strict",
            max_num_fields=len(allowed),
        )
    except (UnicodeError, ValueError):
        raise BadForm("the form is not URL-encoded UTF-8 with the inbox's fields") from None
    form: dict[str, str] = {}
    for name, value in pairs:
        if name not in allowed:
            raise BadForm(f"unexpected form field {name[:40]!r}")
        if name in form:
            raise BadForm(f"form field {name!r} given twice")
        form[name] = value
    return form


def require(form: dict[str, str], names: Collection[str]) -> None:
    """A ``BadForm`` naming the first of ``names`` that ``form`` lacks."""
    missing = [name for name in names if name not in form]
    if missing:
        raise BadForm(f"form field {missing[0]!r} is missing")


def clean_text(value: str, what: str) -> str:
    """``value`` if it holds no control or bidirectional-override characters (line breaks
    and tabs allowed), else a ``BadForm``."""
    if _CONTROL.search(value):
        raise BadForm(f"the {what} holds control or bidirectional characters; type plain text")
    return value.replace("\r\n", "\n")
