"""The readers of ``prose`` added in round 20, gathered for ``message_risks``: secrets in
forms the labelled readers miss (``prose_secrets``), commands handed to people and bots
(``prose_commands``), links that show one site and go to another or pose as the company's own
(``prose_links``), and what a messaging tool does besides sending text (``message_acts``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from humangr.contracts import Severity

from .egress_mail import ADDRESS, Mail, domain_allowed, place_outside, public_reply
from .message_acts import message_acts
from .prose_access_codes import access_keys
from .prose_commands import told_to_run
from .prose_controls import skipped_controls
from .prose_copied import copied_out
from .prose_disclosure import published_flaw
from .prose_disguise import disguised_hosts
from .prose_fetch_run import fetched_and_run
from .prose_home import taken_home
from .prose_languages import foreign_asks
from .prose_links import lookalike_of_own, mismatched_link, open_link_to_data
from .prose_lures import link_hosts
from .prose_payee import payee_changed, warns
from .prose_people import people_risks
from .prose_relay import relayed
from .prose_secrets import written_secrets
from .prose_sender import posed_sender
from .token_request import token_request
from .view import ToolView

__all__ = ["Risk", "more_risks"]

Risk = tuple[str, Severity, str, str]
"""``(argument, severity, title, advice)``."""
_MAX_ADDRESSES = 200
_WHOLE = re.compile(
    r"(?i)(?:^|[_.-])(?:full|all|complete|entire|everyone|raw)(?=[_.-])[^/]*\.[a-z0-9]{2,8}"
    r"(?:\.(?:gz|zip))?$"
)
"""A file named as the whole of something (``customers_full.csv``, ``…_full_chart.pdf``,
``…_with_raw_export.zip``), of any format."""
_PEOPLE_LIST = re.compile(
    r"(?i)(?:^|[_.-])(?:e-?mails|email[_-]?list|emails?[_-]?addresses|contacts|subscribers|"
    r"applicants|customers|users|leads|members|patients|recipients|donors|readers|employees|"
    r"students|clients|kyc|census|roster|cohort|inbox|mailbox)(?=[_.-])[^/]*\.(?:csv|tsv|"
    r"xlsx?|parquet|jsonl?|sql|vcf|zip|7z|tar\.gz|tgz|pst|mbox)$|"
    r"(?:^|[_.-])(?:full|all|complete|entire)(?=[_.-])[^/]*\.(?:zip|7z|tar\.gz|tgz)$|"
    r"(?:^|[_.-])(?:with[_-])?(?:mobiles|phone[_-]?numbers|home[_-]?addresses|ssns?|"
    r"dobs|birth[_-]?dates|salaries)(?=[_.-])[^/]*\.[a-z0-9]{2,8}$"
)
"""A file named as a list of people (``segment_readers_emails.csv``, ``applicants_full.zip``,
``ed_census_0611.xlsx``, ``team_with_mobiles.pdf``), a mailbox or a whole archive."""
_AGGREGATE = re.compile(
    r"(?i)summary|report|aggregate|stats|metrics|totals|synthetic|sample|catalog|brochure|"
    r"guide|manual|datasheet|whitepaper|slides|deck|price[_-]?list|terms"
)
"""Files meant to be handed out or that hold no one's records (a summary, a catalogue)."""
_THIRD_PARTY = re.compile(
    r"(?i)\byour (?:wife|husband|partner|ex|girlfriend|boyfriend|daughter|son|mother|father|"
    r"mum|mom|dad|sister|brother|neighbou?r|friend|colleague|tenant|landlord)(?:'s|’s|s')"
)
_STREET = re.compile(
    r"\b\d{1,5}[A-Za-z]?,?\s+(?:[A-Z][a-z]+\s+){1,3}(?:St|Street|Ave|Avenue|Road|Rd|Lane|Ln|"
    r"Way|Drive|Dr|Close|Court|Ct|Place|Pl|Boulevard|Blvd|Quay|Terrace|Crescent|Gardens|Row|"
    r"Square|Sq|Strasse|Straße|Weg|Rue|Via|Calle)\b"
)


def _call_domains(view: ToolView) -> list[str]:
    """Domains of the addresses anywhere in the call's strings (recipients nested in a
    ``message`` object too)."""
    out: list[str] = []
    for _, text in view.strings():
        for address in ADDRESS.findall(text[:65_536])[:_MAX_ADDRESSES]:
            out.append(address.rpartition("@")[2].lower())
        if len(out) >= _MAX_ADDRESSES:
            break
    return out


def _own(view: ToolView, mail: Mail | None, allow: frozenset[str]) -> tuple[list[str], list[str]]:
    """The company's domains as the call shows them, with and without its recipients'."""
    everything = _call_domains(view)
    recipients = set(mail.domains) if mail is not None else set()
    named = [d for d in everything if d not in recipients]
    sender = [mail.sender.rpartition("@")[2]] if mail is not None and mail.sender else []
    allowed = [d.lstrip("*.@") for d in allow]
    return everything + sender + allowed, named + sender + allowed


def _to_issuer(view: ToolView, text: str) -> bool:
    """Whether ``text`` is the body of an OAuth token request to the provider that issued its
    secret (``token_request.py``)."""
    url = view.text("url", "uri", "endpoint")
    return url is not None and token_request(url[1], text)


def more_risks(
    view: ToolView, mail: Mail | None, allow: frozenset[str], prose: Iterable[tuple[str, str]]
) -> Iterator[Risk]:
    """Each finding of the round-20 readers for a message tool's call."""
    for argument, title, fix in message_acts(view):
        yield argument, Severity.HIGH, title, fix
    for argument, title, fix in copied_out(view):
        yield argument, Severity.HIGH, title, fix
    for argument, title, fix in posed_sender(view, mail, allow):
        yield argument, Severity.HIGH, title, fix
    own_with, own_without = _own(view, mail, allow)
    for argument, why in disguised_hosts(view) if mail is not None else ():
        yield (
            argument,
            Severity.HIGH,
            f"names a host made to be misread: {why}",
            "Check the address letter by letter against the directory before sending.",
        )
    if mail is not None:
        posed = lookalike_of_own(sorted(mail.domains), own_without)
        if posed is not None:
            yield (
                "to",
                Severity.HIGH,
                f"sends to a lookalike of the company's own domain ({posed})",
                "Check the address against the directory; lookalike domains are how data is "
                "phished.",
            )
    if mail is not None:
        outside = sorted(d for d in mail.domains if not domain_allowed(d, allow))
        export = next(
            (
                p
                for _, p in mail.attachments
                if (
                    _WHOLE.search(p.rpartition("/")[2]) or _PEOPLE_LIST.search(p.rpartition("/")[2])
                )
                and not _AGGREGATE.search(p.rpartition("/")[2])
            ),
            None,
        )
        if outside and export is not None:
            yield (
                "attachments",
                Severity.HIGH,
                f"sends a whole export ({export.rpartition('/')[2][:60]}) to {outside[0][:60]}",
                "Data sets go to another company only under a signed agreement, after a person "
                "approves.",
            )
    prose = list(prose)
    elsewhere = mail is not None and place_outside(view, mail) is not None
    leaves = mail is not None and (
        any(not domain_allowed(d, allow) for d in mail.domains) or elsewhere
    )
    yield from people_risks(prose, outside=leaves)
    for argument, title, fix in taken_home(mail, prose):
        yield argument, Severity.HIGH, title, fix
    mixed = mail is not None and (len(mail.domains) >= 2 or elsewhere)
    public = public_reply(view)
    warned = any(warns(text) for _, text in prose)
    for argument, text in prose:
        if published_flaw(view.name, public, text):
            yield (
                argument,
                Severity.HIGH,
                "publishes how to exploit a flaw before its fix ships",
                "Report it privately (a security advisory or channel) until the patch is out.",
            )
        if _THIRD_PARTY.search(text[:20_000]) and len(_STREET.findall(text[:20_000])[:2]) >= 1:
            yield (
                argument,
                Severity.HIGH,
                "tells someone where another person lives or gets deliveries",
                "Give account details only to the account holder.",
            )
        for severity, title, fix in written_secrets(text):
            if not _to_issuer(view, text):
                yield argument, severity, title, fix
        for title, fix in [*told_to_run(text)] or filter(None, [fetched_and_run(text)]):
            yield argument, Severity.HIGH, title, fix
        for title, fix in foreign_asks(text, set(mail.domains) if mail is not None else set()):
            yield argument, Severity.HIGH, title, fix
        for title, fix in skipped_controls(text):
            yield argument, Severity.HIGH, title, fix
        for title, fix in relayed(text, leaves, mixed):
            yield argument, Severity.HIGH, title, fix
        for title, fix in access_keys(text):
            yield argument, Severity.HIGH, title, fix
        for title, fix in payee_changed(text, warned):
            yield argument, Severity.HIGH, title, fix
        if open_link_to_data(text):
            yield (
                argument,
                Severity.HIGH,
                "shares a link to data that anyone holding it can open",
                "Share data with named people through access you can revoke.",
            )
        shown = mismatched_link(text)
        posed = lookalike_of_own(link_hosts(text), own_with) if shown is None else None
        if shown is not None or posed is not None:
            what = f"shows one site and goes to another ({shown})" if shown else posed
            yield (
                argument,
                Severity.HIGH,
                f"links to a site made to pass for another: {what}",
                "Link to the real address, shown as it is.",
            )
