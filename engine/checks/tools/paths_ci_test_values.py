"""Lines of a CI workflow that give its tests what they need and nothing more (for
``paths_ci``): a secret named as a test or sandbox credential handed to a step's environment
(``PAYMENTS_KEY: ${{ secrets.PAYMENTS_SANDBOX_KEY }}``), the coverage service's upload token,
and a service container's throwaway password (``POSTGRES_PASSWORD: postgres``).

Each is set aside only as a whole line; whatever else the workflow holds (a trigger, a write
permission, a deploy, a download, any other secret) is still read as before."""

from __future__ import annotations

import re

__all__ = ["without_test_values"]

_TEST_SECRET = re.compile(
    r"^\s*-?\s*[A-Za-z][A-Za-z0-9_]{0,60}\s*:\s*[\"']?\$\{\{\s*secrets\.[A-Z0-9_]{0,60}"
    r"(?<![A-Z0-9])(?:SANDBOX|TEST|TESTING)(?![A-Z0-9])[A-Z0-9_]{0,60}\s*\}\}[\"']?\s*$"
    r"|^\s*token\s*:\s*[\"']?\$\{\{\s*secrets\.CODECOV_TOKEN\s*\}\}[\"']?\s*$"
)
"""A secret by a name that marks a test or sandbox credential, or the coverage upload token."""
_SERVICE_PASSWORD = re.compile(
    r"^\s*-?\s*(?:POSTGRES|MYSQL|MYSQL_ROOT|MARIADB|MARIADB_ROOT|MONGO_INITDB_ROOT|REDIS)"
    r"_PASSWORD\s*:\s*[\"']?(?:postgres|mysql|mariadb|root|test|password|example|secret)"
    r"[\"']?\s*$",
    re.IGNORECASE,
)
"""A database container's password set to a well-known default for the job's own service."""
_MAX_LINES = 2_000


def without_test_values(text: str) -> str:
    """``text`` without the lines that only hand tests a test secret or a service container
    its default password (a text too long to read line by line is returned whole)."""
    lines = text.split("\n")
    if len(lines) > _MAX_LINES:
        return text
    return "\n".join(
        line
        for line in lines
        if len(line) > 300 or not (_TEST_SECRET.match(line) or _SERVICE_PASSWORD.match(line))
    )
