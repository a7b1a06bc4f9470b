"""Money read from a business tool's name and arguments (or an HTTP call's path and body), for
``business``: a payment, payout, refund, credit, gift card, coupon or price set with an
amount, and a payee's bank details changed.

Two calls move no money that matters and get no finding: a call made in a payment provider's
test mode (a ``sk_test_`` key, Stripe's ``pm_card_visa`` test card, ``livemode=false``, a
sandbox or test host as ``http_service`` reads it), and a refund of one named charge or
payment for a small amount (what a support ticket asks for; the money goes back to the payer
it came from; an order or invoice id beside the charge and an approved amount written with its
currency only describe it). Refunds of many charges, of a date range or of everything, large
ones, and ones larger than the approved amount written beside them are still reported."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .business_words import Finding, Pair, acts

__all__ = ["money", "number"]

_MONEY_NOUNS = frozenset(
    {
        "refund", "refunds", "payout", "payouts", "payment", "payments", "transfer",
        "transfers", "wire", "money", "credit", "credits", "coupon", "coupons", "discount",
        "discounts", "giftcard", "gift", "price", "prices", "pricing", "payroll", "charge",
        "charges", "withdraw", "withdrawal", "disbursement", "remittance", "plan", "balance",
        "bonus", "reimbursement", "payment_intent", "budget", "budgets", "transactions",
    }
)  # fmt: skip
_MONEY_KEYS = re.compile(
    r"^(?:amount\w*|\w*_amount|total\w*|value|unit_amount\w*|price\w*|\w*_price|balance|"
    r"percent_off|amount_off|initial_value|credit\w*|sum|net_pay)$"
)
_AMOUNT = re.compile(r"^amount\w*$")
"""What a tool that only says "send" moves money with (``send(amount=…)``)."""
_BANK_KEYS = re.compile(
    r"bank_?account|routing_?(?:number|no|code|transit)|^aba\w*|iban|swift|bic$|"
    r"account_?number|sort_?code|^external_?account$|^payout_?(?:account|destination)$"
)
_NUMBER = re.compile(r"^-?\d[\d,]*(?:\.\d+)?$")
_TEST_VALUE = re.compile(
    r"^(?:(?:sk|rk|pk)_test_\w+|pm_card_[a-z_]+|tok_[a-z_]+|src_[a-z_]+|"
    r"(?:bearer\s+)?(?:sk|rk)_test_\w+)$",
    re.IGNORECASE,
)
"""A payment provider's test key or test card token (Stripe's ``pm_card_visa``, ``tok_visa``:
they work only in test mode)."""
_TEST_FLAGS = frozenset({"test", "test_mode", "testmode", "sandbox", "is_test"})
_MODE_KEYS = frozenset({"environment", "env", "mode"})
_OTHER_MONEY = frozenset(
    {"payout", "payouts", "transfer", "transfers", "wire", "withdraw", "withdrawal",
     "disbursement", "remittance", "payroll", "giftcard", "gift", "bonus"}
)  # fmt: skip
_TARGET = re.compile(
    r"^(?:charge|payment|payment_intent|transaction|order|invoice|capture|sale|psp_?reference|"
    r"original_?reference|original_?transaction)(?:_?id)?$"
)
"""Arguments that name the one charge or payment a refund returns."""
_RANGE = re.compile(
    r"^(?:created\w*|date\w*|\w*_date|from|to|since|until|starts?(?:_\w+)?|ends?(?:_\w+)?|"
    r"starting_after|ending_before|period|filter|"
    r"query|where|all|ids|\w*_ids|charges|payments|transactions|orders)$"
)
_PAID_TARGET = re.compile(
    r"^(?:charge|payment|payment_intent|transaction|capture|psp_?reference)(?:_?id)?$"
)
"""Arguments that name the payment itself (an order or invoice only says what it paid for)."""
_WITH_CURRENCY = re.compile(r"^\s*(\d[\d,]{0,15}(?:\.\d{1,4})?)\s*[A-Za-z]{3}\s*$")
"""An amount written with its currency code (``"125.00 USD"``)."""
_ELSEWHERE = re.compile(r"^(?:destination|recipient\w*|receiver\w*|payee\w*|beneficiary\w*)$")
_SMALL = 100_000
"""A refund below this many units (cents: 1,000.00) is one customer's purchase."""
_SMALL_PERCENT = 20
"""A single-use discount of at most this percentage is one customer's apology."""
_PROMO_USES = 1_000
_CODE_ENDS = ("redeem_by", "expires_at", "ends_at", "end_date", "expiry", "expiration_date")
"""A discount of at most ``_SMALL_PERCENT`` capped at ``_PROMO_USES`` uses and ending on a
date the call sets is a bounded promotion: what it can cost is known before it runs."""


def number(value: Any) -> float | None:
    """A value as a number, if it is one (``"1,200.50"`` too; a boolean is not)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        return float(value.strip().replace(",", ""))
    return None


def _priced(value: Any) -> float | None:
    """A value as a number, an amount followed by its currency code too (``"125.00 USD"``)."""
    found = number(value)
    if found is None and isinstance(value, str) and len(value) < 40:
        m = _WITH_CURRENCY.match(value)
        found = float(m.group(1).replace(",", "")) if m else None
    return found


def _record(value: Any) -> str:
    """The record a refund names: a text or a whole number (``order_id=88502``); ``""`` if
    neither."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value.strip() if isinstance(value, str) else ""


def _small_code(words: set[str], pairs: Sequence[Pair]) -> bool:
    """A discount code for one use of a small percentage (an apology to one customer)."""
    if not words & {
        "discount",
        "coupon",
        "code",
        "promo",
        "discounts",
        "coupons",
        "codes",
        "promos",
    }:
        return False
    args = dict(pairs[:200])
    kind = str(args.get("value_type", args.get("type", ""))).lower()
    off = number(args.get("percent_off", args.get("value") if "percent" in kind else None))
    limit = number(args.get("usage_limit", args.get("max_redemptions")))
    if off is None or abs(off) > _SMALL_PERCENT or limit is None:
        return False
    ends = any(args.get(k) not in (None, "", 0) for k in _CODE_ENDS)
    return limit == 1 or (0 < limit <= _PROMO_USES and ends)


def _test_mode(pairs: Sequence[Pair]) -> bool:
    """The call runs in a payment provider's test mode: no real money moves."""
    return any(
        (isinstance(v, str) and len(v) < 200 and _TEST_VALUE.match(v.strip()) is not None)
        or (k == "livemode" and v is False)
        or (k in _TEST_FLAGS and v is True)
        or (k in _MODE_KEYS and isinstance(v, str) and v.lower() in ("test", "sandbox"))
        for k, v in pairs
    )


def _one_refund(words: set[str], pairs: Sequence[Pair]) -> bool:
    """A refund of one named charge or payment, for a small amount or none (all of it)."""
    if not words & {"refund", "refunds"} or words & _OTHER_MONEY:
        return False
    targets = {_record(v) for k, v in pairs if _TARGET.match(k)}
    paid = {_record(v) for k, v in pairs if _PAID_TARGET.match(k)}
    if len(paid) == 1 and "" not in paid:  # the charge refunded; an order or invoice beside it
        targets = paid  # only says what it was for
    if len(targets) != 1 or "" in targets:  # the same charge, read twice, is one
        return False
    if any(_RANGE.match(k) or _ELSEWHERE.match(k) or _BANK_KEYS.search(k) for k, _ in pairs if k):
        return False
    if any(isinstance(v, str) and v.strip().lower() in ("all", "*") for _, v in pairs):
        return False
    amounts = [_priced(v) for k, v in pairs if _MONEY_KEYS.match(k) and not isinstance(v, dict)]
    plain = {number(v) for k, v in pairs if _MONEY_KEYS.match(k)} - {None}
    written = [a for a in amounts if a is not None and a not in plain]
    if any(not plain & {w, round(w * 100)} for w in written):  # the approved amount disagrees
        return False
    return all(a is not None and 0 < a <= _SMALL for a in amounts)


_PRICE_KEYS = re.compile(r"^(?:\w{0,20}_)?(?:price|premium|cost_?per_?unit|unit_?cost|rate_?card)$")
_MICROS = re.compile(r"^(?:micro_?amount|amount_?micros|\w{0,20}_micros)$")


def _giveaway_price(pairs: Sequence[Pair]) -> str | None:
    """A price or cost per unit set below 0.10 of its currency: a value, or a nested amount in
    millionths (``costPerUnit: {"microAmount": 10000}``)."""
    priced = False
    for key, value in pairs:
        if _PRICE_KEYS.match(key):
            priced = True
            amount = number(value)
            if amount is not None and 0 <= amount < 0.1:
                return key
        elif priced and _MICROS.match(key):
            amount = number(value)
            if amount is not None and 0 <= amount < 100_000:
                return key
    return None


_WITHDRAW = frozenset({"delete", "remove", "expire", "deactivate", "disable", "archive", "revoke"})
_OFFERS = frozenset(
    {"coupon", "coupons", "discount", "discounts", "promo", "promotion", "promotions", "voucher"}
    | {"vouchers"}
)
_PAID = frozenset({"refund", "refunds", "payout", "payouts", "transfer", "charge", "credit", "pay"})


def _offer_withdrawn(words: set[str]) -> bool:
    """A coupon, discount or voucher deleted or switched off: an offer taken back, which
    moves no money (a refund, payout, transfer, charge or credit named beside it aside)."""
    return bool(words & _WITHDRAW and words & _OFFERS and not words & _PAID)


_ZERO_KEYS = re.compile(r"^(?:amount\w*|\w*_amount)$")


_PHYSICAL = frozenset(
    {"ml", "l", "ul", "µl", "nl", "g", "kg", "mg", "ug", "lb", "lbs", "oz", "t", "m", "cm", "mm",
     "km", "pcs", "ea", "each", "units", "unit", "boxes", "pallets", "cases", "teu", "vials"}
)  # fmt: skip
"""Units of things counted or measured, not of money."""


def _measured(pairs: Sequence[Pair]) -> Callable[[str], bool]:
    """Whether a key holds a quantity of things: a bare ``value`` beside a ``unit`` or ``units``
    of volume, weight, length or count (``transferVolume: {"value": 1, "units": "mL"}``), with no
    currency named in the call."""
    units = {str(v).strip().lower()[:12] for k, v in pairs if k in ("unit", "units", "uom")}
    if not units or not units <= _PHYSICAL or any("currency" in k for k, _ in pairs):
        return lambda key: False
    return lambda key: key == "value"


def _moves(key: str, amount: float | None) -> bool:
    """An amount that moves money: an amount of zero (an ACH prenote, a card check) moves
    none, while a price or a total of zero still sets one."""
    return amount is not None and (amount != 0 or not _ZERO_KEYS.match(key))


def money(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Money paid, credited or priced by a tool that acts, and a payee's bank details set."""
    if not acts(words):
        return
    named = words & _MONEY_NOUNS or words & {"pay", "send", "tip"}
    if "transaction" in words and any(_ELSEWHERE.match(k) for k, _ in pairs):
        named = {"transaction"}  # a transaction sent to a destination moves money
    if (
        named
        and not _test_mode(pairs)
        and not _one_refund(words, pairs)
        and not _small_code(words, pairs)
        and not _offer_withdrawn(words)
    ):
        keys = _MONEY_KEYS if words & _MONEY_NOUNS or "pay" in words else _AMOUNT
        measured = _measured(pairs)
        if any(_moves(k, number(v)) for k, v in pairs if keys.match(k) and not measured(k)):
            yield (
                "moves money or sets a price",
                "a payment, payout, refund, credit, discount or price change takes effect at "
                "once and the agent cannot take it back.",
                "Let a person confirm payments, credits and price changes.",
            )
            return
    cheap = _giveaway_price(pairs)
    if cheap is not None:
        yield (
            "sets a price to almost nothing",
            f"`{cheap}` prices what is sold at less than a tenth of a currency unit: every "
            "sale at that price is money given away.",
            "Let a person confirm prices this low.",
        )
        return
    if any(_BANK_KEYS.search(k) and isinstance(v, str | int) and v != "" for k, v in pairs):
        yield (
            "changes where money is paid",
            "bank details of a payee are set: later payments go to that account (a common "
            "fraud asks for exactly this by e-mail).",
            "Confirm the change with the payee by a known channel first.",
        )
