"""Throwaway environments a command tears down, told by the names the command itself gives:
the per-change environments CI makes for one pull request and removes when it merges.

- a Terraform or Pulumi workspace or stack named for one change (``pr-1842``, ``mr-77``,
  ``preview-checkout``, ``ephemeral-42``), chosen by ``TF_WORKSPACE=``, ``terraform workspace
  select`` earlier in the same command line, or ``--stack``; the state of that workspace is
  that change's copy, whatever the configuration folder;
- a review app named for its pull request (``heroku … --app shop-pr-1482``);
- a framework reset run with test settings (``manage.py flush --settings=app.settings.test``,
  ``--env=test``): the test database is rebuilt by every run;
- a CI artifact bucket's prefix of one change or build (``s3://acme-ci-artifacts/builds/pr-17/``);
- one BigQuery table of a scratch or sandbox dataset (``bq rm -t proj:scratch_ann.tmp_x``).

What a hostile agent cannot fake here is the name of the thing removed: a workspace, app,
bucket or dataset named for one change is what is destroyed. Anything naming production
(``prod``, ``prd``, ``live``), a legacy ``-state`` file, or a release prefix keeps the usual
verdict. Pure functions over words already read; bounded by the length checks below.
"""

from __future__ import annotations

import re

from .sql_scope import throwaway_schema

__all__ = [
    "artifact_objects",
    "review_app",
    "scratch_bq_table",
    "terraform_throwaway",
    "test_settings",
    "throwaway_env",
]

_PROD = re.compile(r"(?i)(?:^|[^a-z])(?:prod(?:uction)?|prd|live|main|master)(?:[^a-z]|$)")
_CHANGE_ENV = re.compile(
    r"(?i)^(?:[a-z0-9][\w.-]{0,60}[-_.])?(?:pr|mr)[-_]?\d{1,7}$"
    r"|^(?:preview|ephemeral|review(?:-app)?)[-_][\w.-]{1,60}$"
    r"|^[\w.-]{1,60}[-_](?:preview|ephemeral)(?:[-_]\d{1,7})?$"
)


def throwaway_env(name: str) -> bool:
    """Whether ``name`` is an environment made for one change (``pr-1842``, ``shop-pr-12``,
    ``preview-cart``, ``ephemeral-42``) and names no production."""
    name = name.strip().strip("'\"")
    return len(name) <= 80 and bool(_CHANGE_ENV.match(name)) and not _PROD.search(name)


_TF_KEEP = ("-state=", "-state-out=", "-backend-config", "-lock=false")


def terraform_throwaway(argv: list[str], assigns: list[tuple[str, str]], chosen: str) -> bool:
    """A ``terraform``/``tofu``/``pulumi`` destroy whose workspace or stack is named for one
    change: ``TF_WORKSPACE=pr-12``, an earlier ``workspace select pr-12`` (``chosen``), or
    ``--stack pr-12``; nothing in the command names production, nor a state file."""
    if len(argv) > 40:
        return False
    text = " ".join(argv[1:])
    if _PROD.search(text) or any(a.startswith(_TF_KEEP) for a in argv):
        return False
    names = [v for k, v in assigns if k in ("TF_WORKSPACE", "PULUMI_STACK")]
    for i, word in enumerate(argv[:-1]):
        if word in ("--stack", "-s"):
            names.append(argv[i + 1])
    for word in argv:
        if word.startswith("--stack="):
            names.append(word.split("=", 1)[1])
    if not names and chosen:
        names.append(chosen)
    return bool(names) and all(throwaway_env(n) for n in names)


def review_app(argv: list[str]) -> bool:
    """``heroku pg:reset … --app shop-pr-1482``: every app the command names is a review app
    of one pull request."""
    apps = [argv[i + 1] for i, w in enumerate(argv[:-1]) if w in ("--app", "-a")]
    apps += [w.split("=", 1)[1] for w in argv if w.startswith("--app=")]
    return bool(apps) and all(throwaway_env(a) for a in apps)


_TEST_SETTINGS = re.compile(
    r"(?i)^(?:--settings=[\w.]{0,120}\.(?:test|tests|testing|ci)"
    r"|--env(?:ironment)?=(?:test|testing|ci))$"
)


def test_settings(argv: list[str]) -> bool:
    """A framework task told to use its test settings (``--settings=app.settings.test``,
    ``--env=test``) and naming nothing of production."""
    return (
        len(argv) <= 40
        and any(_TEST_SETTINGS.match(w) for w in argv)
        and not _PROD.search(" ".join(argv[1:]))
    )


_OBJECT = re.compile(r"^(?:s3|gs)://([^/\s]{1,80})/(.{1,400})$")
_ARTIFACT_BUCKET = re.compile(r"(?i)(?:^|[-_.])(?:ci|artifacts?|build-?cache)(?:$|[-_.])")
_CHANGE_PART = re.compile(r"(?i)^(?:pr|mr|build|run|job)[-_]?\d{1,9}$|^\d{1,9}$")
_KEPT = re.compile(r"(?i)release|tag|stable|latest|prod|backup|archive|audit")


def artifact_objects(verbs: list[str]) -> bool:
    """Every bucket path the command names is one change's or build's prefix (``pr-1790/``,
    ``run-88123/``) in a bucket named for CI artifacts or a build cache, nothing released,
    kept or of production on the way."""
    urls = [m for m in (_OBJECT.match(v) for v in verbs) if m is not None]
    if not urls:
        return False
    for m in urls:
        parts = [p for p in m.group(2).split("/") if p]
        if not (
            _ARTIFACT_BUCKET.search(m.group(1))
            and parts
            and "*" not in m.group(2)
            and any(_CHANGE_PART.match(p) for p in parts)
            and not _KEPT.search(m.group(0))
            and not _PROD.search(m.group(0))
        ):
            return False
    return True


def scratch_bq_table(argv: list[str]) -> bool:
    """``bq rm [-f] -t proj:scratch_ann.tmp_x``: one table (not a dataset, not recursive) of a
    scratch, sandbox or test dataset."""
    if len(argv) > 12:
        return False
    shorts = "".join(w[1:] for w in argv[1:] if w.startswith("-") and not w.startswith("--"))
    if set(shorts) & {"r", "d"} or any(w in ("--recursive", "--dataset") for w in argv):
        return False
    names = [w for w in argv[2:] if not w.startswith("-")]
    if len(names) != 1 or ("t" not in shorts and "--table" not in argv):
        return False
    name = names[0].replace(":", ".")
    return name.count(".") >= 1 and throwaway_schema(name) and not _PROD.search(name)
