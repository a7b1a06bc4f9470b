"""Actors and the system that supervises them."""

from .base import Actor, ActorContext, Route
from .system import ActorStats, ActorSystem, SupervisionPolicy

__all__ = ["Actor", "ActorContext", "ActorStats", "ActorSystem", "Route", "SupervisionPolicy"]
