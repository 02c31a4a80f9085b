"""Keys handled one at a time, in the order they were typed, however many arrive in one read.

Why: Textual (8.x) hands each key to the focused widget's message queue and runs
the key's non-priority bindings only when the key has bubbled back up to the
app, one queue per ancestor. Keys that arrive in one read (a paste without
bracketed paste, key repeat, ``tmux send-keys`` with several keys) are all
forwarded before the first has bubbled up, so a key the widget handles itself
(a character in a TextArea) overtakes a key handled by a binding (Backspace,
ctrl+u): eight Backspaces and ``assert:`` typed at once became ``aasser``, and
``ctrl+f :12`` typed the ``:12`` into the document because the find bar took the
focus after the keys had already gone to the editor.

The mixin holds each key (and paste) until the one before it has finished: it
follows the key with a marker message along the same path (the focused widget,
then its ancestors, then the app), and hands the next key on once the marker
reaches the app and the callbacks the key scheduled (a focus change) have run.
"""

from __future__ import annotations

import time
from collections import deque

from textual import events
from textual.app import App
from textual.message import Message

# Textual reads ESC+digit (what terminals send for alt+digit) as the character macOS types for option+digit
# (ESC 4 arrives as "¢"). The app's alt+1..6 pane keys need the alt+digit back; a pasted "¢" is a paste, not a key.
OPTION_DIGITS = {"¡": "1", "™": "2", "£": "3", "¢": "4", "∞": "5", "§": "6", "¶": "7", "•": "8", "ª": "9"}

# A key whose marker never comes back (its widget was removed while the key was on its way) stops holding
# the keys after it once this long has passed; it is a safety net, never the normal path.
STUCK_AFTER_S = 1.0


class KeyHandled(Message):
    """Follows a key up the DOM: when it reaches the app, every handler of that key has run."""


class InOrderKeys(App[int]):
    """An app that handles keys and pastes strictly one after another (see the module docstring)."""

    _held_input: deque[events.Key | events.Paste] | None = None
    _input_busy_since: float | None = None  # when the key being handled was handed on; None: none is
    _releasing: events.Key | events.Paste | None = None

    async def on_event(self, event: events.Event) -> None:
        if not isinstance(event, (events.Key, events.Paste)) or event.is_forwarded:
            await super().on_event(event)
            return
        if self._held_input is None:
            self._held_input = deque()
        if isinstance(event, events.Key) and event.character in OPTION_DIGITS:
            alt = events.Key(f"alt+{OPTION_DIGITS[event.character]}", None)
            alt.set_sender(self)
            if event is self._releasing:
                self._releasing = alt
            event = alt
        if event is self._releasing:
            self._releasing = None
        elif self._input_busy_since is not None:
            self._held_input.append(event)
            if time.monotonic() - self._input_busy_since > STUCK_AFTER_S:
                self._next_input()
            return
        self._input_busy_since = time.monotonic()
        target = self.focused or self.screen
        await super().on_event(event)
        # forwarded: the marker goes behind the key, along the same path; else the app handled it already
        if not event.is_forwarded or not target.post_message(KeyHandled()):
            self._input_done()

    def on_key_handled(self, message: KeyHandled) -> None:
        message.stop()
        self._input_done()

    def _input_done(self) -> None:
        self.call_later(self._next_input)  # after what the key scheduled (focus moves are call_later too)

    def _next_input(self) -> None:
        self._input_busy_since = None
        if self._held_input:
            event = self._held_input.popleft()
            self._releasing = event
            self._input_busy_since = time.monotonic()
            self.post_message(event)
