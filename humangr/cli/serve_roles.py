"""The roles ``humangr serve`` runs (``--role``): the review's, and the pipeline's, whose actors
come from a module of this build that provides a ``serve_actors`` hook."""

from __future__ import annotations

import importlib
import importlib.util
import logging
from collections.abc import Callable, Mapping, Sequence

from humangr.engine.actor import Actor
from humangr.engine.errors import ConfigError

__all__ = ["PIPELINE_HOOK", "PIPELINE_ROLES", "ROLES", "pipeline_factory", "resolve_roles"]

log = logging.getLogger("humangr.serve")
ROLES = ("supervisor", "layers", "agents", "monitor", "all")
PIPELINE_ROLES = {
    "agents": "humangr.actors.pipeline.agent",
    "monitor": "humangr.actors.pipeline.supervisor",
}
"""Roles served by the pipeline's actors, and the module that must provide them."""
PIPELINE_HOOK = "serve_actors"
"""``serve_actors(*, llm, root, state) -> Sequence[Actor]`` in a pipeline role's module."""


def pipeline_factory(role: str, module_name: str) -> Callable[..., Sequence[Actor]]:
    """The ``serve_actors`` hook of ``module_name``, or a ``ConfigError`` saying why ``role``
    cannot be served by this build."""
    try:
        found = importlib.util.find_spec(module_name) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        raise ConfigError(
            f"role {role!r} is not available yet: this build has no {module_name} module "
            "(the agent pipeline); serve supervisor or layers"
        )
    module = importlib.import_module(module_name)
    hook = getattr(module, PIPELINE_HOOK, None)
    if not callable(hook):
        raise ConfigError(
            f"role {role!r} is not available yet: {module_name} has no {PIPELINE_HOOK}() "
            "for humangr serve"
        )
    factory: Callable[..., Sequence[Actor]] = hook
    return factory


def resolve_roles(
    role: str, modules: Mapping[str, str] = PIPELINE_ROLES
) -> tuple[tuple[str, ...], dict[str, Callable[..., Sequence[Actor]]]]:
    """The roles ``--role`` stands for, and the factories of its pipeline roles.

    ``all`` is the review (supervisor and layers) plus every pipeline role this build
    provides (one that cannot be configured, e.g. agents without an LLM, is left out with a
    warning); naming a pipeline role it does not provide is a ``ConfigError``.
    """
    if role not in ROLES:
        raise ConfigError(f"unknown role {role!r}; one of {', '.join(ROLES)}")
    if role != "all":
        factories = {role: pipeline_factory(role, modules[role])} if role in modules else {}
        return (role,), factories
    factories = {}
    for name, module_name in modules.items():
        try:
            factories[name] = pipeline_factory(name, module_name)
        except ConfigError as exc:
            log.info("--role all: %s", exc)
    return ("supervisor", "layers", *factories), factories
