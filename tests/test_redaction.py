"""Issue 20, item 10: secrets never reach a dead letter's bytes or an LLM error text.

Hostile inputs: every kind of secret the checks' detectors know, nkey seeds (``SU…``, ``SA…``,
``SN…``), ``password: x`` / ``password=x`` anywhere on a line, private keys without their PEM
header (one line, many lines, JSON-escaped), a secret across the letter's size limit, a damaged
state entry holding credentials, and an Anthropic endpoint whose URL and error bodies carry
credentials.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import time

import pytest

from humangr.actors.roles import run_engine
from humangr.contracts import ActionContext, DeadLetter, LayerID, encode
from humangr.contracts.review import LayerVerdict
from humangr.contracts.system import DEAD_LETTER_MAX_BYTES
from humangr.engine.actor.damaged import PREVIEW_BYTES, damaged_letter
from humangr.engine.checks.secrets import scan_secrets
from humangr.engine.errors import LLMError
from humangr.engine.letters import dead_letter
from humangr.engine.llm import AnthropicLLM
from humangr.engine.llm.base import LLMRequest, Message, SystemBlock
from humangr.engine.llm.structured import complete_structured
from humangr.engine.redact import redact_secrets
from humangr.engine.review import error_run
from humangr.engine.signing import SigningKey
from humangr.engine.state.records import Damaged
from humangr.standins.messages_api import FakeAnthropic
from humangr.standins.messages_replies import ApiError

pytestmark = pytest.mark.anyio

R = "Zq7Rw2Lx9Tz4Kv8Nm3Pb6Yc1Hd5Jf0Gs2Ua7EqWe3Rt9Yu"
"""Random-looking filler: no word a detector's placeholder filter skips."""
DETECTED = [
    ("AWS", "AKIA" + "2E0A8F3B244C9986"),
    ("GitHub", "ghp_" + R[:36]),
    ("GitLab", "glpat-" + R[:20]),
    ("Slack", "xoxb-" + "2837465019-3948576102-" + R[:24]),
    ("Stripe", "sk_live_" + R[:24]),
    ("OpenAI", "sk-proj-" + R[:32]),
    ("OpenAI legacy", "sk-" + R[:20] + "T3BlbkFJ" + R[20:40]),
    ("npm", "//registry.npmjs.org/:_authToken=npm_" + R[:36]),
    ("PyPI", "pypi-AgEIcHlwaS5vcmc" + R * 2),
    ("SendGrid", "SG." + R[:22] + "." + R[:43]),
    ("Twilio", "SK" + "3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e"),
    ("Discord", "MTA5Mzk4NzY1NDMyMTA5ODc2." + R[:6] + "." + R[:27]),
    ("Azure", "AccountKey=" + base64.b64encode(bytes(range(7, 71))).decode()),
    ("Mailchimp", "3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e-us12"),
    ("Square", "sq0csp-" + R[:43]),
    ("JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_X"),
    ("Anthropic", "sk-ant-api03-" + R[:32]),
    ("Google", "AIzaSy" + R[:33]),
    ("basic auth", "https://deploy:" + R[:12] + "@git.internal.example.org/repo"),
    ("keyword", 'db_password = "' + R[:15] + '"'),
]


def secret_part(text: str) -> str:
    """The part of a sample that must not survive (what follows ``=``/``:``, the user-info)."""
    if "://" in text:
        return text.split("://", 1)[1].split("@", 1)[0]
    if "=" in text:
        return text.split("=", 1)[1].strip(' "')
    return text


def letter_of(raw: str) -> DeadLetter:
    return dead_letter("hl.actions.submit", f"invalid ActionSubmitted: {raw[:300]}", raw.encode())


def shown(letter: DeadLetter) -> str:
    return encode(letter).decode() + letter.raw.decode("utf-8", "replace")


@pytest.mark.parametrize(("kind", "sample"), DETECTED, ids=[kind for kind, _ in DETECTED])
def test_what_any_secret_detector_finds_is_redacted_from_dead_letters(
    kind: str, sample: str
) -> None:
    line = f"config {sample} end"
    assert scan_secrets(None, line, test_file=False) is not None, f"{kind}: not a real sample"
    for raw in (line, json.dumps({"action_id": "act-1", "note": line}), f"x\n  {line}\n"):
        letter = letter_of(raw)
        assert secret_part(sample) not in shown(letter), (kind, letter.raw)
        assert b"***" in letter.raw


def nkey_seed(kind: str) -> str:
    """A real nkey seed of ``kind`` (``U`` user, ``A`` account, ``N`` server, ``O`` operator)."""
    prefix = {"U": 20, "A": 0, "N": 13, "O": 14}[kind] << 3
    head = bytes([18 << 3 | prefix >> 5, (prefix & 31) << 3]) + os.urandom(32)
    data = head + binascii.crc_hqx(head, 0).to_bytes(2, "little")
    return base64.b32encode(data).decode().rstrip("=")


@pytest.mark.parametrize("kind", ["U", "A", "N", "O"])
def test_nkey_seeds_are_redacted(kind: str) -> None:
    seed = nkey_seed(kind)
    assert seed.startswith(f"S{kind}")
    assert len(seed) == 58
    for raw in (
        f"seed {seed}",
        json.dumps({"nkey": seed}),
        f"-----BEGIN USER NKEY SEED-----\n{seed}\n------END USER NKEY SEED------\n",
        f"{seed}",
    ):
        assert seed not in shown(letter_of(raw)), raw
    server = SigningKey.generate().seed()
    assert server not in shown(letter_of(f"HUMANGR_SIGNING_SEED={server} humangr serve"))
    assert server not in shown(letter_of(f"the key is {server}, keep it"))


@pytest.mark.parametrize(
    "raw",
    [
        "connect user=a password: {s} now",
        "password: {s}",
        "  db_password: '{s}'",
        "x password={s}&y=1",
        "PASSWORD = {s}",
        '{{"password":"{s}"}}',
        "pass: {s}",
        "retry with --password={s}",
        "psql postgres://app:{s}@db:5432/prod",
        "GET /login?user=a&pass={s}",
        "GET https://api.example.org/v1?key={s}",
    ],
)
def test_password_forms_are_redacted(raw: str) -> None:
    value = "Hq3-" + R[:12]
    letter = letter_of(raw.format(s=value))
    assert value not in shown(letter), letter.raw


def private_keys() -> list[tuple[str, bytes]]:
    serialization = pytest.importorskip("cryptography.hazmat.primitives.serialization")
    asymmetric = pytest.importorskip("cryptography.hazmat.primitives.asymmetric")
    fmt, none = serialization.PrivateFormat, serialization.NoEncryption()
    pem = serialization.Encoding.PEM
    rsa = asymmetric.rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec = asymmetric.ec.generate_private_key(asymmetric.ec.SECP256R1())
    ed = asymmetric.ed25519.Ed25519PrivateKey.generate()
    return [
        ("rsa pkcs8", rsa.private_bytes(pem, fmt.PKCS8, none)),
        ("rsa pkcs1", rsa.private_bytes(pem, fmt.TraditionalOpenSSL, none)),
        ("ec sec1", ec.private_bytes(pem, fmt.TraditionalOpenSSL, none)),
        ("ec pkcs8", ec.private_bytes(pem, fmt.PKCS8, none)),
        ("ed25519", ed.private_bytes(pem, fmt.PKCS8, none)),
        ("openssh", rsa.private_bytes(pem, fmt.OpenSSH, none)),
    ]


def body_lines(key: bytes) -> list[str]:
    return [line for line in key.decode().splitlines() if line and not line.startswith("-----")]


def test_private_keys_without_their_pem_header_are_redacted() -> None:
    for name, key in private_keys():
        lines = body_lines(key)
        body = "\n".join(lines)
        for raw in (
            body,
            f"key material:\n{body}\nend",
            "".join(lines),
            json.dumps({"action_id": "act-9", "key": body}),
            json.dumps({"key": "".join(lines)}),
            key.decode(),
        ):
            letter = letter_of(raw)
            text = shown(letter)
            leaked = [line for line in lines if line[:24] in text]
            assert not leaked, (name, raw[:80], letter.raw[:200])


def test_a_secret_across_the_size_limit_is_still_redacted() -> None:
    _, key = private_keys()[0]
    body = "\n".join(body_lines(key))
    raw = ("x" * (DEAD_LETTER_MAX_BYTES - 100) + "\n" + body).encode()
    letter = dead_letter("s", "e", raw)
    assert len(letter.raw) <= DEAD_LETTER_MAX_BYTES
    assert body_lines(key)[0][:24] not in letter.raw.decode()
    seed = nkey_seed("U")
    cut = dead_letter("s", "e", ("y" * (DEAD_LETTER_MAX_BYTES - 20) + " " + seed).encode())
    assert seed[:19] not in cut.raw.decode()


def test_a_damaged_state_entry_letter_keeps_a_short_redacted_preview() -> None:
    seed = nkey_seed("U")
    value = json.dumps({"owner": "x", "password": "Hq3-" + R[:12], "seed": seed}).encode()
    damaged = Damaged(
        bucket="pending",
        key="act-7",
        revision=3,
        reason="not a valid PendingRecord (Object missing required field `report`)",
        raw=value * 100,
        size=len(value) * 100,
        quarantined_as="pending.abc",
        fate="removed",
    )
    letter = damaged_letter(damaged, "supervisor")
    assert len(letter.raw) <= PREVIEW_BYTES
    assert letter.raw_size == len(value) * 100
    assert letter.correlation_id == "act-7"
    assert letter.subject == "state/pending"
    text = shown(letter)
    assert "Hq3-" not in text
    assert seed[:12] not in text
    assert "pending/act-7" in letter.error


API_KEY = "sk-ant-api03-" + R[:40]
PASSWORD = "Pa55-" + R[:14]
QUERY_KEY = "QK-" + R[:20]


def request() -> LLMRequest:
    return LLMRequest(
        system=(SystemBlock("review"),), messages=(Message(role="user", content="hi"),)
    )


def echoing_error() -> ApiError:
    """An error body that echoes what it was sent: the key, a password, a seed."""
    return ApiError(
        400,
        "invalid_request_error",
        f"bad request (x-api-key {API_KEY}, password={PASSWORD}, seed {nkey_seed('U')})",
    )


def assert_clean(text: str) -> None:
    for secret in (API_KEY, PASSWORD, QUERY_KEY, API_KEY[:20]):
        assert secret not in text, text


async def test_llm_error_texts_carry_no_credential_of_the_url_or_the_body() -> None:
    async with FakeAnthropic() as fake:
        host = fake.url.removeprefix("http://")
        for base_url in (
            f"http://alice:{PASSWORD}@{host}",
            f"http://{host}/?key={QUERY_KEY}",
            f"http://{host}/proxy?api_key={QUERY_KEY}&x=1",
        ):
            fake.script(echoing_error())
            llm = AnthropicLLM(api_key=API_KEY, base_url=base_url, model="claude-test")
            try:
                with pytest.raises(LLMError) as caught:
                    await llm.complete(request())
                outcome = await complete_structured(llm, request_with_schema())
            finally:
                await llm.aclose()
            assert "***" in str(caught.value)
            assert_clean(str(caught.value))
            assert_clean(repr(llm))
            assert outcome.error is not None
            assert_clean(outcome.error)
            run = error_run(LayerID.HL1, 1, caught.value)
            assert_clean(run.error or "")


def request_with_schema() -> LLMRequest:
    return LLMRequest(
        system=(SystemBlock("review"),),
        messages=(Message(role="user", content="hi"),),
        schema=LayerVerdict,
    )


async def test_a_review_through_a_credentialed_endpoint_reports_no_credential() -> None:
    action = ActionContext(
        agent_id="dev-1",
        action_type="code_diff",
        action_description="Add a constant.",
        code_diff="--- a/app/x.py\n+++ b/app/x.py\n@@ -0,0 +1 @@\n+LIMIT = 10\n",
    )
    async with FakeAnthropic(default=echoing_error()) as fake:
        host = fake.url.removeprefix("http://")
        llm = AnthropicLLM(
            api_key=API_KEY,
            base_url=f"http://alice:{PASSWORD}@{host}/?key={QUERY_KEY}",
            model="claude-test",
        )
        try:
            async with run_engine(llm=llm) as engine:
                report = await engine.submit(action, timeout=60)
        finally:
            await llm.aclose()
    text = encode(report).decode()
    assert "***" in text
    assert_clean(text)


@pytest.mark.parametrize(
    "text",
    [
        ("A" * 50 + "\n") * 1_000 + "!",
        "MII" + "A" * 60_000,
        ("MIIA" + "B" * 40 + "\\n") * 1_500 + "!",
        ('\\"' + "a" * 50 + '\\": ') * 1_000,
        "password=" + "\\" * 60_000,
        "\\" * 30_000 + '"password' + "\\" * 30_000 + '": ',
        '\\"' * 30_000,
        "password: " * 6_000,
        "S" + "U" * 60_000,
        "?key=" + "&key=" * 10_000,
    ],
    ids=lambda text: repr(text[:12]),
)
def test_the_new_patterns_take_linear_time_on_hostile_text(text: str) -> None:
    letter_of("warm up the detector")
    started = time.perf_counter()
    dead_letter("s", text[:4_000], text.encode())
    redact_secrets(text[:20_000])
    assert time.perf_counter() - started < 1.0
