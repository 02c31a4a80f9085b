"""Conditional configuration: Agent Harbor `rules` blocks and their symbols.

A `rules:` key may stand at any level of a scenario::

    rules:
      - when: '$fast && $n >= 3'
        config: {timeline: [...]}
      - default: true
        config: {...}

The configs of every matching rule are merged (later ones win); `default` applies
only when nothing matched. In a mapping, the result is merged in place of the
`rules` key; in a sequence, a `- rules: [...]` item is replaced by the chosen
config (a list is spliced in, a mapping becomes one item) - an extension over the
Rust loader, which cannot inject timeline events that way although its spec shows it.

Symbols come from ``--define K=V`` (wins) and ``AH_SCENARIO_DEFINES=K=V,F=true``;
values are typed as bool, int or string. A condition naming an undefined symbol
does not match. Conditions: ``$sym``, ``!$sym``, ``$sym OP literal`` with OP one of
``== != >= <= > <``, combined with ``&&`` and ``||`` (``&&`` binds tighter).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .diagnostics import Pos, ScenarioError
from .source import PList, PMap

Symbol = bool | int | str
Symbols = Mapping[str, Symbol]

DEFINE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")
"""A symbol's name, in `--define KEY=VALUE` and `AH_SCENARIO_DEFINES`."""
_COMPARISON = re.compile(
    r"""\s*(!?)\s*\$([A-Za-z_][A-Za-z0-9_.-]*)\s*(?:(==|!=|>=|<=|>|<)\s*("[^"]*"|'[^']*'|[^\s]+))?\s*\Z"""
)


def typed(value: str) -> Symbol:
    low = value.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(value.strip())
    except ValueError:
        return value


def parse_defines(defines: Iterable[str], origin: str) -> dict[str, Symbol]:
    """Parse ``K=V`` items; ``origin`` names where they came from, for the error text."""
    result: dict[str, Symbol] = {}
    for item in defines:
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not DEFINE_KEY.match(key):
            raise ScenarioError.at(
                Pos(origin),
                f"invalid define `{item}`: expected KEY=VALUE with KEY made of letters, digits, _ . -",
            )
        result[key] = typed(value)
    return result


def symbols_from(cli_defines: Iterable[str], env: Mapping[str, str]) -> dict[str, Symbol]:
    """`AH_SCENARIO_DEFINES` first, then `--define` on top (the command line wins)."""
    symbols = parse_defines(env.get("AH_SCENARIO_DEFINES", "").split(","), "AH_SCENARIO_DEFINES")
    symbols.update(parse_defines(cli_defines, "--define"))
    return symbols


def _literal(text: str) -> Symbol:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return typed(text)


def _compare(left: Symbol, op: str, right: Symbol) -> bool:
    if op == "==":
        return left == right
    if op == "!=":
        return left != right
    if isinstance(left, bool) or isinstance(right, bool):
        return False
    if isinstance(left, int) and isinstance(right, int):
        return {">=": left >= right, "<=": left <= right, ">": left > right, "<": left < right}[op]
    ls, rs = str(left), str(right)
    return {">=": ls >= rs, "<=": ls <= rs, ">": ls > rs, "<": ls < rs}[op]


def evaluate(condition: str, symbols: Symbols, pos: Pos) -> bool:
    """Evaluate a `when:` condition; a syntax error is a diagnostic at ``pos``."""
    if not isinstance(condition, str) or not condition.strip():
        raise ScenarioError.at(pos, "`when` must be a condition string such as '$fast' or '$n >= 3'")
    for alternative in condition.split("||"):
        if all(_atom(part, symbols, pos, condition) for part in alternative.split("&&")):
            return True
    return False


def _atom(text: str, symbols: Symbols, pos: Pos, whole: str) -> bool:
    m = _COMPARISON.match(text)
    if not m:
        raise ScenarioError.at(
            pos,
            f"invalid condition `{whole}`: expected `$sym`, `!$sym` or `$sym OP value` "
            "(OP one of == != >= <= > <), joined by && or ||",
        )
    negate, name, op, literal = m.groups()
    if name not in symbols:
        return False
    value = symbols[name]
    result = bool(value) if op is None else _compare(value, op, _literal(literal))
    return not result if negate else result


def _choose(rules: Any, pos: Pos, symbols: Symbols) -> list[tuple[Any, Pos]]:
    if not isinstance(rules, PList):
        raise ScenarioError.at(pos, "`rules` must be a list of {when, config} or {default: true, config}")
    matched: list[tuple[Any, Pos]] = []
    default: tuple[Any, Pos] | None = None
    for rule, rule_pos in rules.items_with_pos():
        if not isinstance(rule, PMap) or "config" not in rule:
            raise ScenarioError.at(rule_pos, "each rule needs `config` and either `when` or `default: true`")
        extra = set(rule) - {"when", "config", "default"}
        if extra:
            raise ScenarioError.at(
                rule.at_key(sorted(extra)[0]),
                f"unknown rule key `{sorted(extra)[0]}`; allowed: when, config, default",
            )
        config = (rule["config"], rule.at_value("config"))
        if rule.get("default") is True:
            default = config
        elif "when" in rule:
            if evaluate(rule["when"], symbols, rule.at_value("when")):
                matched.append(config)
        else:
            raise ScenarioError.at(rule_pos, "a rule needs `when: <condition>` or `default: true`")
    if not matched and default is not None:
        matched.append(default)
    return matched


def resolve(value: Any, symbols: Symbols) -> Any:
    """Return ``value`` with every `rules` block replaced by the configs it selects."""
    if isinstance(value, PMap):
        out = PMap(value.pos)
        for key, item in value.items():
            if key == "rules" and isinstance(item, PList) and _is_rule_list(item):
                for config, cpos in _choose(item, value.at_value(key), symbols):
                    config = resolve(config, symbols)
                    if not isinstance(config, PMap):
                        raise ScenarioError.at(
                            cpos, "a rule's `config` must be a mapping here (it is merged into its parent)"
                        )
                    _merge(out, config)
                continue
            out[key] = resolve(item, symbols)
            out.key_pos[key] = value.at_key(key)
            out.value_pos[key] = value.at_value(key)
        return out
    if isinstance(value, PList):
        seq = PList(value.pos)
        for item, ipos in value.items_with_pos():
            if isinstance(item, PMap) and set(item) == {"rules"} and isinstance(item["rules"], PList):
                for config, cpos in _choose(item["rules"], item.at_value("rules"), symbols):
                    config = resolve(config, symbols)
                    if isinstance(config, PList):
                        seq.extend(config)
                        seq.item_pos.extend(config.item_pos)
                    else:
                        seq.append(config)
                        seq.item_pos.append(cpos)
                continue
            seq.append(resolve(item, symbols))
            seq.item_pos.append(ipos)
        return seq
    return value


def _is_rule_list(items: PList) -> bool:
    """Agent Harbor `rules` hold {when|default: true, config}; anything else is left alone (such as
    `onScreen.rules`, whose `default` names a kind of question)."""
    return all(
        isinstance(r, PMap) and ("config" in r or "when" in r or isinstance(r.get("default"), bool))
        for r in items
    )


def _merge(target: PMap, source: PMap) -> None:
    for key, item in source.items():
        existing = target.get(key)
        if isinstance(existing, PMap) and isinstance(item, PMap):
            merged = PMap(existing.pos)
            _merge(merged, existing)
            _merge(merged, item)
            item = merged
        target[key] = item
        target.key_pos[key] = source.at_key(key)
        target.value_pos[key] = source.at_value(key)
