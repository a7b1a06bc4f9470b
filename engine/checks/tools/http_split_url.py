"""A request's address given in parts: ``{"scheme": "http", "host": "169.254.169.254",
"port": 80, "path": "/latest/meta-data/"}`` (or ``hostname``/``protocol``/``route``) is the
URL ``http://169.254.169.254:80/latest/meta-data/`` and is judged as that URL is."""

from __future__ import annotations

from .view import ToolView

__all__ = ["split_url"]

_HOST_ARGS = ("host", "hostname", "server")
_SCHEME_ARGS = ("scheme", "protocol", "proto")
_PATH_ARGS = ("path", "route", "pathname", "resource")
_MAX_HOST = 512


def split_url(view: ToolView) -> tuple[str, str] | None:
    """``(host argument, URL)`` for a call that spells its address in parts (see the module),
    when it names a host and at least one other part (a scheme, a port or a path)."""
    host = view.text(*_HOST_ARGS)
    if host is None:
        return None
    arg, name = host[0], host[1].strip()[:_MAX_HOST]
    if not name or any(c.isspace() for c in name):
        return None
    scheme = view.text(*_SCHEME_ARGS)
    port = view.get("port")
    path = view.text(*_PATH_ARGS)
    if scheme is None and port is None and path is None:
        return None
    if "://" in name:
        base = name.rstrip("/")
    else:
        proto = scheme[1].strip().lower().rstrip(":/") if scheme is not None else ""
        number = port[1] if port is not None else None
        if not proto:
            proto = "https" if str(number) == "443" else "http"
        base = f"{proto}://{name.rstrip('/')}"
        if isinstance(number, int | str) and not isinstance(number, bool) and str(number).strip():
            base += f":{str(number).strip()[:8]}"
    tail = path[1].strip() if path is not None else ""
    return arg, base + ("/" + tail.lstrip("/") if tail else "/")
