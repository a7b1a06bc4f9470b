"""What compose files and Kubernetes manifests (Helm templates too) give their containers,
read by ``deploy_files``, beyond what ``change_risks`` finds already (``privileged``,
``hostNetwork``, ``hostPID``, ``hostIPC`` spelt ``true``, and a few ``hostPath`` folders,
all high) and ``source_harm`` (a miner's image, cluster control given to anyone):

- the host's ``/`` mounted (critical; read-only: high), its container runtime's socket
  (``docker.sock``, ``containerd.sock``: high, as ``change_risks`` has it for a pod and the
  shell rules for ``docker run -v``; read-only does not limit it), a system folder or file
  of the host (``/etc``, ``/root``, ``/var/run``, ``/etc/shadow``…, high);
- compose: ``network_mode: host``, ``pid: host``, ``cap_add`` of ``ALL``/``SYS_ADMIN``
  (high); a database whose image lets anyone in without a password
  (``POSTGRES_HOST_AUTH_METHOD: trust``, ``MYSQL_ALLOW_EMPTY_PASSWORD``) published on every
  interface (high);
- Kubernetes: the same host settings spelt otherwise (``yes``, ``True``) or in a flow
  mapping, ``SYS_ADMIN`` added in a block list (high); ``cluster-admin`` bound to a
  ``default`` service account, whose token every pod of its namespace mounts (high).

Pure; the commands their containers run are ``deploy_commands``'."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .change_risks import HOST_ACCESS, HOST_PATH
from .ci_yaml import Node, Tree
from .deploy_commands import service_label
from .deploy_yaml import Finding, Window, items, nodes, scalar, truthy, value
from .tools.shell_catalogue import words

__all__ = ["compose_findings", "host_mount", "kube_findings"]

_SOCKETS = frozenset({"docker.sock", "containerd.sock", "crio.sock", "podman.sock"})
_SYSTEM = words(
    """
    /etc /root /home /var /usr /boot /dev /proc /sys /run /var/run /var/lib/docker
    /var/lib/kubelet /var/lib/containerd /etc/shadow /etc/gshadow /etc/sudoers
    /etc/sudoers.d /etc/ssh /etc/kubernetes /root/.ssh /etc/cron.d /etc/systemd
    """
)
_HOST_KEYS = {
    "privileged": "runs a privileged container",
    "hostNetwork": "a pod uses the host's network",
    "hostPID": "a pod sees the host's processes",
    "hostIPC": "a pod shares the host's memory (IPC)",
}
_EMPTY_PASSWORD = re.compile(
    r"^(?:POSTGRES_HOST_AUTH_METHOD=trust|(?:MYSQL|MARIADB)_ALLOW_EMPTY(?:_ROOT)?_PASSWORD=.+)$",
    re.IGNORECASE,
)
_CAPS = frozenset({"ALL", "SYS_ADMIN", "CAP_SYS_ADMIN"})


def host_mount(source: str, *, read_only: bool) -> tuple[Severity, str, str] | None:
    """What mounting the host's ``source`` into a container gives it, if that matters."""
    if not source.startswith("/"):
        return None
    path = posixpath.normpath(source)
    path = "/" if path == "//" else path
    if path == "/":
        if read_only:
            return (
                Severity.HIGH,
                "gives a container every host file to read",
                "The host's whole file system, its keys and secrets included, is read-only "
                "inside the container.",
            )
        return (
            Severity.CRITICAL,
            "mounts the host's root into a container",
            "The container can read and change every host file: root on the host.",
        )
    if posixpath.basename(path) in _SOCKETS:
        return (
            Severity.HIGH,
            "gives a container the host's container socket",
            f"Whoever holds {path} starts a privileged container of their own, which is root "
            "on the host (read-only does not limit it).",
        )
    if path in _SYSTEM:
        return (
            Severity.HIGH,
            "mounts a system folder of the host into a container",
            f"The container reaches the host's {path}: its accounts, keys, services or devices.",
        )
    return None


_COMPOSE_HOST = {
    "network_mode": (
        "a container uses the host's network",
        "shares the host's interfaces: it reaches what listens on the host's localhost, and "
        "its ports open on every interface.",
    ),
    "pid": (
        "a container sees the host's processes",
        "can see and signal every process of the host.",
    ),
}
_ADMIN_CAPS = (
    "gives a container administrative capabilities",
    "gets SYS_ADMIN (or every capability): enough to take over the host.",
)
_PRIVILEGED = (
    "runs a privileged container",
    "runs with every capability and device of the host: root on the host.",
)


def compose_findings(w: Window) -> Iterator[Finding]:
    """What a compose file's services are given (see the module's docstring)."""
    tree = w.tree
    for node, above in nodes(tree):
        if not w.touched(node) or node.key is None:
            continue
        who = service_label(above)
        text = (scalar(tree, node) or "").strip().lower()
        rule: tuple[str, str] | None = None
        if node.key == "privileged" and truthy(text) and not _caught(tree, node):
            rule = _PRIVILEGED
        elif node.key in _COMPOSE_HOST and text == "host":
            rule = _COMPOSE_HOST[node.key]
        elif node.key == "cap_add" and _admin_caps(tree, node):
            rule = _ADMIN_CAPS
        elif node.key == "volumes":
            yield from _compose_volumes(tree, node, who)
        elif node.key == "environment" and above:
            yield from _open_database(w, node, above[-1].get("ports"), who, above[-1])
        elif node.key == "environment" and node in tree.roots:  # an edit inside one service
            ports = next((r for r in tree.roots if r.key == "ports"), None)
            yield from _open_database(w, node, ports, who, None)
        if rule is not None:
            yield Finding(Severity.HIGH, rule[0], f"{_capital(who)} {rule[1]}", node.line)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _admin_caps(tree: Tree, node: Node) -> bool:
    return bool(_CAPS.intersection(x.strip().upper() for x in items(tree, node) or []))


def _compose_volumes(tree: Tree, node: Node, who: str) -> Iterator[Finding]:
    for item in node.children[:64]:
        if item.key is not None:
            continue  # the top level's named volumes
        if item.children:  # the long syntax
            if value(tree, item, "type") != "bind":
                continue
            mount, ro = value(tree, item, "source"), truthy(value(tree, item, "read_only"))
        else:
            parts = (scalar(tree, item) or "").split(":")
            mount, ro = parts[0].strip(), len(parts) > 2 and "ro" in parts[2].split(",")
        found = host_mount(mount, read_only=ro)
        if found is not None:
            why = f"{_capital(who)} mounts `{mount}`. {found[2]}"
            yield Finding(found[0], found[1], why, item.line)


def _open_database(
    w: Window, env: Node, ports: Node | None, who: str, service: Node | None
) -> Iterator[Finding]:
    """A password-less database published on every interface of the host (``ports``: the
    service's published ports; ``service``: the service, when the edit shows it)."""
    pairs = [
        (f"{c.key}={scalar(w.tree, c) or ''}" if c.key else scalar(w.tree, c) or "", c)
        for c in env.children[:200]
    ]
    found = next(((t, c) for t, c in pairs if _EMPTY_PASSWORD.match(t.strip())), None)
    if found is None:
        return
    published = any(_everywhere(w.tree, p) for p in ports.children[:64]) if ports else False
    host = service is not None and value(w.tree, service, "network_mode") == "host"
    if published or host:
        yield Finding(
            Severity.HIGH,
            "a database open to anyone without a password",
            f"{_capital(who)} sets `{found[0].strip()}` and publishes its port on every "
            "interface of the host: anyone who reaches the host signs in to the database.",
            found[1].line,
        )


def _everywhere(tree: Tree, port: Node) -> bool:
    """A published port bound to every interface (no host address, ``0.0.0.0``, ``::``)."""
    if port.children:
        address = value(tree, port, "host_ip")
    else:
        parts = (scalar(tree, port) or "").strip().rsplit(":", 2)
        address = parts[0] if len(parts) == 3 else ""
    return address.strip("[]") in ("", "0.0.0.0", "::")


def _caught(tree: Tree, node: Node) -> bool:
    """Whether ``change_risks`` reads this host setting already (spelt ``true``)."""
    return bool(HOST_ACCESS.search(tree.texts[node.first]))


def kube_findings(w: Window) -> Iterator[Finding]:
    """What a manifest's pods are given (see the module's docstring)."""
    tree = w.tree
    read_only = _read_only_volumes(tree)
    for node, above in nodes(tree):
        if not w.touched(node) or node.key is None:
            continue
        title = _HOST_KEYS.get(node.key)
        if title and truthy(scalar(tree, node)) and not _caught(tree, node):
            line = tree.texts[node.first].strip()
            why = f"`{line}` gives the pod the host's privileges or namespaces."
            yield Finding(Severity.HIGH, title, why, node.line)
        elif node.key == "hostPath" and (path := node.get("path")) is not None:
            source = (scalar(tree, path) or "").strip()
            name = value(tree, above[-1], "name") if above else ""
            found = host_mount(source, read_only=bool(name) and name in read_only)
            caught = path.first == node.first + 1 and HOST_PATH.search(
                f"{tree.texts[node.first]}\n{tree.texts[path.first]}"
            )  # ``change_risks`` reads ``path:`` on the line after ``hostPath:`` (high)
            if found is not None and (found[0] is Severity.CRITICAL or not caught):
                why = f"A hostPath volume mounts `{source}`. {found[2]}"
                yield Finding(found[0], found[1], why, path.line)
        elif (
            node.key == "add"
            and (not above or above[-1].key == "capabilities")
            and _admin_caps(tree, node)
            and not _caught(tree, node)
        ):
            yield Finding(Severity.HIGH, _ADMIN_CAPS[0], f"A container {_ADMIN_CAPS[1]}", node.line)
    yield from _admin_binding(w)


def _read_only_volumes(tree: Tree) -> set[str]:
    """The volumes every mount of which is read-only."""
    mounts: dict[str, bool] = {}
    for node, _ in nodes(tree):
        if node.key == "volumeMounts":
            for m in node.children[:64]:
                name = value(tree, m, "name")
                mounts[name] = mounts.get(name, True) and truthy(value(tree, m, "readOnly"))
    return {n for n, ro in mounts.items() if ro and n}


def _admin_binding(w: Window) -> Iterator[Finding]:
    tree = w.tree
    roots = {r.key: r for r in tree.roots if r.key}
    kind = scalar(tree, roots["kind"]) if "kind" in roots else None
    subjects = roots.get("subjects")
    if kind not in ("ClusterRoleBinding", "RoleBinding") or subjects is None:
        return
    if value(tree, roots.get("roleRef"), "name") != "cluster-admin" or not w.touched(subjects):
        return
    for s in subjects.children[:64]:
        if value(tree, s, "kind") == "ServiceAccount" and value(tree, s, "name") == "default":
            yield Finding(
                Severity.HIGH,
                "gives the default service account cluster-admin",
                "Every pod of that namespace runs as `default` and mounts its token unless "
                "`automountServiceAccountToken: false`: any of them controls the cluster.",
                s.line,
            )
