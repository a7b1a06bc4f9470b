"""Local stand-ins for the services HUMANGR talks to: a real ``nats-server`` on a free port
(``nats_server``) and a server that speaks the Anthropic Messages API (``messages_api``).

``humangr bench`` measures the engine against them, and the testing kit offers them to tests
(``humangr.testing.natsserver``, ``humangr.testing.fake_anthropic``). They import no test kit.
"""

__all__: list[str] = []
