"""The agents' prompt assets: loading, variant fallback, and golden examples that obey §7."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from humangr import agents
from humangr.actors.pipeline.storage import check_path
from humangr.agents import (
    AGENT_PROTOCOL_PATH,
    ASSETS_DIR,
    LAYERS_DIR,
    PROMPT_AGENTS,
    AgentAssets,
    agent_variants,
    known_variants,
    load_agent_assets,
)
from humangr.contracts import AgentName, MessageEnvelope, ResponseEnvelope, ResponseStatus
from humangr.contracts.codec import decode
from humangr.engine.errors import ConfigError

EXPECTED = {
    "cto": ("generic",),
    "engineer": ("generic",),
    "pm": ("generic",),
    "dev": ("generic", "node", "python"),
    "qa": ("generic", "node", "python"),
}
PAIRS = [(agent, variant) for agent, variants in EXPECTED.items() for variant in variants]


def test_the_layer_exports_still_work() -> None:
    assert (LAYERS_DIR / "reviewer_protocol.md.j2").is_file()
    assert LAYERS_DIR.parent == ASSETS_DIR


def test_every_agent_has_exactly_its_variants() -> None:
    assert {agent: agent_variants(agent) for agent in PROMPT_AGENTS} == EXPECTED
    assert known_variants() == ("generic", "node", "python")


@pytest.mark.parametrize(("agent", "variant"), PAIRS)
def test_assets_load_in_full(agent: str, variant: str) -> None:
    assets = load_agent_assets(agent, variant)
    folder = ASSETS_DIR / agent / variant
    assert (assets.agent, assets.variant, assets.requested_variant) == (agent, variant, variant)
    assert assets.protocol == AGENT_PROTOCOL_PATH.read_text(encoding="utf-8")
    assert assets.system_prompt == (folder / "SYSTEM_PROMPT.md").read_text(encoding="utf-8")
    assert assets.skills == (folder / "skills.md").read_text(encoding="utf-8")
    assert re.fullmatch(r"[0-9a-f]{64}", assets.digest)


def test_an_enum_agent_name_is_accepted() -> None:
    assert load_agent_assets(AgentName.QA, "node") == load_agent_assets("qa", "node")


@pytest.mark.parametrize("agent", ["cto", "engineer", "pm"])
@pytest.mark.parametrize("variant", ["python", "node"])
def test_a_known_variant_missing_for_an_agent_falls_back_to_generic(
    agent: str, variant: str
) -> None:
    assets = load_agent_assets(agent, variant)
    assert (assets.variant, assets.requested_variant) == ("generic", variant)
    assert assets.system_prompt == load_agent_assets(agent).system_prompt


def test_variants_have_their_own_prompts() -> None:
    digests = {load_agent_assets("dev", v).digest for v in ("generic", "python", "node")}
    assert len(digests) == 3
    assert "pytest" in load_agent_assets("dev", "python").skills
    assert "node:test" in load_agent_assets("dev", "node").skills


@pytest.mark.parametrize("variant", ["ruby", "pyhton", "../layers", "", "GENERIC"])
def test_an_unknown_variant_is_an_error(variant: str) -> None:
    with pytest.raises(ConfigError, match="unknown prompt variant"):
        load_agent_assets("dev", variant)


@pytest.mark.parametrize("agent", ["monitor", "ceo", "layers", "../agents", ""])
def test_an_agent_without_prompts_is_an_error(agent: str) -> None:
    with pytest.raises(ConfigError, match="no prompt assets"):
        load_agent_assets(agent)


def test_a_prompt_without_a_golden_example_is_an_error() -> None:
    bare = AgentAssets("dev", "generic", "generic", "p", "# no example here", "s")
    with pytest.raises(ConfigError, match="Golden example"):
        bare.golden_example()


# --- golden examples -------------------------------------------------------------------------

MODE = {
    "cto": "spec_intake_and_normalize",
    "engineer": "generate_engineering_docs",
    "pm": "generate_backlog",
    "dev": "implement_task",
    "qa": "validate_task",
}
BACKLOG_FIELDS = ("objective", "scope", "acceptance criteria", "expected test", "dependencies")
QA_SECTIONS = ("fr/nfr mapping", "steps", "evidence", "severity", "recommendation")


def golden(agent: str, variant: str) -> tuple[MessageEnvelope, ResponseEnvelope]:
    example = load_agent_assets(agent, variant).golden_example()
    return decode(example.request, MessageEnvelope), decode(example.response, ResponseEnvelope)


def required_artifacts_present(request: MessageEnvelope, reply: ResponseEnvelope) -> None:
    """The §7 table, checked independently of the enforcer's own gates."""
    files = {a.path: a.content for a in reply.artifacts}
    task = request.task_id or ""
    if request.mode == "spec_intake_and_normalize":
        spec = files["docs/spec/PRODUCT_SPEC.md"]
        for n in range(10):
            assert re.search(rf"^## {n}\b", spec, re.MULTILINE), f"section {n}"
        assert "FR-" in spec
        assert "TBD" in spec or "UNKNOWN" in spec
        refs = [e for e in reply.evidence if e.ref.startswith("inputs.spec_raw")]
        assert 2 <= len(refs) <= 5
    elif request.mode == "generate_engineering_docs":
        for name in ("proposal", "architecture", "dependencies"):
            assert f"docs/engineer/engineer_{name}.md" in files
    elif request.mode == "generate_backlog":
        backlogs = [p for p in files if re.fullmatch(r"docs/pm/[a-z0-9-]+/BACKLOG\.md", p)]
        assert backlogs
        for path in backlogs:
            tasks = re.split(r"^## (?=TSK-)", files[path], flags=re.MULTILINE)[1:]
            assert tasks
            for body in tasks:
                assert re.match(r"TSK-[A-Z0-9-]+:", body)
                for field in BACKLOG_FIELDS:
                    assert f"- {field}:" in body.lower(), (body[:20], field)
    elif request.mode == "implement_task":
        assert any(p.startswith("apps/") for p in files)
        assert f"docs/dev/dev_implementation_{task}.md" in files
    elif request.mode == "validate_task":
        assert reply.status in (ResponseStatus.QA_PASS, ResponseStatus.QA_FAIL)
        report = files[f"docs/qa/QA_REPORT_{task}.md"].lower()
        for section in QA_SECTIONS:
            assert f"## {section}" in report, section
    else:  # pragma: no cover - a new mode needs its row here
        pytest.fail(f"no §7 row for mode {request.mode}")


@pytest.mark.parametrize(("agent", "variant"), PAIRS)
def test_golden_examples_are_valid_envelopes_that_meet_section_7(agent: str, variant: str) -> None:
    request, reply = golden(agent, variant)
    assert (request.agent, request.variant, request.mode) == (agent, variant, MODE[agent])
    assert request.project_id == "notes"
    assert reply.artifacts
    for artifact in reply.artifacts:
        assert check_path(artifact.path) == artifact.path
    if reply.status is ResponseStatus.OK:
        assert reply.evidence
    assert reply.status is not ResponseStatus.NEEDS_INFO
    required_artifacts_present(request, reply)


def test_the_qa_examples_show_both_verdicts() -> None:
    statuses = {golden("qa", v)[1].status for v in EXPECTED["qa"]}
    assert statuses == {ResponseStatus.QA_PASS, ResponseStatus.QA_FAIL}
    failed = next(golden("qa", v)[1] for v in EXPECTED["qa"])
    assert failed.status is ResponseStatus.QA_FAIL
    assert failed.next_actions.owner == "dev"
    assert failed.next_actions.items


@pytest.mark.parametrize(("agent", "variant"), PAIRS)
def test_golden_examples_pass_the_enforcer_gates(agent: str, variant: str) -> None:
    """Owner B's ``engine.enforcer.gates.check_reply`` accepts every golden reply."""
    from humangr.engine.enforcer.gates import check_reply

    request, reply = golden(agent, variant)
    assert check_reply(request, reply) == []


@pytest.mark.parametrize(("agent", "variant"), PAIRS)
def test_each_prompt_names_exactly_its_write_set(agent: str, variant: str) -> None:
    from humangr.engine.path_policy import ALLOWED_TOPS, write_set

    prompt = load_agent_assets(agent, variant).system_prompt
    section = " ".join(prompt.split("## Where you may write\n", 1)[1].split("\n## ", 1)[0].split())
    sentence = section.split("Your artifacts may be written only under", 1)[1].split(".", 1)[0]
    named = set(re.findall(r"`([a-z/]+/)`", sentence))
    assert named == set(write_set(agent))
    assert "path_policy" in section
    assert "nothing of it is written" in section
    _, reply = golden(agent, variant)
    assert all(a.path.startswith(write_set(agent)) for a in reply.artifacts)
    assert {f"{top}/" for top in ALLOWED_TOPS} >= {f.split("/")[0] + "/" for f in named}


def test_the_protocol_states_the_contract() -> None:
    text = AGENT_PROTOCOL_PATH.read_text(encoding="utf-8")
    for status in ResponseStatus:
        assert f"`{status.value}`" in text
    for field in ResponseEnvelope.__struct_fields__:
        assert f"`{field}`" in text
    for phrase in (
        "exactly one JSON object",
        "1 to 7 questions",
        "docs/",
        "project/",
        "apps/",
        "`.git`",
        "Where you may write",
    ):
        assert phrase in text
    assert agents.__all__ == sorted(agents.__all__, key=lambda s: (not s.isupper(), s))


def write_golden_files(agent: str, variant: str, root: Path) -> Path:
    _, reply = golden(agent, variant)
    for artifact in reply.artifacts:
        target = root / artifact.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(artifact.content, encoding="utf-8")
    return root / "apps" / "notes"


@pytest.mark.parametrize("variant", ["generic", "python"])
def test_the_python_dev_example_code_passes_its_own_tests(variant: str, tmp_path: Path) -> None:
    app = write_golden_files("dev", variant, tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=app,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert re.search(r"\b6 passed\b", run.stdout), run.stdout


@pytest.mark.skipif(
    shutil.which("node") is None,
    reason="LOUD SKIP: node is not installed (apt-get install nodejs); the Node Dev golden "
    "example's tests were not run",
)
def test_the_node_dev_example_code_passes_its_own_tests(tmp_path: Path) -> None:
    app = write_golden_files("dev", "node", tmp_path)
    run = subprocess.run(
        ["node", "--test"], cwd=app, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert re.search(r"# pass 6\b", run.stdout), run.stdout
