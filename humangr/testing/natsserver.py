"""The kit's nats-server launcher: ``NatsServer`` (``humangr.standins.nats_server``)."""

from humangr.standins.nats_server import NatsServer, NatsServerError, find_nats_server, free_port

__all__ = ["NatsServer", "NatsServerError", "find_nats_server", "free_port"]
