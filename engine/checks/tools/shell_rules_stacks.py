"""Rules about infrastructure stacks and clusters: Terraform and Pulumi destroys and applies,
Kubernetes and Helm deletes and production changes. Registered when ``shell_rules_ops`` is
imported (it reads ``PROD`` and ``SCRATCH`` from here, after ``shell_rules_sql``), so
``infrastructure`` runs where it always did: after ``database_statements``, before ``cloud``."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_catalogue import words
from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, critical, high, operands, rule
from .shell_secret_counted import counted_only
from .shell_secret_meta import metadata_only
from .shell_throwaway import terraform_throwaway

__all__ = ["PROD", "SCRATCH"]

PROD = re.compile(r"(?:^|[^a-z])prod(?:uction)?(?:[^a-z]|$)|prd(?:[^a-z]|$)", re.IGNORECASE)


_SYSTEM_NAMESPACES = frozenset(
    {"default", "kube-system", "kube-public", "kube-node-lease", "istio-system", "monitoring",
     "cert-manager", "ingress-nginx", "argocd", "flux-system"}
)  # fmt: skip
"""Namespaces the cluster itself runs in: deleting one breaks it."""
SCRATCH = re.compile(
    r"(?i)(?:^|[\s=/_-])(?:dev|development|preview|review|test|testing|staging|stage|sandbox|"
    r"tmp|temp|scratch|ephemeral|feature|pr)(?:$|[\s_-]|\d)"
)
"""A context or namespace named as a scratch one (``--context dev``, ``preview-pr-1423``): what
is deleted there is made again; any other namespace may be production's."""


def _one_pod(kinds: set[str], named: list[str], args: list[str], wide: bool) -> bool:
    """``kubectl delete pod NAME`` (one or a few named pods, no selector, no ``--all``, not
    forced past its grace period)."""
    loose = {"-l", "--selector", "--force", "--grace-period=0", "--field-selector"}
    return (
        kinds <= {"pod", "pods", "po"}
        and bool(kinds)
        and 0 < len(named) <= 3
        and not wide
        and not any(a.split("=")[0] in loose or a == "--grace-period=0" for a in args)
    )


@rule
def infrastructure(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """terraform/pulumi destroy and apply; kubectl and helm deletes and production changes."""
    name, args = cmd.name, cmd.argv[1:]
    verbs = [w for w in args if not w.startswith("-")]
    verb = verbs[0] if verbs else ""
    joined = " ".join(args)
    if name in ("terraform", "tofu", "terragrunt", "pulumi", "cdk", "cdktf", "serverless", "sls"):
        if verb in ("destroy", "remove") or (
            verb in ("apply", "up", "deploy") and "-destroy" in args
        ):
            if terraform_throwaway(
                [*cmd.argv, ctx.folder_named, ctx.cwd or ""], cmd.assigns, ctx.workspace_chosen
            ):
                return  # one pull request's preview workspace: made again by the next push
            yield critical(
                f"{name} destroy",
                cmd.text,
                "it deletes the infrastructure the state manages.",
                "Destroy only with a human's approval.",
            )
        elif verb in ("apply", "up", "deploy", "import", "taint", "force-unlock") or (
            verb == "state"
            and len(verbs) > 1
            and verbs[1] in ("rm", "push", "mv", "replace-provider")
        ):
            yield high(
                f"{name} {verb} changes infrastructure",
                cmd.text,
                "real resources are created, changed or deleted.",
                "Review the plan first.",
            )
    elif name == "kubectl":
        verbs = operands(cmd.argv, _KUBECTL_VALUED)
        verb = verbs[0] if verbs else ""
        prod = bool(PROD.search(joined))
        wide = bool(re.search(r"(?:^|\s)(?:--all|-A|--all-namespaces)(?:\s|=|$)", joined))
        kinds = set(verbs[1:2])
        named = [w for w in verbs[2:] if not w.startswith("-")]
        if (
            verb == "delete"
            and kinds & {"namespace", "namespaces", "ns"}
            and named
            and SCRATCH.search(joined) is not None
            and not (wide or prod or any(n in _SYSTEM_NAMESPACES for n in named))
        ):
            yield high(
                "kubectl delete of a namespace",
                cmd.text,
                f"everything in {', '.join(named[:3])} is deleted.",
                "Make sure nothing else lives in the namespace.",
            )
        elif verb == "delete" and _one_pod(kinds, named, args, wide):
            return  # its controller starts a new one: the everyday way to restart a pod
        elif verb == "delete":
            if (
                wide
                or prod
                or kinds
                & {
                    "namespace",
                    "namespaces",
                    "ns",
                    "node",
                    "nodes",
                    "pv",
                    "crd",
                    "crds",
                    "customresourcedefinition",
                }
            ):
                yield critical(
                    "kubectl delete in production or of everything",
                    cmd.text,
                    "it deletes resources others depend on.",
                    "Delete one named resource, outside production.",
                )
            elif not kinds & {"pod", "pods", "po", "job", "jobs"} and "-f" not in args[:1]:
                yield high(
                    "kubectl delete",
                    cmd.text,
                    "it deletes a cluster resource.",
                    "Make sure the resource is not shared.",
                )
        elif verb in (
            "apply",
            "create",
            "replace",
            "patch",
            "scale",
            "edit",
            "set",
            "drain",
            "cordon",
            "taint",
            "rollout",
            "annotate",
            "label",
        ):
            if (
                "--dry-run" in joined
                or "--dry-run=client" in joined
                or "--dry-run=server" in joined
            ):
                pass
            elif prod or verb in ("apply", "replace", "drain", "edit"):
                yield high(
                    f"kubectl {verb} changes the cluster",
                    cmd.text,
                    "the running workload changes" + (" in production." if prod else "."),
                    "Review the manifest and the target context.",
                )
        elif verb in ("exec", "cp", "port-forward", "attach", "debug") and prod:
            yield high(
                "acts inside production",
                cmd.text,
                f"kubectl {verb} reaches a production workload.",
                "Ask a human before touching production.",
            )
        elif (
            verb == "get"
            and kinds & {"secret", "secrets"}
            and re.search(r"-o\s*=?\s*(?:json|yaml|jsonpath|go-template)", joined)
            and not (metadata_only(cmd.argv) or counted_only(cmd))
        ):
            yield high(
                "reads Kubernetes secrets",
                cmd.text,
                "secret values are printed.",
                "Read only the secret's name or metadata.",
            )
    elif name == "helm" and verb in (
        "uninstall",
        "delete",
        "del",
        "un",
        "rollback",
        "install",
        "upgrade",
    ):
        if PROD.search(joined) and verb in ("uninstall", "delete", "del", "un"):
            yield critical(
                "helm uninstall in production",
                cmd.text,
                "a production release is removed.",
                "Ask a human.",
            )
        elif verb in ("uninstall", "delete", "del", "un") or PROD.search(joined):
            yield high(
                f"helm {verb}",
                cmd.text,
                "a release changes or is removed.",
                "Check the release and context.",
            )


_KUBECTL_VALUED = words(
    "-n --namespace --context --cluster --user --kubeconfig -l --selector -o --output -f "
    "--filename -c --container --server --token -s --as"
)
