"""``@frozen`` makes the classes ``@dataclass(frozen=True, slots=True)`` makes: each behaviour is
compared with the standard decorator's on twin classes."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from workbench.frozen import frozen


def empty() -> dict[str, int]:
    return {}


def define(decorate: Callable[[type], type]) -> tuple[type, type, type]:
    """A base, a subclass with defaults and a factory, and a class of one field, made by ``decorate``."""

    @decorate
    class Base:
        """A base."""

        pos: int

    @decorate
    class Item(Base):  # type: ignore[valid-type, misc]
        name: str
        items: tuple[int, ...] = ()
        extra: dict[str, int] = field(default_factory=empty)
        hidden: str = field(default="h", repr=False)
        uncompared: int = field(default=0, compare=False)

    @decorate
    class One:
        value: Any

    return Base, Item, One


STANDARD = define(dataclass(frozen=True, slots=True))
OURS = define(frozen)


def both() -> list[tuple[type, type, type]]:
    return [STANDARD, OURS]


def outcome(call: Callable[[], object]) -> object:
    """What ``call`` returns, or the type and message of what it raises (names of the methods aside)."""
    try:
        return call()
    except Exception as exc:  # the exception is the outcome compared
        return type(exc).__name__, str(exc).replace("Item.__init__()", "__init__()")


def test_construction_positional_keyword_defaults_and_factories_are_the_same() -> None:
    def made(classes: tuple[type, type, type]) -> list[object]:
        _base, item, one = classes
        calls: list[Callable[[], object]] = [
            lambda: repr(item(1, "a")),
            lambda: repr(item(pos=1, name="a", items=(2,), extra={"k": 1}, hidden="x", uncompared=3)),
            lambda: repr(item(1, "a", (1, 2), {"k": 2}, "x", 4)),
            lambda: item(1, "a").extra == {} and item(1, "a").extra is not item(1, "a").extra,
            lambda: repr(one(None)),
            lambda: item(1),
            lambda: item(1, "a", name="b"),
            lambda: item(1, "a", nope=2),
            lambda: item(1, "a", (), {}, "", 0, 9),
        ]
        return [outcome(c) for c in calls]

    assert made(STANDARD) == made(OURS)


def test_equality_and_hash_are_the_same() -> None:
    def compared(classes: tuple[type, type, type]) -> list[object]:
        base, item, one = classes
        a, b, c = item(1, "a"), item(1, "a", uncompared=5), item(1, "b")
        return [
            a == b,
            a != b,
            a == c,
            outcome(lambda: hash(a)),
            base(1) == item(1, "a"),
            a == (1, "a"),
            a.__eq__((1, "a")),
            hash(one(3)) == hash((3,)),
            hash(one((1, "a"))) == hash(one((1, "a"))),
            hash(base(2)) == hash((2,)),
            one(float("nan")) == one(float("nan")),
        ]

    assert compared(STANDARD) == compared(OURS)


def test_repr_is_the_same_recursion_included() -> None:
    def shown(classes: tuple[type, type, type]) -> list[str]:
        base, item, one = classes
        looped: list[object] = []
        holder = one(looped)
        looped.append(holder)
        return [repr(base(1)), repr(item(1, "a", (2,), {"k": 1})), repr(holder), repr(one("x'y"))]

    assert shown(STANDARD) == shown(OURS)


def test_assignment_and_deletion_are_refused_the_same_way() -> None:
    def refused(classes: tuple[type, type, type]) -> list[object]:
        _base, item, _one = classes
        a = item(1, "a")
        return [
            outcome(lambda: setattr(a, "name", "b")),
            outcome(lambda: delattr(a, "pos")),
            outcome(lambda: a.__dict__),
            a.name,
        ]

    assert refused(STANDARD) == refused(OURS)
    # a name that is no field: Python 3.11's own raises TypeError from `super()` (its `__setattr__` names
    # the class from before the slots were added; 3.12 raises FrozenInstanceError, as here)
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'other'"):
        OURS[1](1, "a").other = 1


def test_dataclass_functions_pickling_copying_and_matching_are_the_same() -> None:
    def used(classes: tuple[type, type, type]) -> list[object]:
        _base, item, _one = classes
        a = item(1, "a", (2,), {"k": 1})
        match a:
            case item(1, name):  # type: ignore[misc]
                matched = name
            case _:
                matched = None
        return [
            dataclasses.is_dataclass(a),
            [(f.name, f.default, f.repr, f.compare) for f in dataclasses.fields(a)],
            dataclasses.asdict(a),
            dataclasses.astuple(a),
            repr(dataclasses.replace(a, name="b")),
            outcome(lambda: dataclasses.replace(a, nope=1)),
            copy.copy(a) == a,
            copy.deepcopy(a) == a,
            item.__match_args__,
            matched,
            item.__slots__,
        ]

    assert used(STANDARD) == used(OURS)


@dataclass(frozen=True, slots=True)
class PickledStandard:
    pos: int
    items: tuple[int, ...] = ()


@frozen
class PickledOurs:
    pos: int
    items: tuple[int, ...] = ()


def test_pickling_is_the_same() -> None:
    for cls in (PickledStandard, PickledOurs):
        a = cls(1, (2, 3))
        data = pickle.dumps(a)
        assert pickle.loads(data) == a
        assert repr(pickle.loads(data)) == repr(a) == f"{cls.__name__}(pos=1, items=(2, 3))"
    assert a.__getstate__() == [1, (2, 3)]  # type: ignore[attr-defined]


def test_what_frozen_does_not_support_is_refused_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @frozen
        class Late:
            a: int = 0
            b: int  # type: ignore[misc]

    with pytest.raises(TypeError, match="__post_init__"):

        @frozen
        class Post:
            a: int

            def __post_init__(self) -> None:
                pass

    with pytest.raises(TypeError, match="'b' must be a parameter of __init__"):

        @frozen
        class KeywordOnly:
            a: int
            b: int = field(default=0, kw_only=True)

    with pytest.raises(TypeError, match="'b' must be a parameter of __init__"):

        @frozen
        class NotInInit:
            a: int
            b: int = field(default=0, init=False)


def test_a_class_without_a_docstring_is_named_with_its_fields() -> None:
    assert OURS[2].__doc__ == "One(value)"
    assert OURS[0].__doc__ == "A base."
    assert OURS[1].__init__.__qualname__.endswith("Item.__init__")
