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


def test_no_module_imports_a_bare_top_level_name() -> None:
    """``import engine`` works from the repository root only; installed, it would fail (or pick up
    a user's ``agents`` package), so every import goes through ``humangr.``."""
    offenders = []
    for path in _python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(ROOT)}:{node.lineno}: {name}"
                for name in names
                if name.split(".")[0] in MAPPED
            ]
    assert offenders == []


def _docker_context() -> list[Path]:
    """The files ``docker build`` sends for ``deploy/Dockerfile`` (``COPY . .``): those the
    repository's ``.dockerignore`` admits (its last matching pattern wins; a pattern matching a
    folder covers what is inside)."""
    rules: list[tuple[bool, str]] = []
    for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines():
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
        "humangr/actors/supervisor.py",
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
