"""ProjectStore on the real filesystem: symlink escapes, atomic writes, all-or-nothing batches."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from humangr.contracts import Artifact
from humangr.engine.errors import PathPolicyError
from humangr.engine.storage import LOCK_NAME, TEMP_SUFFIX, ProjectStore


@pytest.fixture
def store(tmp_path: Path) -> ProjectStore:
    return ProjectStore(tmp_path / "root", "demo")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("outside data")
    return folder


def temp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(TEMP_SUFFIX)]


def run_child(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_project_id_is_validated(tmp_path: Path) -> None:
    with pytest.raises(PathPolicyError, match="project_id"):
        ProjectStore(tmp_path, "../escape")
    assert not (tmp_path.parent / "escape").exists()


def test_write_read_exists_list(store: ProjectStore) -> None:
    assert not store.exists("docs/spec/PRODUCT_SPEC.md")
    assert store.list() == []
    assert store.write("docs/spec/PRODUCT_SPEC.md", "# Spec\n") == "docs/spec/PRODUCT_SPEC.md"
    store.write("apps/notes/src/store.py", "x = 1\n")
    store.write("project/notes.txt", "ü ✓\n")
    assert store.read("docs/spec/PRODUCT_SPEC.md") == "# Spec\n"
    assert store.read("project/notes.txt") == "ü ✓\n"
    assert store.exists("apps/notes/src/store.py")
    assert (store.dir / "apps/notes/src/store.py").read_text() == "x = 1\n"
    assert store.list() == [
        "apps/notes/src/store.py",
        "docs/spec/PRODUCT_SPEC.md",
        "project/notes.txt",
    ]
    assert store.list("docs") == store.list("docs/") == ["docs/spec/PRODUCT_SPEC.md"]
    assert store.list("apps/notes/src") == ["apps/notes/src/store.py"]
    assert store.list("apps/missing") == []
    assert temp_files(store.root) == []


def test_files_outside_the_allowed_tops_are_not_listed(store: ProjectStore) -> None:
    store.write("docs/a.md", "a")
    (store.dir / "other").mkdir()
    (store.dir / "other" / "b.md").write_text("b")
    assert store.list() == ["docs/a.md"]
    assert (store.dir / LOCK_NAME).exists()


@pytest.mark.parametrize(
    "path", ["/etc/passwd", "../x.md", "docs/../../x.md", "~/x.md", "docs\\x.md", "docs/x\x00"]
)
def test_refused_paths_touch_nothing(store: ProjectStore, path: str) -> None:
    for call in (
        lambda: store.write(path, "data"),
        lambda: store.read(path),
        lambda: store.exists(path),
        lambda: store.resolve(path),
    ):
        with pytest.raises(PathPolicyError):
            call()
    assert store.list() == []


def test_list_prefix_follows_the_policy(store: ProjectStore) -> None:
    for prefix in ("../", "/etc", "src", "docs/../.."):
        with pytest.raises(PathPolicyError):
            store.list(prefix)


class TestSymlinks:
    def test_a_symlinked_folder_that_leaves_the_project_is_refused(
        self, store: ProjectStore, outside: Path
    ) -> None:
        store.write("docs/readme.md", "inside")
        os.symlink(outside, store.dir / "docs" / "link")
        with pytest.raises(PathPolicyError, match="outside the project root"):
            store.write("docs/link/new.md", "escape")
        with pytest.raises(PathPolicyError, match="outside the project root"):
            store.read("docs/link/secret.txt")
        with pytest.raises(PathPolicyError, match="outside the project root"):
            store.exists("docs/link/secret.txt")
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
        assert store.list() == ["docs/readme.md"]

    def test_a_symlinked_file_that_leaves_the_project_is_refused(
        self, store: ProjectStore, outside: Path
    ) -> None:
        store.write("docs/readme.md", "inside")
        os.symlink(outside / "secret.txt", store.dir / "docs" / "evil.md")
        with pytest.raises(PathPolicyError, match="outside the project root"):
            store.write("docs/evil.md", "overwrite")
        with pytest.raises(PathPolicyError, match="outside the project root"):
            store.read("docs/evil.md")
        assert (outside / "secret.txt").read_text() == "outside data"
        assert store.list() == ["docs/readme.md"]

    def test_a_dangling_symlink_that_points_outside_is_refused(
        self, store: ProjectStore, outside: Path
    ) -> None:
        (store.dir / "docs").mkdir(parents=True)
        os.symlink(outside / "not-yet.txt", store.dir / "docs" / "dangling.md")
        with pytest.raises(PathPolicyError, match="outside the project root"):
            store.write("docs/dangling.md", "escape")
        assert not (outside / "not-yet.txt").exists()

    def test_a_symlinked_top_folder_is_refused(self, store: ProjectStore, outside: Path) -> None:
        store.dir.mkdir(parents=True)
        os.symlink(outside, store.dir / "apps")
        with pytest.raises(PathPolicyError, match="outside the project root"):
            store.write("apps/x.py", "escape")
        with pytest.raises(PathPolicyError, match="outside the project root"):
            store.write_many([Artifact(path="apps/y.py", content="escape")])
        assert store.list() == []
        assert store.list("apps") == []
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]

    def test_a_symlink_inside_the_project_is_allowed(self, store: ProjectStore) -> None:
        store.write("docs/real/a.md", "v1")
        os.symlink(store.dir / "docs" / "real", store.dir / "docs" / "alias")
        store.write("docs/alias/a.md", "v2")
        assert store.read("docs/real/a.md") == "v2"
        assert store.resolve("docs/alias/a.md") == (store.dir / "docs/real/a.md").resolve()

    def test_the_project_dir_may_itself_be_a_symlink(self, tmp_path: Path) -> None:
        real = tmp_path / "real-demo"
        real.mkdir()
        (tmp_path / "root").mkdir()
        os.symlink(real, tmp_path / "root" / "demo")
        store = ProjectStore(tmp_path / "root", "demo")
        store.write("docs/a.md", "a")
        assert (real / "docs" / "a.md").read_text() == "a"


class TestAtomicWrite:
    def test_content_is_replaced_by_a_new_file(self, store: ProjectStore) -> None:
        store.write("docs/a.md", "old content\n")
        with open(store.dir / "docs/a.md") as before:
            store.write("docs/a.md", "new\n")
            assert before.read() == "old content\n"
        assert store.read("docs/a.md") == "new\n"
        assert temp_files(store.root) == []
        assert oct((store.dir / "docs/a.md").stat().st_mode & 0o777) == oct(0o644)

    def test_a_failed_write_leaves_the_old_file_and_no_temp_file(self, store: ProjectStore) -> None:
        store.write("docs/a.md", "old content\n")
        child = run_child(
            """
            import resource, signal, sys
            from humangr.engine.storage import ProjectStore
            store = ProjectStore(sys.argv[1], "demo")
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
            try:
                store.write("docs/a.md", "x" * 100_000)
            except OSError as exc:
                print("failed", exc.errno)
            else:
                print("written")
            """,
            str(store.root),
        )
        assert child.stdout.split()[0] == "failed", child.stderr
        assert store.read("docs/a.md") == "old content\n"
        assert temp_files(store.root) == []

    def test_a_path_that_is_a_directory_is_refused(self, store: ProjectStore) -> None:
        store.write("docs/spec/a.md", "a")
        with pytest.raises(PathPolicyError, match="directory"):
            store.write("docs/spec", "x")

    def test_a_parent_that_is_a_file_is_refused(self, store: ProjectStore) -> None:
        store.write("docs/spec", "a file")
        with pytest.raises(PathPolicyError, match="is a file"):
            store.write("docs/spec/a.md", "x")
        assert store.read("docs/spec") == "a file"


class TestWriteMany:
    def test_all_are_written_and_returned_in_order(self, store: ProjectStore) -> None:
        written = store.write_many(
            [
                Artifact(path="apps/a/x.py", content="x"),
                Artifact(path="docs/dev/d.md", content="d"),
            ]
        )
        assert written == ["apps/a/x.py", "docs/dev/d.md"]
        assert store.list() == ["apps/a/x.py", "docs/dev/d.md"]
        assert store.write_many([]) == []

    @pytest.mark.parametrize(
        "bad",
        [
            Artifact(path="../escape.py", content="x"),
            Artifact(path="/abs/x.py", content="x"),
            Artifact(path="src/x.py", content="x"),
            Artifact(path="docs/keep.md", content="dup"),
            Artifact(path="docs/keep.md/inner.md", content="parent is a file in this batch"),
        ],
        ids=["dot-dot", "absolute", "outside tops", "duplicate", "file-folder conflict"],
    )
    def test_one_refused_artifact_writes_none(self, store: ProjectStore, bad: Artifact) -> None:
        store.write("docs/existing.md", "old")
        batch = [
            Artifact(path="apps/a/x.py", content="new"),
            Artifact(path="docs/existing.md", content="new"),
            Artifact(path="docs/keep.md", content="new"),
            bad,
        ]
        with pytest.raises(PathPolicyError):
            store.write_many(batch)
        assert store.list() == ["docs/existing.md"]
        assert store.read("docs/existing.md") == "old"
        assert temp_files(store.root) == []

    def test_a_failure_while_staging_writes_none(self, store: ProjectStore) -> None:
        store.write("docs/existing.md", "old")
        child = run_child(
            """
            import resource, signal, sys
            from humangr.contracts import Artifact
            from humangr.engine.storage import ProjectStore
            store = ProjectStore(sys.argv[1], "demo")
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
            batch = [
                Artifact(path="docs/existing.md", content="new"),
                Artifact(path="apps/a/small.py", content="small"),
                Artifact(path="apps/a/big.py", content="x" * 100_000),
            ]
            try:
                store.write_many(batch)
            except OSError as exc:
                print("failed", exc.errno)
            else:
                print("written")
            """,
            str(store.root),
        )
        assert child.stdout.split()[0] == "failed", child.stderr
        assert store.list() == ["docs/existing.md"]
        assert store.read("docs/existing.md") == "old"
        assert temp_files(store.root) == []
