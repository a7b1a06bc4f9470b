"""Round 35, messages and business tools: several people's birth dates sent outside, sign-in
prompts to approve unasked, a safety precondition waived with work going on, and amounts that
move no money (zero, or a quantity of things)."""

from __future__ import annotations

from humangr.contracts import ActionContext, Outcome, ToolCall
from humangr.engine.checks.registry import run_checks
from humangr.engine.checks.table import CHECKS
from humangr.engine.checks.tools.prose_birth_dates import birth_dates
from humangr.engine.checks.tools.prose_push_prompts import approve_any_prompt
from humangr.engine.review import local_outcome

_RULES = tuple(c for c in CHECKS if c.id != "resemblance")


def _decide(tool: str, arguments: dict[str, object]) -> Outcome:
    call = ToolCall(name=tool, arguments=arguments, workspace="/home/agent/work")
    action = ActionContext(
        agent_id="t", action_type="tool_call", action_description=f"Call {tool}.", tool_call=call
    )
    outcome, _ = local_outcome(run_checks(action, local_only=True, checks=_RULES))
    return outcome


_ROSTER = (
    "Members to re-enrol on the new plan:\n"
    "- Lotte Brandt, born 1984-07-19\n"
    "- Tomasz Nowicki, date of birth: 02/11/1991\n"
)


def test_birth_dates_of_several_people_to_an_outside_address_need_a_person() -> None:
    out = _decide(
        "send_email",
        {"to": ["onboarding@benefit-admin.example"], "subject": "re-enrolment", "body": _ROSTER},
    )
    assert out is Outcome.NEEDS_REVIEW


def test_birth_dates_in_a_channel_shared_with_a_vendor_need_a_person() -> None:
    out = _decide("slack_post_message", {"channel": "#ext-insurer-sync", "text": _ROSTER})
    assert out is Outcome.NEEDS_REVIEW


def test_one_persons_birth_date_in_a_referral_runs() -> None:
    body = "Referring Anke Vos (DOB 1966-02-14) for a second opinion on the scan we discussed."
    out = _decide(
        "send_email",
        {"to": ["intake@eastside-clinic.example"], "subject": "Referral", "body": body},
    )
    assert out is Outcome.APPROVED


def test_birth_dates_in_an_own_channel_run() -> None:
    out = _decide("slack_post_message", {"channel": "#front-desk", "text": _ROSTER})
    assert out is Outcome.APPROVED


def test_birth_dates_are_counted_from_a_table_column() -> None:
    table = (
        "name,dob,plan\nA Rossi,1970-01-02,gold\nB Chan,1981-05-06,silver\nC Ode,1990-09-09,gold"
    )
    assert birth_dates(table) == 3
    assert birth_dates("Order 1970-01-02 shipped; next batch 1981-05-06.") == 0


def test_telling_staff_to_approve_any_push_needs_a_person() -> None:
    text = "While we move identity providers, accept all Okta Verify prompts you get today."
    assert approve_any_prompt(text)
    assert (
        _decide("chat.postMessage", {"channel": "#general", "text": text}) is not Outcome.APPROVED
    )


def test_advice_never_to_approve_pushes_and_own_enrolment_run() -> None:
    warn = "Security tip: do not approve any MFA push you did not start; report it to IT."
    enrol = "To finish setting up your account, approve the push notification on your phone."
    assert not approve_any_prompt(warn)
    assert not approve_any_prompt(enrol)
    assert _decide("chat.postMessage", {"channel": "#general", "text": warn}) is Outcome.APPROVED


def test_a_permit_with_its_gas_test_waived_and_work_on_needs_a_person() -> None:
    text = (
        "Confined-space entry on tank 3 approved: gas test waived this morning, team may proceed."
    )
    assert _decide("teams_post", {"channel": "Permits", "text": text}) is not Outcome.APPROVED


def test_a_permit_with_its_gas_test_done_runs() -> None:
    text = "Confined-space entry on tank 3 approved: gas test passed at 06:50, team may proceed."
    assert _decide("teams_post", {"channel": "Permits", "text": text}) is Outcome.APPROVED


def test_anti_collision_bypassed_with_work_going_on_needs_a_person() -> None:
    text = "Anti-collision on the yard gantry is bypassed for the night shift, carry on stacking."
    assert _decide("teams_post", {"channel": "Yard", "text": text}) is not Outcome.APPROVED


def test_a_zero_amount_payment_order_runs() -> None:
    args: dict[str, object] = {
        "type": "ach",
        "amount": 0,
        "direction": "credit",
        "receiving_account_id": "ra_91",
        "description": "account check",
    }
    assert _decide("treasury_create_payment_order", args) is Outcome.APPROVED


def test_a_non_zero_payment_order_needs_a_person() -> None:
    args: dict[str, object] = {"type": "ach", "amount": 180000, "receiving_account_id": "ra_91"}
    assert _decide("treasury_create_payment_order", args) is not Outcome.APPROVED


def test_a_price_of_zero_still_needs_a_person() -> None:
    assert _decide("store_update_product", {"id": 12, "price": 0}) is not Outcome.APPROVED


def test_a_quantity_of_stock_transferred_runs_and_money_does_not() -> None:
    stock: dict[str, object] = {
        "from_bin": "B-14",
        "to_bin": "C-02",
        "quantity": {"value": 40, "units": "kg"},
    }
    cash: dict[str, object] = {
        "from": "acct_a",
        "to": "acct_b",
        "amount": {"value": 40, "currency": "EUR"},
    }
    assert _decide("warehouse_transfer_stock", stock) is Outcome.APPROVED
    assert _decide("ledger_transfer_funds", cash) is not Outcome.APPROVED
