"""Credentials a message writes out in forms the labelled readers of ``prose`` miss:

- an environment variable named for a secret with its value (``AWS_SECRET_ACCESS_KEY=9kQz…``,
  pasted from a debug log or a ``.env``);
- an ``Authorization:`` line of any scheme (``Authorization: Snowflake Token="…"``);
- a token given to a sign-in command (``wandb login 3f2a…``, ``--token=…``);
- a service token's prefix with a token's body that the exact format rejects (a sample's
  ``EXAMPLE`` inside a real-shaped key still hands over what it looks like);
- a person's identity record: two of a labelled SSN, a birth date, a full card number, or the
  further kinds of ``identity_kinds`` (an identity document, a card's ending and expiry, a
  bank account, a health detail);
- a wallet's recovery phrase: twelve or more words of three to eight lower-case letters after
  a word for it (``wallet seed: ripple lesson bacon …``); prose has two-letter words among
  any twelve.

Pure functions of the text; each answers ``(severity, title, advice)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from ..compliance import luhn_valid
from .egress_scan import service_token
from .identity_kinds import identity_kinds
from .key_ids import lone_key_ids

__all__ = ["written_secrets"]

_MAX_TEXT = 20_000
_ENV_SECRET = re.compile(
    r"(?<![\w$])[A-Z0-9_]{0,40}(?:SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|APIKEY|PRIVATE_KEY)"
    r"[A-Z0-9_]{0,30}[ \t]{0,3}[=:][ \t]{0,3}[\"']?([^\s\"'`<>,;]{12,200})"
)
"""A variable named for a secret, assigned a value (``DB_PASSWORD=…``, ``API_TOKEN: …``)."""
_SNAKE_SECRET = re.compile(
    r"(?<![\w$])(?:[a-z0-9]{1,20}_){1,4}(?:secret|token|password|passwd|api_key|apikey|"
    r"private_key)(?:_[a-z0-9]{1,20}){0,3}[ \t]{0,3}[=:][ \t]{0,3}[\"']?([^\s\"'`<>,;]{12,200})"
)
"""The same in a configuration's lower case (``aws_secret_access_key = …``)."""
_AUTH_ANY = re.compile(
    r"(?i)\bauthorization[ \t]{0,3}:[ \t]{0,3}[A-Za-z][\w-]{1,20}[ \t]{1,3}"
    r"(?:token[ \t]{0,2}=[ \t]{0,2})?"
    r"[\"']?([^\s\"',;]{16,400})"
)
_LOGIN_TOKEN = re.compile(
    r"(?i)\b[a-z][\w-]{1,30}(?:[ \t]+auth)?[ \t]+login[ \t]+(?:--?[\w-]+[ \t]+){0,3}[\"']?"
    r"([A-Za-z0-9_\-.]{32,200})(?![\w-])|"
    r"(?<![\w-])--(?:token|api-key|apikey|auth-token|access-token|password|secret)"
    r"(?:=|[ \t]{1,3})[\"']?([^\s\"'`<>]{16,200})"
)
"""A token given to a command that signs in (``wandb login 3f2a…``, ``--token=…``)."""
_PREFIXED = re.compile(
    r"(?<![\w-])(?:sk-ant-|sk-proj-|gh[pousr]_|github_pat_|glpat-|xox[abpr]-|[rs]k_live_|"
    r"npm_|SG\.|AKIA|hf_|pypi-)([\w\-.]{16,200})"
)
_FILLER = re.compile(
    r"(?i)example|your|placeholder|redacted|changeme|change|replace|insert|dummy|here|token|key|"
    r"secret|x{4,}"
)
_CODE_READ = re.compile(r"(?i)environ|getenv|process\.env|secrets\.|vault|\$\{|\{\{|^\$")
_PLACEHOLDER = re.compile(r"(?i)^(?:<[^>]*>|\*+|x+|\.+|\$\S*|%\S*%|your\S*|changeme\S*)$")
_SSN = re.compile(
    r"(?i)\b(?:SSN|social security(?: number| no\.?)?)\b\W{0,4}\d{3}[- ]?\d{2}[- ]?\d{4}\b"
)
_BIRTH = re.compile(
    r"(?i)\b(?:DOB|d\.o\.b\.?|date of birth|born(?: on)?|birth ?date)\b\W{0,4}"
    r"(?:\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|[A-Z][a-z]{2,8}\.? \d{1,2},? \d{4}|"
    r"\d{1,2} [A-Z][a-z]{2,8} \d{4})"
)
_SEED = re.compile(
    r"(?i)\b(?:seed ?phrase|seed words|wallet seed|mnemonic|recovery (?:phrase|words|seed)|"
    r"secret (?:recovery )?phrase|backup (?:phrase|words|seed)|wallet words|(?:12|24)[ -]word)"
    r"\b[^\n]{0,80}?(?-i:(?<![\w-])(?:[a-z]{3,8}[ ,]{1,2}){11,23}[a-z]{3,8})(?![\w-])"
)
"""A recovery phrase written out after its name."""
_CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")


def _secretish(value: str) -> bool:
    """Whether ``value`` has a secret's make-up: letters and digits, no placeholder, not read
    from the environment or a vault."""
    value = value.strip("`'\".,;:)(")
    if _PLACEHOLDER.match(value) or _CODE_READ.search(value) or value.startswith("http"):
        return False
    return _real_body(value)


def _real_body(body: str) -> bool:
    """A token's body that is more than a placeholder: twelve or more varied characters, with
    letters and digits, remain once filler words (``EXAMPLE``, ``your``, ``key``) are taken
    out."""
    rest = _FILLER.sub("", body)
    letters = any(c.isalpha() for c in rest)
    return letters and len(rest) >= 12 and len(set(rest)) >= 8 and any(c.isdigit() for c in rest)


def _identity_record(text: str) -> bool:
    cards = any(luhn_valid(re.sub(r"\D", "", m.group(0))) for m in list(_CARD.finditer(text))[:16])
    found = bool(_SSN.search(text)) + bool(_BIRTH.search(text)) + cards
    return found >= 2 or found + identity_kinds(text) >= 2


def written_secrets(raw: str) -> Iterator[tuple[Severity, str, str]]:
    """Each credential or identity record ``raw`` writes out (at most one of each form)."""
    text = raw[:_MAX_TEXT]
    vault = "Send no credentials; share a vault link."
    for pattern, title in (
        (_ENV_SECRET, "writes out a credential (a secret variable's value)"),
        (_SNAKE_SECRET, "writes out a credential (a secret setting's value)"),
        (_AUTH_ANY, "writes out a credential (an Authorization line)"),
        (_LOGIN_TOKEN, "writes out a credential (a token given to a sign-in command)"),
    ):
        for m in list(pattern.finditer(text))[:16]:
            value = m.group(1) or m.group(m.lastindex or 1) or ""
            if _secretish(value):
                yield Severity.CRITICAL, title, vault
                return
    if service_token(text, _MAX_TEXT) is None:
        for m in list(_PREFIXED.finditer(text))[:16]:
            if m.group(0).startswith("AKIA") and lone_key_ids([text]):
                continue  # a key's id, not the key (key_ids.py)
            if _real_body(m.group(1)):
                yield Severity.HIGH, "writes out what looks like a service token", vault
                break
    if _SEED.search(text):
        yield (
            Severity.CRITICAL,
            "writes out a wallet's recovery phrase",
            "Whoever reads a recovery phrase controls the wallet; keep it offline, never in "
            "messages.",
        )
    if _identity_record(text):
        yield (
            Severity.HIGH,
            "writes out a person's identity record (identity numbers, birth, card, bank, health)",
            "Refer to the record by its id; never copy identity numbers into messages.",
        )
