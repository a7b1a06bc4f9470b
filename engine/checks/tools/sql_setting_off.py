"""A safeguard switched off through its settings row (for ``sql_verdicts``): an UPDATE of a
settings, flags, parameters or configuration table (``clinic_settings``, ``feature_flags``,
``mes.station_params``) that sets the row's switch or value off (``enabled = false``,
``value = 'off'``, ``param_value = 'false'``) where the row's key names a safeguard — a check,
an interlock, a guard, a requirement, a limit, or any of ``protection_off.PROTECTION``
(``WHERE key = 'dose_range_check'``, ``param_name = 'door_interlock'``, ``flag_key =
'admin.require_mfa'``). The check then stops being made, with nothing else changed.

Everyday neighbours run: a product flag switched off (``WHERE key = 'new_checkout_ui'``), a
safeguard's row switched on, and any row of a development, test or staging setting. Pure."""

from __future__ import annotations

import re

from .protection_off import PROTECTION, not_live

__all__ = ["safeguard_setting_off"]

_SETTINGS_TABLE = re.compile(
    r"(?:^|[._])(?:\w+_)?(?:settings?|config\w*|flags?|feature_flags?|toggles?|switches|"
    r"params?|parameters?|options|preferences|policies|rules)(?:$|[._])"
)
_SWITCH = re.compile(
    r"^(?:is_)?(?:enabled?|active|on|armed|status|state)$|^(?:\w+_)?(?:value|val)$"
)
_OFF = frozenset({"0", "false", "f", "off", "disabled", "no", "n", "none"})
_SAFEGUARD_NAME = re.compile(
    r"(?:^|[^a-z0-9])(?:[a-z0-9]+_)*(?:checks?|interlocks?|guards?|requires?_[a-z0-9_]+|"
    r"limits?|screening|sanctions?|kyc|aml|velocity|dual_?control|four_?eyes|"
    r"double_?check)(?:_[a-z0-9]+)*(?:[^a-z0-9]|$)"
)
"""A settings key naming a check (``rx_dose_range_check``, ``guard_door_interlock``,
``require_mfa``, ``withdrawal_velocity_check``)."""


def safeguard_setting_off(table: str, column: str, value: str, where: str) -> bool:
    """``column = value`` of ``table`` under ``where`` (lower-cased, words joined by ``_``)
    switches off a settings row whose key names a safeguard (see the module)."""
    if value not in _OFF or not where or not _SWITCH.match(column):
        return False
    if not _SETTINGS_TABLE.search(table):
        return False
    named = where[:2_000].replace(".", "_")
    if not (_SAFEGUARD_NAME.search(named) or PROTECTION.search(named)):
        return False
    return not not_live(f"{table} {where}")
