"""Sessions: one replay per API key, and which scenario it plays.

The session key is the request's API key (`x-api-key`, `Authorization: Bearer`,
`api-key`, `x-goog-api-key` or Google's `?key=`), so two agents with different
keys replay independently against one server and a fresh key starts a fresh
replay; clients that send no key share one session. An `x-scenario-name` header
picks the scenario by name (and keys its own session); otherwise the first
request's prompt is compared with each scenario's effective initial prompt
(`difflib` similarity of their first :data:`SIMILARITY_CHARS` characters, in a
worker thread so a huge prompt never stalls other clients; a Claudeless rule
set scores by whether one of its specific rules matches), and a single
scenario is always chosen without comparing anything. The
`x-scenario-prompt` header, as in the original mock, replaces the prompt used.
"""

from __future__ import annotations

import asyncio
import difflib
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from workbench.scenario import model as m
from workbench.scenario.matching import matches

from .conversation import ChatRequest
from .ids import IdMaker
from .responders import Responder

DEFAULT_KEY = "default-session"


class SelectionError(Exception):
    """No scenario can serve the request (an unknown `x-scenario-name`)."""


SIMILARITY_CHARS = 4000


def session_key(headers: Mapping[str, str], query: Mapping[str, str] | None = None) -> str:
    key = headers.get("x-api-key") or headers.get("api-key") or headers.get("x-goog-api-key")
    if not key and query:
        key = query.get("key")
    if not key:
        auth = headers.get("authorization", "")
        key = auth[7:].strip() if auth.lower().startswith("bearer ") else auth.strip()
    return key or DEFAULT_KEY


SHOWN_KEY_CHARS = 12


def shown_key(key: str) -> str:
    """How a session's key is named in logs, failures and file names: a key the workbench made for a run
    (``wb-…``) or a short one (``any-key``) as it is; any other (the user's real key, sent by an agent
    whose base URL alone points here) as ``key-`` and a hash, never the key itself."""
    if key.startswith("wb-") or len(key) <= SHOWN_KEY_CHARS:
        return key
    return "key-" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def prompt_score(scenario: m.Scenario, prompt: str) -> float:
    """How well a scenario fits the conversation's first prompt (0..1)."""
    if scenario.rules is not None:
        specific = [r.pattern for r in scenario.rules.rules if r.pattern.type != "any"]
        return 1.0 if any(matches(p, prompt) for p in specific) else 0.0
    expected = scenario.effective_initial_prompt
    if not expected or not prompt:
        return 0.0
    if expected.strip() == prompt.strip():
        return 1.0
    a, b = expected.strip()[:SIMILARITY_CHARS], prompt.strip()[:SIMILARITY_CHARS]
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def choose(scenarios: Sequence[m.Scenario], name: str | None, prompt: str) -> m.Scenario:
    if name:
        for scenario in scenarios:
            if scenario.name == name:
                return scenario
        for scenario in scenarios:
            if scenario.name.lower() == name.lower():
                return scenario
        known = ", ".join(s.name for s in scenarios)
        raise SelectionError(f"no scenario named `{name}` (x-scenario-name); known: {known}")
    best = scenarios[0]
    if len(scenarios) == 1:
        return best
    best_score = prompt_score(best, prompt)
    for scenario in scenarios[1:]:
        score = prompt_score(scenario, prompt)
        if score > best_score:
            best, best_score = scenario, score
    return best


@dataclass
class Session:
    key: str  # as logs and files name it (:func:`shown_key`); the ids are made from the key itself
    scenario: m.Scenario
    responder: Responder
    ids: IdMaker
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    requests: int = 0
    served: int = -1  # the last schedule step whose reply went out in full
    saw_tools: bool = False  # a request of this session offered tools


class SessionStore:
    def __init__(
        self, scenarios: Sequence[m.Scenario], make_responder: Callable[[m.Scenario, str], Responder]
    ) -> None:
        if not scenarios:
            raise ValueError("the mock LLM server needs at least one scenario")
        self.scenarios = list(scenarios)
        self._make = make_responder
        self.sessions: dict[tuple[str, str], Session] = {}

    async def get(
        self, headers: Mapping[str, str], chat: ChatRequest, query: Mapping[str, str] | None = None
    ) -> Session:
        key = session_key(headers, query)
        name = headers.get("x-scenario-name", "").strip()
        session = self.sessions.get((key, name))
        if session is None:
            prompt = headers.get("x-scenario-prompt") or chat.first_prompt()
            if len(self.scenarios) > 1 and not name:
                scenario = await asyncio.to_thread(choose, self.scenarios, None, prompt)
            else:
                scenario = choose(self.scenarios, name or None, prompt)
            session = self.sessions.get((key, name))  # made while we compared?
            if session is not None:
                return session
            label = key if not name else f"{key}/{name}"
            shown = shown_key(key) if not name else f"{shown_key(key)}/{name}"
            session = Session(shown, scenario, self._make(scenario, shown), IdMaker(label))
            self.sessions[(key, name)] = session
        return session
