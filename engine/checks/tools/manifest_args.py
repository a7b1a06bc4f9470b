"""Kubernetes manifests handed to a tool as an argument (``k8s_apply(manifest=…)``,
``helm_install(values=…)``), read as the deployment file they are by ``deploy_files``: what
their containers run and what they give away is judged as it is in a file the agent writes."""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from ..base import Hit
from ..change_risks import change_risk
from ..deploy_files import deploy_hits
from ..diff import parse_content
from .view import ToolView

__all__ = ["manifest_hits"]

_API_VERSION = re.compile(r"(?m)^\s*apiVersion\s*:")
_KIND = re.compile(r"(?m)^\s*kind\s*:")
_MAX_TEXT = 200_000
_MAX_ARGUMENTS = 8


def manifest_hits(view: ToolView) -> Iterator[Hit]:
    """The findings of each string argument of ``view`` that is a Kubernetes manifest, bound
    to that argument."""
    seen = 0
    for path, text in view.strings():
        if seen >= _MAX_ARGUMENTS or len(text) > _MAX_TEXT:
            continue
        if not (_API_VERSION.search(text) and _KIND.search(text)):
            continue
        seen += 1
        name = f"k8s/{re.sub(r'[^A-Za-z0-9_.-]+', '_', path)[:60] or 'manifest'}.yaml"
        for file in parse_content(text, name).files:
            risk = change_risk(name, file)
            if risk is not None:
                yield Hit(
                    Severity.HIGH,
                    risk[1],
                    f"argument `{path}` of {view.name}: {risk[2]}",
                    "Have a person confirm what it gives the workload.",
                    argument=path,
                )
            for hit in deploy_hits(file, name):
                yield Hit(
                    hit.severity,
                    hit.title,
                    f"argument `{path}` of {view.name}: {hit.description}",
                    hit.suggestion,
                    argument=path,
                )
