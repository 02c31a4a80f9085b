"""Handlers of control events that extensions add: the third piece of a new control event.

A control event is its model class, its spec line (``workbench.scenario.events.register``)
and its handler here: ``register_handler(MyEvent, handler)``, where the handler is
``async (ctx, step) -> checks`` and sees the run through its
:class:`~workbench.engine.drivers.base.RunContext` (the screen, the workspace,
``write``, ``fail``, ``settle``), as a driver does. The runner's own control
events (screenshots, asserts, user commands...) are played by the runner itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from workbench.engine.drivers.base import Checks, RunContext
from workbench.scenario import model as m
from workbench.timeline import Step

Handler = Callable[[RunContext, Step], Awaitable[Checks]]

HANDLERS: dict[type[m.Event], Handler] = {}


def register_handler(model: type[m.Event], handler: Handler) -> Handler:
    HANDLERS[model] = handler
    return handler


def handler_of(event: m.Event) -> Handler | None:
    return HANDLERS.get(type(event))


__all__ = ["HANDLERS", "Handler", "handler_of", "register_handler"]
