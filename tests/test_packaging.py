"""One import name: the wheel installs only ``humangr`` at the top level of site-packages."""

from __future__ import annotations

import ast
import fnmatch
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAPPED = tuple(
    subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "mapped-folders")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
)
"""The folders setup.py installs under ``humangr`` (read from setup.py, where alone it is
written)."""
SOURCES = ("humangr", *MAPPED, "tests", "examples")


def _python_files() -> list[Path]:
    return [p for folder in SOURCES for p in (ROOT / folder).rglob("*.py")]


THE_SDKS_AGENTS = frozenset(
    {"tests/adapters/test_openai_agents.py", "examples/openai_agents/agent.py"}
)
"""Files that import the OpenAI Agents SDK, whose package is named ``agents`` too (they run
with the SDK installed and import ``humangr.adapters.openai_agents`` first, which loads the
SDK's package and not this repository's folder)."""


def test_no_module_imports_a_bare_top_level_name() -> None:
    """``import engine`` works from the repository root only; installed, it would fail (or pick up
    a user's ``agents`` package), so every import goes through ``humangr.``."""
    offenders = []
    for path in _python_files():
        if str(path.relative_to(ROOT)) in THE_SDKS_AGENTS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}: {name}"
                for name in names
                if name.split(".")[0] in MAPPED
            ]
    assert offenders == []


IGNORE_FILES = (ROOT / "deploy" / "Dockerfile.dockerignore", ROOT / ".dockerignore")
"""BuildKit reads ``<Dockerfile>.dockerignore`` beside ``deploy/Dockerfile`` instead of the
repository's ``.dockerignore`` when it exists: the first of these that exists decides."""


def _docker_context(ignore_file: Path | None = None) -> list[Path]:
    """The files ``docker build -f deploy/Dockerfile .`` sends (``COPY . .``): those the
    ignore file BuildKit reads admits (its last matching pattern wins; a pattern matching a
    folder covers what is inside)."""
    ignore_file = ignore_file or next(path for path in IGNORE_FILES if path.is_file())
    rules: list[tuple[bool, str]] = []
    for line in ignore_file.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            rules.append((line.startswith("!"), line.lstrip("!").rstrip("/")))

    def admitted(relative: str) -> bool:
        parts = relative.split("/")
        prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
        keep = True
        for negated, pattern in rules:
            glob = pattern.removeprefix("**/")
            hit = any(
                fnmatch.fnmatchcase(prefix, pattern)
                or (pattern.startswith("**/") and fnmatch.fnmatchcase(prefix.split("/")[-1], glob))
                for prefix in prefixes
            )
            if hit:
                keep = negated
        return keep

    return [
        path
        for path in ROOT.rglob("*")
        if path.is_file()
        and not path.relative_to(ROOT).parts[0].startswith(".")
        and admitted(path.relative_to(ROOT).as_posix())
    ]


def test_both_ignore_files_admit_the_same_build_context() -> None:
    """The image once built without ``setup.py`` and ``humangr/``: BuildKit read the
    Dockerfile's own ignore file, which admitted neither, while the wheel test read the other."""
    existing = [path for path in IGNORE_FILES if path.is_file()]
    contexts = [sorted(_docker_context(path)) for path in existing]
    assert all(context == contexts[0] for context in contexts), [str(p) for p in existing]


def test_docker_context_holds_the_package_and_nothing_else() -> None:
    tops = {path.relative_to(ROOT).parts[0] for path in _docker_context()}
    assert tops == {"pyproject.toml", "setup.py", "README.md", "humangr", *MAPPED}
    assert not [p for p in _docker_context() if "__pycache__" in p.parts]
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    assert "COPY . ." in dockerfile


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from exactly the Docker build context (so the image's install works)."""
    out = tmp_path_factory.mktemp("wheel")
    # Build from a copy: pip builds in the source tree and would leave build/ behind.
    source = tmp_path_factory.mktemp("source") / "humangr"
    for path in _docker_context():
        target = source / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore::UserWarning"},
        timeout=300,
    )
    (built,) = out.glob("humangr-*.whl")
    return built


def test_wheel_holds_only_the_humangr_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"humangr", next(t for t in tops if t.endswith(".dist-info"))}
    for needed in (
        "humangr/__init__.py",
        "humangr/py.typed",
        "humangr/cli/main.py",
        "humangr/contracts/review.py",
        "humangr/actors/review/supervisor.py",
        "humangr/agents/AGENT_PROTOCOL.md",
        "humangr/agents/layers/HL4.md.j2",
        "humangr/agents/dev/python/SYSTEM_PROMPT.md",
        "humangr/inbox/templates/review.html",
        "humangr/inbox/static/inbox.js",
        "humangr/inbox/static/inbox.css",
    ):
        assert needed in names
    assert not [n for n in names if "__pycache__" in n or n.startswith("humangr/tests/")]
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "humangr = humangr.cli.main:main" in text
    assert "humangr = humangr.testing.pytest_plugin" in text


def test_wheel_installs_beside_a_user_package_named_agents(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    # The dependencies come from this test's environment: a path entry, not a site dir, so the
    # editable finder of the development install is not loaded and `humangr` is the wheel's.
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    project = tmp_path / "project"
    (project / "agents").mkdir(parents=True)
    (project / "agents" / "__init__.py").write_text("MINE = 'the user agents package'\n")
    (project / "contracts").mkdir()
    (project / "contracts" / "__init__.py").write_text("MINE = 'the user contracts package'\n")
    code = (
        "import agents, contracts, humangr, humangr.agents, humangr.cli.main\n"
        "from humangr.contracts import ActionContext\n"
        "assert agents.MINE == 'the user agents package', agents.__file__\n"
        "assert contracts.MINE == 'the user contracts package'\n"
        "assert humangr.agents.LAYERS_DIR.is_dir()\n"
        "print(humangr.__file__)\n"
    )
    done = subprocess.run(
        [python, "-c", code], cwd=project, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith(str(site))
    tops = {p.name for p in site.iterdir()} - {"deps.pth", "_virtualenv.py", "_virtualenv.pth"}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"humangr"}


def test_the_wheel_installed_in_a_fresh_venv_runs_humangr_help(wheel: Path, tmp_path: Path) -> None:
    """What the image does: ``pip install`` the build context, then run ``humangr``."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    installed = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"),
            *("--no-deps", "--no-index", str(wheel)),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stderr
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = subprocess.run(
        [env_dir / "bin" / "humangr", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "serve" in done.stdout
    assert "Review AI agents' actions" in done.stdout


def _compose_services() -> dict[str, dict[str, Any]]:
    """The humangr services of deploy/docker-compose.yml (PyYAML comes with bandit)."""
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed: compose unchecked")
    compose = yaml.safe_load((ROOT / "deploy" / "docker-compose.yml").read_text(encoding="utf-8"))
    services: dict[str, dict[str, Any]] = compose["services"]
    return {
        name: service
        for name, service in services.items()
        if str(service.get("image", "")).startswith("humangr")
    }


def test_every_compose_service_command_parses_with_humangr_s_own_parser() -> None:
    from humangr.cli.main import build_parser

    services = _compose_services()
    assert {"supervisor", "layers", "agents", "monitor"} <= set(services)
    for name, service in services.items():
        command = [str(word) for word in service["command"]]
        args = build_parser(command).parse_args(command)
        assert args.command == "serve", name
        assert args.role == name.removesuffix("s") or args.role == name, name


def test_no_compose_service_requires_an_api_key() -> None:
    """Without ANTHROPIC_API_KEY the services start in local-checks mode: the key is optional
    (``${ANTHROPIC_API_KEY:-}``) wherever it is passed, and no command asks for an LLM."""
    for name, service in _compose_services().items():
        environment = service.get("environment") or {}
        key = environment.get("ANTHROPIC_API_KEY")
        assert key in (None, "${ANTHROPIC_API_KEY:-}"), (name, key)
        command = [str(word) for word in service["command"]]
        assert "anthropic" not in command, name
