"""``humangr inbox`` and ``serve --inbox-port`` as a user runs them: separate processes, a
SQLite state file or a real nats-server, stopped with SIGTERM; and every startup error as one
line with exit 3."""

from __future__ import annotations

import select
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx
import pytest
from cli_helpers import ROOT, assert_error, command, environment, humangr
from inbox_helpers import REASON, TOKENS, csrf_of

from humangr.inbox import ENV_TOKENS

SLOW = """\
diff --git a/app/worker.py b/app/worker.py
--- a/app/worker.py
+++ b/app/worker.py
@@ -5,4 +5,5 @@ import time
 async def poll(queue: asyncio.Queue[str]) -> None:
     while True:
-        await asyncio.sleep(1)
+        time.sleep(1)
+        print("polled")
         item = await queue.get()
"""
"""A blocking call in async code: HL5's medium veto, a human decides (local checks only)."""
START_S = 60


@pytest.fixture
def tokens(tmp_path: Path) -> Path:
    path = tmp_path / "tokens"
    path.write_text("".join(f"{token} {name}\n" for name, token in TOKENS.items()))
    path.chmod(0o600)
    return path


def env() -> dict[str, str]:
    return {k: v for k, v in environment().items() if k != ENV_TOKENS}


@contextmanager
def running(*args: str, wait_for: str = "humangr inbox on ") -> Iterator[tuple[str, list[str]]]:
    """``humangr ARGS`` in its own process until the line starting with ``wait_for``; yields
    the URL on it and the lines so far; stops it with SIGTERM (it must exit 0)."""
    proc = subprocess.Popen(
        command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env()
    )
    assert proc.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + START_S
    try:
        while not lines or not lines[-1].startswith(wait_for):
            ready, _, _ = select.select([proc.stdout], [], [], deadline - time.monotonic())
            line = proc.stdout.readline().decode() if ready else ""
            if not line:
                proc.kill()
                raise AssertionError(f"no {wait_for!r}: {lines} {proc.stderr.read()!r}")  # type: ignore[union-attr]
            lines.append(line.rstrip("\n"))
        url = lines[-1].split()[3 if wait_for.startswith("humangr inbox") else -1].rstrip("/")
        yield url, lines
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, (proc.returncode, err.decode()[-3000:])
        assert b"Traceback" not in err, err.decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def sign_in(client: httpx.Client, name: str = "alice") -> None:
    page = client.get("/signin")
    answer = client.post("/signin", data={"csrf": csrf_of(page.text), "token": TOKENS[name]})
    assert answer.status_code == 303, answer.text


def pending_review(state: Path, tmp_path: Path) -> str:
    diff = tmp_path / f"slow-{uuid.uuid4().hex[:6]}.diff"
    diff.write_text(SLOW)
    reviewed = humangr("review", "--state", str(state), str(diff), env=env())
    assert reviewed.returncode == 1, reviewed.stderr
    listed = humangr("reviews", "--state", str(state), "--format", "json", env=env())
    return str(listed.stdout.split('"action_id":"')[-1].split('"')[0])


def test_the_inbox_on_a_state_file_lists_hears_and_resolves(tmp_path: Path, tokens: Path) -> None:
    state = tmp_path / "st.db"
    first = pending_review(state, tmp_path)
    args = ("inbox", "--state", str(state), "--tokens", str(tokens), "--port", "0")
    with running(*args, "--poll", "0.3", "--metrics-port", "0") as (url, lines):
        assert url.startswith("http://127.0.0.1:")
        metrics_url = next(line.split()[-1] for line in lines if "metrics on" in line)
        assert lines[-1].endswith(f"for 3 reviewer(s), in {state}")
        with httpx.Client(base_url=url, timeout=30) as client:
            sign_in(client)
            assert first in client.get("/reviews").text
            with client.stream("GET", "/events") as events:
                second = pending_review(state, tmp_path)  # another process, the same file
                heard = ""
                for line in events.iter_lines():
                    heard += line + "\n"
                    if second in heard:
                        break
            assert "event: review" in heard
            page = client.get(f"/reviews/{second}")
            assert "Blocking call time.sleep() inside async code" in page.text
            answer = client.post(
                f"/reviews/{second}/resolve",
                data={
                    "csrf": csrf_of(page.text),
                    "action_hash": page.text.split('name="action_hash" value="')[1][:64],
                    "verdict": "reject",
                    "reason": REASON,
                },
            )
            assert answer.status_code == 303, answer.text
            assert "rejected" in client.get(f"/reviews/{second}").text
        exported = httpx.get(metrics_url).text
        assert 'humangr_inbox_decisions_total{verdict="rejected"} 1.0' in exported
        assert 'humangr_inbox_page_views_total{page="review"} 2.0' in exported
        assert 'humangr_inbox_page_views_total{page="list"} 1.0' in exported
    shown = humangr("show", second, "--state", str(state), env=env())
    assert f"{second}: REJECTED by alice (was needs_review): {REASON}" in shown.stdout


@pytest.mark.nats
def test_serve_runs_the_inbox_beside_the_actors(
    nats_url: str, tokens: Path, tmp_path: Path
) -> None:
    args = (
        "serve",
        "--nats",
        nats_url,
        "--prefix",
        f"sv{uuid.uuid4().hex[:8]}",
        "--role",
        "supervisor",
        "--llm",
        "none",
        "--state",
        str(tmp_path / "serve.db"),
        "--inbox-port",
        "0",
        "--inbox-tokens",
        str(tokens),
    )
    with running(*args) as (url, _), httpx.Client(base_url=url, timeout=30) as client:
        assert client.get("/healthz").text == "ok\n"
        sign_in(client, "bob")
        listing = client.get("/reviews")
        assert listing.status_code == 200
        assert "0 pending, newest first" in listing.text
        assert "did not answer" not in listing.text


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl to make a certificate")
def test_over_tls_the_session_cookie_is_secure(tmp_path: Path, tokens: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    state = tmp_path / "st.db"
    pending_review(state, tmp_path)
    args = ("inbox", "--state", str(state), "--tokens", str(tokens), "--port", "0")
    with running(*args, "--tls-cert", str(cert), "--tls-key", str(key)) as (url, _):
        assert url.startswith("https://127.0.0.1:")
        with httpx.Client(base_url=url, verify=False, timeout=30) as client:
            page = client.get("/signin")
            assert "secure" in [p.strip().lower() for p in page.headers["set-cookie"].split(";")]


def busy_port() -> tuple[socket.socket, int]:
    sock = socket.create_server(("127.0.0.1", 0))
    return sock, int(sock.getsockname()[1])


def test_every_startup_error_is_one_line(tmp_path: Path, tokens: Path) -> None:
    state = tmp_path / "st.db"
    pending_review(state, tmp_path)
    base = ("inbox", "--state", str(state), "--port", "0")
    open_tokens = tmp_path / "open"
    open_tokens.write_text(tokens.read_text())
    open_tokens.chmod(0o644)
    sock, port = busy_port()
    with sock:
        cases = [
            (base, "the inbox needs reviewers: give --tokens FILE"),
            ((*base, "--tokens", str(open_tokens)), "open to other users (mode 644)"),
            ((*base, "--tokens", str(tmp_path / "none")), "cannot read the tokens file"),
            (
                ("inbox", "--state", str(tmp_path / "no.db"), "--tokens", str(tokens)),
                "no such state file",
            ),
            (
                ("inbox", "--state", str(state), "--tokens", str(tokens), "--port", str(port)),
                f"cannot serve the inbox on 127.0.0.1:{port}",
            ),
            ((*base, "--tokens", str(tokens), "--tls-cert", str(tokens)), "together"),
            (
                (*base, "--tokens", str(tokens), "--tls-cert", "no.pem", "--tls-key", "no.pem"),
                "cannot load the TLS certificate or key",
            ),
            ((*base, "--tokens", str(tokens), "--session-hours", "0"), "above 0"),
            ((*base, "--tokens", str(tokens), "--port", "70000"), "out of range"),
            (("inbox", "--tokens", str(tokens)), "one of the arguments --nats --state"),
        ]
        for args, says in cases:
            assert_error(humangr(*args, env=env()), says)
    with_env = humangr(*base, env={**env(), ENV_TOKENS: "short alice"})
    assert_error(with_env, f"{ENV_TOKENS}: entry 1: a token is 32-256")


def test_plain_http_beyond_loopback_is_warned_about(tmp_path: Path, tokens: Path) -> None:
    state = tmp_path / "st.db"
    pending_review(state, tmp_path)
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: the bind fails, nothing is sent.
    args = ("inbox", "--state", str(state), "--tokens", str(tokens), "--host", "192.0.2.1")
    result = humangr(*args, env=env())
    assert result.returncode == 3
    warning, error = result.stderr.strip().splitlines()
    assert "warning: serving plain HTTP on 192.0.2.1" in warning
    assert "--tls-cert and --tls-key" in warning
    assert error.startswith("humangr inbox: cannot serve the inbox on 192.0.2.1:8080")
