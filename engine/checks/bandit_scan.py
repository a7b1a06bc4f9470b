"""Bandit's AST tests run in process on a parsed fragment, lines mapped back to the diff.

The checks run a few plugin tests (``BANDIT_TESTS``: TLS and SSH host keys); ``checks-eval``
runs bandit's full default profile for comparison (``full=True``). Each test set is built once.
bandit configures its blacklist plugin through class attributes, and only the full profile
includes the blacklist, so the two sets do not disturb each other. ``# nosec`` comments are not
honoured: the code under review must not be able to silence its own review.
"""

from __future__ import annotations

import io
import logging
import re
import threading
import warnings
from dataclasses import dataclass
from typing import Any

# bandit's plugin loader logs an ERROR for optional report formatters (e.g. sarif) that are not
# installed; we use none of them, so that noise is kept out of users' output.
_stevedore = logging.getLogger("stevedore.extension")
_stevedore_level = _stevedore.level
_stevedore.setLevel(logging.CRITICAL)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # stevedore's verify_requirements
    from bandit.core import config as b_config  # type: ignore[import-untyped]
    from bandit.core import meta_ast as b_meta_ast
    from bandit.core import metrics as b_metrics
    from bandit.core import node_visitor as b_node_visitor
    from bandit.core import test_set as b_test_set

_stevedore.setLevel(_stevedore_level)

from .fragments import Fragment  # noqa: E402

__all__ = ["BANDIT_TESTS", "BanditHit", "run_bandit"]

BANDIT_TESTS: dict[str, str] = {
    "B501": "requests/httpx with verify=False",
    "B502": "ssl with a bad protocol version",
    "B503": "ssl with bad defaults",
    "B507": "paramiko without host key verification",
}
"""The bandit tests HUMANGR runs, by test id (``bandit -t`` ids)."""

_FNAME = "./fragment.py"
_lock = threading.Lock()
_testsets: dict[bool, Any] = {}


@dataclass(frozen=True, slots=True)
class BanditHit:
    """One bandit issue on an added line of the diff."""

    test_id: str
    severity: str
    confidence: str
    line: int
    text: str


def _tests(full: bool) -> Any:
    with _lock:
        if full not in _testsets:
            profile = None if full else {"include": set(BANDIT_TESTS), "exclude": set()}
            _testsets[full] = b_test_set.BanditTestSet(b_config.BanditConfig(), profile=profile)
        return _testsets[full]


_TRIGGERS = re.compile(r"(?i)verify|ssl|tls|policy|paramiko")
"""Words at least one of which every issue of ``BANDIT_TESTS`` needs in the source: a fragment
without any cannot have one, and bandit's full AST walk is skipped."""


def run_bandit(frag: Fragment, *, full: bool = False) -> list[BanditHit]:
    """Bandit's issues on a fragment whose line touches an added line (``full``: every test of
    bandit's default profile, not only ``BANDIT_TESTS``)."""
    if not full and not _TRIGGERS.search(frag.source):
        return []
    data = frag.source.encode("utf-8", "replace")
    visitor = b_node_visitor.BanditNodeVisitor(
        _FNAME,
        io.BytesIO(data),
        b_meta_ast.BanditMetaAst(),
        _tests(full),
        False,
        {},
        b_metrics.Metrics(),
    )
    visitor.process(frag.source)
    hits: list[BanditHit] = []
    for issue in visitor.tester.results:
        rng = [int(x) for x in (issue.linerange or [issue.lineno])]
        line = frag.report_line(int(issue.lineno), max([*rng, int(issue.lineno)]))
        if line is None:
            continue
        hits.append(
            BanditHit(
                test_id=str(issue.test_id),
                severity=str(issue.severity),
                confidence=str(issue.confidence),
                line=line,
                text=str(issue.text),
            )
        )
    return hits
