"""The security headers of every inbox response, pages, files and errors alike.

The content security policy allows scripts, styles and requests from the inbox itself only,
and no inline script or style at all: even HTML that slipped past the escaping could not run.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CSP", "SECURITY_HEADERS", "SecurityHeaders"]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
}


class SecurityHeaders:
    """ASGI middleware: sets ``SECURITY_HEADERS`` on every HTTP response (replacing any the
    app set), and ``Cache-Control: no-store`` on everything but the static files."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._raw = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = str(scope.get("path", "")).startswith("/static/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                ours = {k for k, _ in self._raw} | {b"cache-control"}
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in ours]
                headers += self._raw
                cache = b"private, max-age=300" if static else b"no-store"
                headers.append((b"cache-control", cache))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
