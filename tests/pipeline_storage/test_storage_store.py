"""ProjectStore on the real filesystem: symlink escapes, atomic writes, all-or-nothing batches."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from humangr.actors.pipeline.storage import LOCK_NAME, TEMP_SUFFIX, ProjectStore
from humangr.contracts import Artifact
from humangr.engine.errors import PathPolicyError


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
        for call in (
            lambda: store.write("docs/link/new.md", "escape"),
            lambda: store.append("docs/link/new.md", "escape"),
            lambda: store.read("docs/link/secret.txt"),
            lambda: store.exists("docs/link/secret.txt"),
            lambda: store.resolve("docs/link/new.md"),
        ):
            with pytest.raises(PathPolicyError, match="docs/link is a symlink"):
                call()
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
        assert store.list() == ["docs/readme.md"]
        assert store.list("docs/link") == []

    def test_a_symlinked_file_that_leaves_the_project_is_refused(
        self, store: ProjectStore, outside: Path
    ) -> None:
        store.write("docs/readme.md", "inside")
        os.symlink(outside / "secret.txt", store.dir / "docs" / "evil.md")
        for call in (
            lambda: store.write("docs/evil.md", "overwrite"),
            lambda: store.append("docs/evil.md", "more"),
            lambda: store.read("docs/evil.md"),
            lambda: store.exists("docs/evil.md"),
        ):
            with pytest.raises(PathPolicyError, match="is a symlink"):
                call()
        assert (outside / "secret.txt").read_text() == "outside data"
        assert store.list() == ["docs/readme.md"]

    def test_a_dangling_symlink_that_points_outside_is_refused(
        self, store: ProjectStore, outside: Path
    ) -> None:
        (store.dir / "docs").mkdir(parents=True)
        os.symlink(outside / "not-yet.txt", store.dir / "docs" / "dangling.md")
        with pytest.raises(PathPolicyError, match="is a symlink"):
            store.write("docs/dangling.md", "escape")
        with pytest.raises(PathPolicyError, match="is a symlink"):
            store.append("docs/dangling.md", "escape")
        assert not (outside / "not-yet.txt").exists()

    def test_a_symlinked_top_folder_is_refused(self, store: ProjectStore, outside: Path) -> None:
        store.dir.mkdir(parents=True)
        os.symlink(outside, store.dir / "apps")
        with pytest.raises(PathPolicyError, match="apps is a symlink"):
            store.write("apps/x.py", "escape")
        with pytest.raises(PathPolicyError, match="apps is a symlink"):
            store.write_many([Artifact(path="apps/y.py", content="escape")])
        assert store.list() == []
        assert store.list("apps") == []
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]

    def test_a_symlink_inside_the_project_is_refused_too(self, store: ProjectStore) -> None:
        """Write sets are per path: a link from apps/ into docs/spec/ would let code reach the
        spec (or a doc reach apps/), so no link is followed, wherever it points."""
        store.write("docs/spec/PRODUCT_SPEC.md", "v1")
        os.symlink(store.dir / "docs" / "spec", store.dir / "apps")
        with pytest.raises(PathPolicyError, match="apps is a symlink"):
            store.write("apps/PRODUCT_SPEC.md", "v2")
        os.symlink(store.dir / "docs/spec/PRODUCT_SPEC.md", store.dir / "docs" / "alias.md")
        with pytest.raises(PathPolicyError, match="is a symlink"):
            store.write("docs/alias.md", "v3")
        assert store.read("docs/spec/PRODUCT_SPEC.md") == "v1"
        assert store.list() == ["docs/spec/PRODUCT_SPEC.md"]

    def test_a_folder_swapped_for_a_symlink_after_the_check_is_still_refused(
        self, tmp_path: Path, outside: Path
    ) -> None:
        class Racy(ProjectStore):
            """The check ran while docs/d was a real folder; the walk happens after the swap."""

            def resolve(self, path: str) -> Path:
                return self.dir / path

        store = Racy(tmp_path / "root", "demo")
        store.write("docs/d/a.md", "a")
        shutil.rmtree(store.dir / "docs" / "d")
        os.symlink(outside, store.dir / "docs" / "d")
        with pytest.raises(PathPolicyError, match="docs/d is a symlink"):
            store.write("docs/d/b.md", "escape")
        with pytest.raises(PathPolicyError, match="docs/d is a symlink"):
            store.append("docs/d/b.md", "escape")
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


class TestHardLinks:
    def test_append_through_a_hard_link_to_an_outside_file_is_refused(
        self, store: ProjectStore, outside: Path
    ) -> None:
        (store.dir / "docs" / "monitor" / "audit").mkdir(parents=True)
        link = store.dir / "docs" / "monitor" / "audit" / "2025-03-14.jsonl"
        os.link(outside / "secret.txt", link)
        with pytest.raises(PathPolicyError, match="2 hard links"):
            store.append("docs/monitor/audit/2025-03-14.jsonl", '{"forged": true}')
        with pytest.raises(PathPolicyError, match="hard links"):
            store.read("docs/monitor/audit/2025-03-14.jsonl")
        assert (outside / "secret.txt").read_text() == "outside data"
        assert store.list() == [], "a hard-linked file is not listed"

    def test_a_write_replaces_the_name_and_never_the_outside_content(
        self, store: ProjectStore, outside: Path
    ) -> None:
        (store.dir / "docs").mkdir(parents=True)
        os.link(outside / "secret.txt", store.dir / "docs" / "a.md")
        store.write("docs/a.md", "new")
        assert (outside / "secret.txt").read_text() == "outside data"
        assert (outside / "secret.txt").stat().st_nlink == 1
        assert store.read("docs/a.md") == "new"

    def test_append_to_a_fifo_or_a_folder_is_refused(self, store: ProjectStore) -> None:
        (store.dir / "docs").mkdir(parents=True)
        os.mkfifo(store.dir / "docs" / "pipe")
        with pytest.raises(PathPolicyError, match="not a regular file"):
            store.append("docs/pipe", "x")
        with pytest.raises(PathPolicyError, match="not a regular file"):
            store.read("docs/pipe")
        (store.dir / "docs" / "folder").mkdir()
        with pytest.raises(PathPolicyError, match="existing directory"):
            store.append("docs/folder", "x")


class TestRoots:
    def test_a_root_that_is_a_symlink_is_refused(self, tmp_path: Path, outside: Path) -> None:
        os.symlink(outside, tmp_path / "root")
        with pytest.raises(PathPolicyError, match="projects root is a symlink"):
            ProjectStore(tmp_path / "root", "demo")
        with pytest.raises(PathPolicyError, match="projects root is a symlink"):
            ProjectStore(str(tmp_path / "root") + "/", "demo")
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]

    def test_a_root_that_becomes_a_symlink_is_refused(self, tmp_path: Path, outside: Path) -> None:
        store = ProjectStore(tmp_path / "root", "demo")
        store.write("docs/a.md", "a")
        (tmp_path / "root").rename(tmp_path / "moved")
        os.symlink(outside, tmp_path / "root")
        with pytest.raises(PathPolicyError, match="no longer a real folder"):
            store.write("docs/b.md", "escape")
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]

    def test_a_root_under_a_symlinked_parent_is_resolved(self, tmp_path: Path) -> None:
        real = tmp_path / "real"
        (real / "root").mkdir(parents=True)
        os.symlink(real, tmp_path / "alias")
        store = ProjectStore(tmp_path / "alias" / "root", "demo")
        assert store.root == real / "root"
        store.write("docs/a.md", "a")
        assert (real / "root" / "demo" / "docs" / "a.md").read_text() == "a"

    def test_a_root_that_is_a_file_is_refused(self, tmp_path: Path) -> None:
        (tmp_path / "root").write_text("not a folder")
        with pytest.raises(PathPolicyError, match="not a folder"):
            ProjectStore(tmp_path / "root", "demo")

    def test_a_project_folder_that_is_a_symlink_is_refused(
        self, tmp_path: Path, outside: Path
    ) -> None:
        (tmp_path / "root").mkdir()
        os.symlink(outside, tmp_path / "root" / "demo")
        with pytest.raises(PathPolicyError, match="project folder is a symlink"):
            ProjectStore(tmp_path / "root", "demo")
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]

    def test_a_project_folder_that_becomes_a_symlink_is_refused(
        self, tmp_path: Path, outside: Path
    ) -> None:
        store = ProjectStore(tmp_path / "root", "demo")
        store.write("docs/a.md", "a")
        shutil.rmtree(store.dir)
        os.symlink(outside, store.dir)
        for call in (
            lambda: store.write("docs/b.md", "escape"),
            lambda: store.append("docs/b.md", "escape"),
            lambda: store.read("docs/secret.txt"),
            lambda: store.exists("docs/b.md"),
        ):
            with pytest.raises(PathPolicyError, match="project folder is a symlink"):
                call()
        assert store.list() == []
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


class TestNamesOnDisk:
    @pytest.mark.parametrize(
        "path",
        [
            "apps/" + "é" * 128,
            "apps/" + "😀" * 64 + ".py",
            "apps/" + "日" * 86 + "/x.py",
        ],
        ids=["2-byte", "4-byte", "3-byte folder"],
    )
    def test_an_overlong_multi_byte_segment_is_a_policy_error_not_an_oserror(
        self, store: ProjectStore, path: str
    ) -> None:
        for call in (
            lambda: store.write(path, "x"),
            lambda: store.append(path, "x"),
            lambda: store.read(path),
            lambda: store.exists(path),
        ):
            with pytest.raises(PathPolicyError, match="bytes in UTF-8"):
                call()

    def test_a_multi_byte_name_of_255_bytes_is_written(self, store: ProjectStore) -> None:
        path = "apps/" + "é" * 127 + "x"
        store.write(path, "ok")
        assert store.read(path) == "ok"
        assert store.list() == [path]
        assert temp_files(store.root) == []

    @pytest.mark.parametrize(
        "path",
        [
            "apps/．．/x.py",
            "apps/x.",
            "apps/x ",
            "apps/.git/config",
            "apps/.humangr.lock",
            "docs/x.md.humangr-tmp",
        ],
    )
    def test_refused_names_write_nothing(self, store: ProjectStore, path: str) -> None:
        for call in (
            lambda: store.write(path, "x"),
            lambda: store.append(path, "x"),
            lambda: store.write_many(
                [Artifact(path="docs/ok.md", content="x"), Artifact(path=path, content="x")]
            ),
        ):
            with pytest.raises(PathPolicyError):
                call()
        assert store.list() == []
        assert [p.name for p in store.dir.rglob("*")] == [LOCK_NAME]

    def test_names_the_store_would_refuse_are_not_listed(self, store: ProjectStore) -> None:
        store.write("apps/ok.py", "x")
        (store.dir / "apps" / ".git").mkdir()
        (store.dir / "apps" / ".git" / "config").write_text("[core]")
        (store.dir / "apps" / "x.").write_text("dot")
        (store.dir / "apps" / ".humangr.lock").write_text("")
        assert store.list() == ["apps/ok.py"]


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
            from humangr.actors.pipeline.storage import ProjectStore
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
            from humangr.actors.pipeline.storage import ProjectStore
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
