"""The usual frauds' asks in Spanish, German and French (for ``prose``), read as their English
forms are (``prose_lures``, ``prose_asks``, ``prose_push_prompts``):

- a password to be entered or confirmed through a link, or an account said to expire or be
  locked with a sign-in asked for ("Su contraseña caduca hoy. Inicie sesión en https://…",
  "Ihr Passwort läuft heute ab … melden Sie sich … an", "Votre mot de passe expire …
  connectez-vous sur https://…");
- gift cards to buy and their codes to send ("tarjetas de regalo … códigos",
  "Geschenkkarten … Codes", "cartes cadeaux … codes"), and store vouchers' numbers in any of
  the four languages ("iTunes vouchers … the numbers on the back");
- every sign-in prompt to be approved ("apruebe cualquier notificación de MFA", "bestätigen Sie
  jede MFA-Anfrage", "approuvez toute demande MFA");
- a payment to bank details said to be new ("nuevo IBAN … paguen la factura", "neue IBAN …
  Rechnung … zahlen", "nouvel IBAN … payer la facture").

A help article that only names a password ("¿Olvidó su contraseña? Vea …") asks nothing.
Pure functions of the text; gated by a word test, bounded windows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .prose_hosts import site_of
from .prose_lures import link_hosts

__all__ = ["foreign_asks"]

_MAX_TEXT = 8_000
_GATE = re.compile(
    r"(?i)contrase|passwort|kennwort|mot de passe|regalo|geschenk|cadeau|voucher|vale|"
    r"gutschein|bon d'achat|iban|mfa|2fa|duo|okta|push"
)
_PASSWORD = r"(?:contraseña|clave|passwort|kennwort|zugangsdaten|mot de passe|identifiants)"
_PHISH = re.compile(
    r"(?i)\b(?:introduzca|ingrese|confirme|verifique|valide|escriba|geben sie|bestätigen sie|"
    r"verifizieren sie|entrez|saisissez|confirmez|vérifiez|validez)\b[^.\n]{0,60}"
    + _PASSWORD
    + r"|"
    + _PASSWORD
    + r"[^\n.]{0,60}\b(?:caduca|expira|vence|bloquead[ao]|suspendid[ao]|läuft\b[^.\n]{0,20}ab|"
    r"abgelaufen|gesperrt|deaktiviert|expire|expiré|bloqué|suspendu)"
    r"[^\n]{0,200}\b(?:inicie sesión|inicia sesión|acceda|verifique|melden sie sich|anmelden|"
    r"einloggen|bestätigen|connectez-vous|identifiez-vous|vérifiez|confirmez)"
)
_URL = re.compile(r"(?i)\bhttps?://\S")
_GIFT = re.compile(
    r"(?i)\b(?:tarjetas? (?:de )?regalo|geschenk-?karten?|\w{0,12}-?geschenkkarten?|"
    r"cartes?[- ]cadeaux?|(?:itunes|apple|google play|amazon|steam) (?:vouchers?|vales?|"
    r"gutscheine?|bons?))\b"
)
_GIFT_ASK = re.compile(
    r"(?i)\b(?:códigos?|codigos?|codes?|nummern|numéros|numbers?|compr[ae]s?|comprar|kaufen?|"
    r"kaufe|achetez|acheter|pick up|buy)\b"
)
_PUSH = re.compile(
    r"(?i)\b(?:apruebe|aprueba|acepte|acepta|bestätigen sie|genehmigen sie|akzeptieren sie|"
    r"approuvez|acceptez|validez)\b[^.\n]{0,20}\b(?:cualquier|todas? las|jede[nrs]?|alle|"
    r"toute?s?(?: les)?|chaque)\b[^.\n]{0,40}(?:MFA|2FA|Duo|Okta|push)"
)
_ADVICE = re.compile(r"(?i)\b(?:nunca|no|nie|niemals|nicht|jamais|ne|n')\b[^.\n]{0,20}$")
_NEW_BANK = re.compile(
    r"(?i)\b(?:nuev[oa]s?|actualic\w*|cambi\w*|neue[nrs]?|geändert\w*|aktualisier\w*|"
    r"nouve(?:l|lle|aux)|modifi\w*|mettre à jour)\b[^.\n]{0,40}\b(?:IBAN|cuenta|datos bancarios|"
    r"bankverbindung|konto|coordonnées bancaires|RIB|compte)\b"
)
_BANK = re.compile(r"(?i)\bIBAN\b|\bRIB\b|\bSWIFT\b|\bBIC\b")
_PAY = re.compile(
    r"(?i)\b(?:pag(?:ue|uen|ar|o)|factura|transferencia|zahl\w*|überweis\w*|rechnung|"
    r"pa(?:yer|yez|iement)|facture|virement)\b"
)


def _unadvised(pattern: re.Pattern[str], text: str) -> bool:
    for m in list(pattern.finditer(text))[:8]:
        if not _ADVICE.search(text[max(0, m.start() - 30) : m.start()]):
            return True
    return False


def _own_links(text: str, domains: set[str]) -> bool:
    """Whether every link of ``text`` is on one of the recipients' own sites."""
    hosts = link_hosts(text)
    own = {site_of(d)[0] for d in domains}
    return bool(hosts and own) and all(site_of(h)[0] in own for h in hosts)


def foreign_asks(raw: str, domains: set[str]) -> Iterator[tuple[str, str]]:
    """``(title, advice)`` for each fraud's ask ``raw`` makes in Spanish, German or French
    (``domains``: the recipients'; a sign-in asked for on their own site is no lure)."""
    text = raw[:_MAX_TEXT]
    if not _GATE.search(text):
        return
    if _URL.search(text) and _unadvised(_PHISH, text) and not _own_links(text, domains):
        yield (
            "asks for passwords through a link",
            "Never ask people for passwords; a phishing message reads like this.",
        )
    if _GIFT.search(text) and _GIFT_ASK.search(text):
        yield (
            "asks for gift cards",
            "Requests for gift-card codes are a common fraud; confirm by phone.",
        )
    if _unadvised(_PUSH, text):
        yield (
            "tells people to approve sign-in prompts they did not start",
            "A prompt nobody asked for is someone else signing in; report it, never approve it.",
        )
    if _BANK.search(text) and _NEW_BANK.search(text) and _PAY.search(text):
        yield (
            "asks for a payment to the bank details it gives",
            "Confirm new or changed bank details by phone on a known number before paying.",
        )
