"""A drop-in ``claude`` for programs that drive Claude Code: print mode played from Claudeless rules.

Orchestrators, editors and CI bots run ``claude -p PROMPT --output-format
stream-json`` and read what comes back. This package answers such a call from a
Claudeless rules file instead of a model: the same flags, the same output
formats (Claude Code 2.1.12's ``system/init``, ``assistant``/``user`` events with
tool use and results, the ``result`` event with usage and cost), the same error
texts and exit codes, and the same session files under the config folder so
``--resume`` and ``--continue`` work across calls.

One module per job: :mod:`.flags` (the command line), :mod:`.rules_cache` (the
rules compiled once, read back without the loader), :mod:`.permissions`,
:mod:`.tools` (``tool_execution``), :mod:`.conversation` (one prompt to model
turns), :mod:`.events` (Claude Code's messages), :mod:`.output` (text, json,
stream-json), :mod:`.sessions` (the JSONL transcript, index and todos),
:mod:`.main` (the print-mode run), :mod:`.stream_input` (prompts and control
requests as JSON lines, as the Claude Agent SDKs send them), :mod:`.ids`,
:mod:`.command` (what ``workbench mock-agent`` adds) and :mod:`.shim`
(``--install-shim``).

The shim launcher imports only the standard library and the light modules here;
the scenario loader and the real tools are imported only when needed (a rules
file not compiled yet, a tool run live).
"""
