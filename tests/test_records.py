"""``@frozen`` and ``@record`` make the classes ``@dataclass(frozen=True, slots=True)`` and ``@dataclass``
make: each behaviour is compared with the standard decorator's on twin classes."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from workbench.records import frozen, record


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


PAIRS = {
    "frozen": (define(dataclass(frozen=True, slots=True)), define(frozen)),
    "record": (define(dataclass), define(record)),
}
EACH = pytest.mark.parametrize("kind", list(PAIRS))


def same_for_both(kind: str, observe: Callable[[tuple[type, type, type]], object]) -> None:
    """What ``observe`` sees of the standard decorator's classes, it sees of ours."""
    standard, ours = PAIRS[kind]
    assert observe(standard) == observe(ours)


def outcome(call: Callable[[], object]) -> object:
    """What ``call`` returns, or the type and message of what it raises (names of the methods aside)."""
    try:
        return call()
    except Exception as exc:  # the exception is the outcome compared
        return type(exc).__name__, str(exc).replace("Item.__init__()", "__init__()")


@EACH
def test_construction_positional_keyword_defaults_and_factories_are_the_same(kind: str) -> None:
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

    same_for_both(kind, made)


@EACH
def test_equality_and_hash_are_the_same(kind: str) -> None:
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
            outcome(lambda: hash(one(3)) == hash((3,))),
            outcome(lambda: hash(base(2)) == hash((2,))),
            one(float("nan")) == one(float("nan")),
            item.__hash__ is None,
        ]

    same_for_both(kind, compared)


@EACH
def test_repr_is_the_same_recursion_included(kind: str) -> None:
    def shown(classes: tuple[type, type, type]) -> list[str]:
        base, item, one = classes
        looped: list[object] = []
        holder = one(looped)
        looped.append(holder)
        return [repr(base(1)), repr(item(1, "a", (2,), {"k": 2})), repr(holder), repr(one("x'y"))]

    same_for_both(kind, shown)


@EACH
def test_assignment_and_deletion_are_the_same(kind: str) -> None:
    def changed(classes: tuple[type, type, type]) -> list[object]:
        _base, item, _one = classes
        a = item(1, "a")
        return [
            outcome(lambda: setattr(a, "name", "b")),
            a.name,
            outcome(lambda: delattr(a, "pos")),
            outcome(lambda: a.pos),
            outcome(lambda: sorted(a.__dict__)),
        ]

    same_for_both(kind, changed)


def test_a_frozen_class_refuses_a_name_that_is_no_field() -> None:
    # Python 3.11's own raises TypeError from `super()` there (its `__setattr__` names the class from
    # before the slots were added); 3.12 raises FrozenInstanceError, as here
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'other'"):
        PAIRS["frozen"][1][1](1, "a").other = 1


@EACH
def test_dataclass_functions_copying_and_matching_are_the_same(kind: str) -> None:
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
            getattr(item, "__slots__", None),
        ]

    same_for_both(kind, used)


@dataclass(frozen=True, slots=True)
class PickledStandard:
    pos: int
    items: tuple[int, ...] = ()


@frozen
class PickledFrozen:
    pos: int
    items: tuple[int, ...] = ()


@record
class PickledRecord:
    pos: int
    items: tuple[int, ...] = ()


def test_pickling_is_the_same() -> None:
    for cls in (PickledStandard, PickledFrozen, PickledRecord):
        a = cls(1, (2, 3))
        data = pickle.loads(pickle.dumps(a))
        assert data == a
        assert repr(data) == repr(a) == f"{cls.__name__}(pos=1, items=(2, 3))"


def test_post_init_runs_after_the_fields_are_set() -> None:
    seen: list[tuple[int, str]] = []

    @record
    class Counted:
        count: int
        label: str = "x"

        def __post_init__(self) -> None:
            seen.append((self.count, self.label))

    Counted(2)
    Counted(3, "y")
    assert seen == [(2, "x"), (3, "y")]


def test_methods_the_class_defines_are_kept() -> None:
    @record
    class Own:
        value: int

        def __repr__(self) -> str:
            return "mine"

        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 7

    assert repr(Own(1)) == "mine" and Own(1) == Own(2) and hash(Own(1)) == 7
    with pytest.raises(TypeError, match="__setattr__"):

        @frozen
        class Refusing:
            value: int

            def __setattr__(self, name: str, value: object) -> None:
                pass


def test_what_the_decorators_do_not_support_is_refused_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @frozen
        class Late:
            a: int = 0
            b: int  # type: ignore[misc]

    with pytest.raises(TypeError, match="field 'b', which is not a positional parameter"):

        @frozen
        class KeywordOnly:
            a: int
            b: int = field(default=0, kw_only=True)

    with pytest.raises(TypeError, match="field 'b', which is not a positional parameter"):

        @record
        class NotInInit:
            a: int
            b: int = field(default=0, init=False)


def test_standard_dataclasses_and_ours_derive_from_each_other_as_standard_ones_do() -> None:
    def derived(base_of: Callable[[type], type], frozen_of: Callable[[type], type]) -> list[object]:
        """Classes made by each decorator deriving from frozen and mutable bases made by the other."""

        @frozen_of
        class FrozenBase:
            pos: int

        @base_of
        class MutableBase:
            pos: int

        def derive(decorate: Callable[[type], type], base: type) -> object:
            def make() -> object:
                @decorate
                class Derived(base):  # type: ignore[valid-type, misc]
                    text: str = ""

                return repr(Derived(1, "a")), Derived.__dataclass_params__.frozen  # type: ignore[attr-defined]

            return outcome(make)

        return [
            derive(dataclass(frozen=True, slots=True), FrozenBase),
            derive(dataclass, FrozenBase),
            derive(dataclass(frozen=True), MutableBase),
            derive(dataclass, MutableBase),
        ]

    standard = derived(dataclass, dataclass(frozen=True, slots=True))
    assert derived(record, frozen) == standard
    shown, is_frozen = standard[0]  # type: ignore[misc]  # the README's extension event: a frozen event
    assert shown.endswith(".Derived(pos=1, text='a')") and is_frozen
    assert standard[1] == ("TypeError", "cannot inherit non-frozen dataclass from a frozen one")

    def ours_on_standard() -> list[object]:
        return [
            outcome(
                lambda: frozen(
                    type("A", (PickledStandard,), {"__annotations__": {"text": "str"}, "text": ""})
                )
            ),
            outcome(
                lambda: record(
                    type("B", (PickledStandard,), {"__annotations__": {"text": "str"}, "text": ""})
                )
            ),
        ]

    made, refused = ours_on_standard()
    assert repr(made(1, (), "a")) == "A(pos=1, items=(), text='a')"  # type: ignore[operator]
    assert refused == ("TypeError", "cannot inherit non-frozen dataclass from a frozen one")
    with pytest.raises(TypeError, match="cannot inherit frozen dataclass from a non-frozen one"):
        frozen(type("C", (PickledRecord,), {"__annotations__": {"text": "str"}, "text": ""}))


def test_the_dataclass_parameters_say_what_the_class_is() -> None:
    for kind, (standard, ours) in PAIRS.items():
        for theirs, mine in zip(standard, ours, strict=True):
            s, o = theirs.__dataclass_params__, mine.__dataclass_params__  # type: ignore[attr-defined]
            assert (s.init, s.repr, s.eq, s.order, s.unsafe_hash, s.frozen) == (
                o.init,
                o.repr,
                o.eq,
                o.order,
                o.unsafe_hash,
                o.frozen,
            ), kind


def test_a_class_without_a_docstring_is_named_with_its_fields() -> None:
    _standard, ours = PAIRS["frozen"]
    assert ours[2].__doc__ == "One(value)"
    assert ours[0].__doc__ == "A base."
    assert ours[1](1, "a").__init__.__qualname__.endswith("Item.__init__")
