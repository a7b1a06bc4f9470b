"""More decisions an UPDATE or INSERT types in by hand (for ``sql_decisions``), each a class
that any industry's schema spells its own way:

- a verdict flipped from failed to passed (``SET result = 'PASS' WHERE result = 'FAIL'``,
  ``SET scrub_status = 'PASSED' … WHERE scrub_status = 'FAILED'``): a check's outcome
  rewritten, not re-run; a check's result column typed in as passed whatever the rows
  (``SET result = 'PASS' WHERE sample_id = …``); open or overdue work marked closed or
  completed (``SET status = 'CLOSED' WHERE status = 'OPEN'``);
- a safeguard skipped by a flag (``bypass_edits = 1``, ``skip_fraud_check = true``);
- people's opt-out reversed (``SET marketing_opt_out = false``, ``unsubscribed = 0``);
- where money is paid typed in (an IBAN or a bank account number in an INSERT or UPDATE);
- a limit or threshold set to a sentinel that disables it (``max_value = 9999``);
- a safety or monitoring setting switched off where the table names it
  (``UPDATE alarm_config SET enabled = false``), not an account deactivated, or where the
  settings row's key names one (``sql_setting_off``).
"""

from __future__ import annotations

import re

from .protection_off import PROTECTION, not_live
from .sql_setting_off import safeguard_setting_off

__all__ = ["DONE_BY_HAND", "more_decision"]

_VERDICT_COLUMN = re.compile(
    r"(?:^|_)(?:status|state|result|results|outcome|verdict|disposition|decision|grade)$"
)
_PASSED = frozenset(
    {"pass", "passed", "ok", "okay", "compliant", "conforming", "accepted", "released",
     "approved", "verified", "cleared", "green", "valid", "success", "succeeded"}
)  # fmt: skip
_FAILED = re.compile(
    r"'(?:fail|failed|failure|rejected|denied|declined|nonconforming|non_conforming|"
    r"noncompliant|non_compliant|blocked|flagged|red|invalid|[a-z]{0,12}_?hold|quarantined?|"
    r"oos|out_of_spec\w{0,12}|open|opened|overdue|incomplete|not_started)'"
)
DONE_BY_HAND = "marks open or overdue records done by hand"
_DONE = frozenset({"closed", "complete", "completed", "resolved", "done"})
"""States that end a record's open work (a deviation closed, a training completed): set on a
class of open or overdue rows, the work is recorded as done without being done."""
_CHECK_VERDICT = re.compile(
    r"(?:^|_)(?:result|results|outcome|verdict|disposition)(?:_(?:status|code|flag))?$"
)
_CHECK_PASSED = frozenset(
    {"pass", "passed", "compliant", "conforming", "satisfactory", "within_spec", "meets_spec"}
)  # fmt: skip
_SKIP_FLAG = re.compile(
    r"^(?:bypass\w*|\w*_bypass|(?:skip|ignore|override|disable|suppress|waive)_\w*"
    r"(?:check|checks|edit|edits|validation|verification|review|approval|fraud|limit|limits|"
    r"screening|kyc|aml|sanctions|scan|audit|whitelist|allowlist|mfa|2fa|rules?|control\w*))$"
)
_TRUE = frozenset({"1", "true", "yes", "y", "on"})
_OFF = frozenset({"0", "false", "off", "disabled", "no", "n", ""})
_OPT_OUT = re.compile(r"opt_?out|opted_?out|unsubscribed?|do_not_(?:contact|email|call|mail)")
_BANK = re.compile(
    r"(?:^|_)(?:iban|swift|bic|bank_?(?:n|no|num|number|acct|account)\w*|"
    r"(?:payee|beneficiary)_\w*account\w*)$"
)
_LIMIT = re.compile(r"(?:^|[^a-z])(?:max\w*|\w*limit\w*|threshold\w*|ceiling|upper_\w+|cap)")
_SENTINEL = re.compile(r"^9{4,}(?:\.9+)?$")
_PEOPLE = re.compile(r"user|member|account|profile|employee|login|identit|principal|person")
_SWITCH = re.compile(r"^(?:is_)?(?:enabled?|active|on|armed|status|state)$")


def more_decision(table: str, column: str, value: str, where: str) -> tuple[str, str] | None:
    """The decision ``column = value`` types into ``table`` under ``where`` (lower-cased SQL
    text, ``""`` for an INSERT), if it is one of the module's classes."""
    if _VERDICT_COLUMN.search(column) and value in _PASSED and _FAILED.search(where):
        return "flips a failed verdict to passed by hand", (
            "rows a check failed now say they passed, with no check run again."
        )
    if _CHECK_VERDICT.search(column) and value in _CHECK_PASSED:
        return "types a check's verdict in as passed", (
            f"{column} = '{value}' is what a test or an inspection records, not an edit."
        )
    if _VERDICT_COLUMN.search(column) and value in _DONE and _FAILED.search(where):
        return DONE_BY_HAND, (
            "rows whose work is open or overdue now say it was done, with nothing done."
        )
    if _SKIP_FLAG.match(column) and value in _TRUE:
        return "sets a safeguard to be skipped", (
            f"{column} tells the process to skip a check it would otherwise make."
        )
    if _OPT_OUT.search(column) and value in _OFF and where:
        return "reverses people's opt-out by hand", (
            "people who said no to being contacted are counted as saying yes."
        )
    if _BANK.search(column) and value and not value.startswith(("$", ":", "?", "%")):
        return "types in where money is paid", (
            "a bank account written by hand is how payments are redirected."
        )
    if _SENTINEL.match(value) and _LIMIT.search(f"{column} {where}"):
        return "sets a limit to a sentinel that disables it", (
            f"{column} = {value}: a bound no real value reaches no longer bounds anything."
        )
    if (
        _SWITCH.match(column)
        and value in _OFF
        and not _PEOPLE.search(table)
        and PROTECTION.search(table)
        and not not_live(f"{table} {where}")
    ):
        return "switches a protection off", (
            f"{table} keeps a safeguard and the statement turns it off."
        )
    if safeguard_setting_off(table, column, value, where):
        return "switches a safeguard's setting off", (
            f"the row of {table[:60]} that keeps a check running now says off."
        )
    return None
