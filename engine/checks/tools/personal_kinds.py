"""What personal data a payload holds, by kind (``personal_data`` finds it): counts and sets
the data-egress check weighs, and the summary its findings name."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["PersonalData"]


@dataclass(slots=True)
class PersonalData:
    """What personal data a payload holds, by kind."""

    emails: set[str] = field(default_factory=set)
    phones: set[str] = field(default_factory=set)
    cards: int = 0
    sample_cards: int = 0
    """Published test card numbers in fields named for cards (``pan``, ``card_number``), when
    data leaves: two or more are a list of cards, however they were made."""
    ssns: int = 0
    cpfs: int = 0
    addresses: int = 0
    birth_dates: int = 0
    health: int = 0
    """Lines naming a person (a name, a date, an address or a number) with a diagnosis,
    condition or treatment."""
    hr: int = 0
    """Lines naming a person with their pay, performance, discipline or leave."""
    nis: int = 0
    ips: set[str] = field(default_factory=set)
    """Public IPv4 addresses (with e-mail addresses, they say where those people are)."""
    addressed: int = 0
    """People named just before a street address (a list of where people live)."""
    ids: int = 0
    """Other national identity numbers, named by their label (``PESEL``, ``BSN``…)."""
    banks: set[str] = field(default_factory=set)
    """IBANs (two or more are people's or payees' bank accounts, not a company's own)."""
    spending: int = 0
    """People's e-mail addresses given just before what they bought, paid or owe."""

    @property
    def record(self) -> bool:
        """A person's record: a birth date with another kind of detail, a street address with
        both a phone number and a personal e-mail address (an address and a phone number
        alone are a signature or a meeting place), people's e-mail addresses with the IP
        addresses they connect from, or several people's e-mail and street addresses."""
        kinds = sum(map(bool, (self.emails, self.phones, self.addresses)))
        listed = (len(self.emails) >= 2 and self.addresses >= 2) or self.addressed >= 2
        located = bool(self.emails and self.ips)
        banked = bool(self.banks and kinds)
        paid = bool(self.spending)
        return bool(self.birth_dates and kinds) or kinds == 3 or located or listed or banked or paid

    def settle(self) -> None:
        """Count test card numbers of card fields as cards once there are two of them."""
        if self.sample_cards >= 2:
            self.cards += self.sample_cards
            self.sample_cards = 0

    @property
    def people(self) -> int:
        """How many people the contact details name, at least (an address and a phone number
        may be one person's)."""
        return max(len(self.emails), len(self.phones))

    @property
    def national_ids(self) -> int:
        return self.ssns + self.cpfs + self.nis + self.ids

    def merge(self, other: PersonalData) -> None:
        self.emails |= other.emails
        self.phones |= other.phones
        self.cards += other.cards
        self.sample_cards += other.sample_cards
        self.ssns += other.ssns
        self.cpfs += other.cpfs
        self.addresses += other.addresses
        self.birth_dates += other.birth_dates
        self.health += other.health
        self.hr += other.hr
        self.nis += other.nis
        self.ips |= other.ips
        self.ids += other.ids
        self.addressed += other.addressed
        self.banks |= other.banks
        self.spending += other.spending

    def summary(self) -> str:
        parts = []
        if self.cards:
            parts.append(f"{self.cards} card number{'s' * (self.cards > 1)}")
        if self.ssns:
            parts.append(f"{self.ssns} social security number{'s' * (self.ssns > 1)}")
        if self.cpfs:
            parts.append(f"{self.cpfs} CPF{'s' * (self.cpfs > 1)}")
        if self.nis:
            parts.append(f"{self.nis} National Insurance number{'s' * (self.nis > 1)}")
        if self.ids:
            parts.append(f"{self.ids} national identity number{'s' * (self.ids > 1)}")
        if len(self.banks) > 1:
            parts.append(f"{len(self.banks)} bank accounts")
        elif self.banks:
            parts.append("a bank account")
        if self.emails:
            n = len(self.emails)
            parts.append(f"{n} people's e-mail addresses" if n > 1 else "a person's e-mail address")
        if self.ips and self.emails:
            parts.append("their IP addresses")
        if self.phones:
            parts.append(f"{len(self.phones)} phone number{'s' * (len(self.phones) > 1)}")
        if self.addresses:
            parts.append("a street address" if self.addresses == 1 else "street addresses")
        if self.birth_dates:
            parts.append("a birth date" if self.birth_dates == 1 else "birth dates")
        if self.health:
            n = self.health
            parts.append(f"health details of {n} {'person' if n == 1 else 'people'}")
        if self.hr:
            parts.append(f"HR records of {self.hr} {'person' if self.hr == 1 else 'people'}")
        if self.spending:
            parts.append("what they bought or paid")
        return ", ".join(parts)
