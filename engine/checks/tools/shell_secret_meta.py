"""A secret's metadata read without its value (for ``shell_rules_cloud.secret_shown``):
``kubectl get secret NAME -o jsonpath='{.metadata.creationTimestamp}'`` prints when it was
made, its labels or annotations (a rotation date) — the everyday check before a rotation —
while ``-o yaml``, ``-o json``, a go-template or a jsonpath that reaches ``.data`` or
``.stringData`` prints the value (so does the annotations map as a whole: ``kubectl apply``
keeps the object it applied, data included, in one of them) — but for a TLS secret's public
certificate. A pure function of the command's words."""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["metadata_only"]

_WHOLE_ANNOTATIONS = re.compile(r"\.annotations\s*$|last-applied")
"""The annotations as a whole, or kubectl's ``last-applied-configuration`` one: it holds the
whole object as applied, the secret's data included."""
_LITERAL = re.compile(r'^"(?:\\[nt]|[ ,;:|=\t-]){0,8}"$')

_JSONPATH = re.compile(r"^(?:-o|--output)=?jsonpath=(.{1,400})$")
_PUBLIC_CERT = re.compile(r"^[{'\" ]*\.data\.(?:tls|ca|ca-bundle)\\?\.crt[}'\" ]*$")
"""A TLS secret's certificate (``.data.tls\\.crt``, ``.data.ca\\.crt``): public by design, read
to check its dates; the private key (``tls.key``) is not one."""
_METADATA = re.compile(r"^[{'\" ]*\.metadata(?:\.[A-Za-z_][\w-]{0,60}|\[[^\]]{0,80}\])*[}'\" ]*$")


def metadata_only(argv: Sequence[str]) -> bool:
    """Whether ``kubectl get secret … -o jsonpath=…`` reads only the secret's ``.metadata``."""
    if not argv or argv[0].rsplit("/", 1)[-1] != "kubectl" or len(argv) > 30:
        return False
    joined: list[str] = []
    skip = False
    for i, word in enumerate(argv):
        if skip:
            skip = False
            continue
        if word in ("-o", "--output") and i + 1 < len(argv):
            joined.append(f"{word}={argv[i + 1]}")
            skip = True
        else:
            joined.append(word)
    outputs = [w for w in joined if w.startswith(("-o", "--output"))]
    if len(outputs) != 1:
        return False
    m = _JSONPATH.match(outputs[0])
    if m is None:
        return False
    expression = m.group(1).strip().strip("'\"")
    parts = [p for p in re.split(r"\}\s*\{", expression.strip("{}")) if p.strip()]
    return bool(parts) and all(
        _LITERAL.match(p.strip())
        or _PUBLIC_CERT.match(p.strip())
        or (
            _METADATA.match(p.strip())
            and "data" not in p.replace(".metadata", "")
            and not _WHOLE_ANNOTATIONS.search(p)
        )
        for p in parts
    )
