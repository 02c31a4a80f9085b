"""``@frozen``: ``@dataclass(frozen=True, slots=True)`` for less at import time.

Why: Python 3.11's ``dataclass`` writes out the source of six methods for each
class (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``,
``__delattr__``) and compiles each one, about 0.3 ms a class; the scenario
model's 49 classes alone took 16 ms, an eighth of ``workbench run``'s start-up.
Here ``dataclass`` only collects the fields and makes the slots (no method);
comparison, hash, repr and the refusal to assign are closures over each class's
field names, made without compiling anything, and ``__init__`` (which must stay
as fast as ``dataclass``'s: the loader makes thousands of instances) is
compiled when the class is first instantiated, so classes a run never
instantiates never pay for it.

Instances behave as ``dataclass(frozen=True, slots=True)``'s do: the same
constructor (positional or keyword, defaults, ``default_factory``), equality
(same class, fields compared as a tuple), hash, ``repr``,
``FrozenInstanceError`` on assignment or deletion, ``__match_args__``,
pickling and copying, and ``dataclasses.fields``, ``replace``, ``asdict`` and
``is_dataclass`` (``tests/test_frozen.py`` compares them with the standard
decorator's). What differs: ``__dataclass_params__`` describes the bare
dataclass underneath (no code reads it), and a class without a docstring gets
``Name(field, ...)`` rather than its constructor's full signature. Fields that
are keyword-only or not in ``__init__``, ``InitVar``, ``ClassVar`` and
``__post_init__`` are refused with a ``TypeError`` (no class here needs them).
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")

_FACTORY = object()  # the default of a `default_factory` field's parameter: "not given"


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def frozen(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen, slotted dataclass (see the module's docstring)."""
    undocumented = cls.__doc__ is None
    if undocumented:
        cls.__doc__ = ""  # or `dataclass` computes the constructor's signature for it
    if "__post_init__" in cls.__dict__:
        raise TypeError(f"@frozen {cls.__qualname__}: __post_init__ is not supported, use @dataclass")
    made = dataclasses.dataclass(init=False, repr=False, eq=False, slots=True)(cls)
    fields = dataclasses.fields(made)  # type: ignore[arg-type]  # a dataclass now
    _check(made, fields)
    names = tuple(f.name for f in fields)
    if undocumented:
        made.__doc__ = f"{made.__name__}({', '.join(names)})"
    key = _getter(tuple(f.name for f in fields if f.compare))
    hash_key = _getter(tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))
    shown = tuple(f.name for f in fields if f.repr)

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(hash_key(self))

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({values})"

    def __setattr__(self: Any, name: str, value: object) -> None:
        if type(self) is made or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(made, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is made or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(made, self).__delattr__(name)

    def __init__(self: Any, *args: object, **kwargs: object) -> None:
        init = _compile_init(made, fields)
        type.__setattr__(made, "__init__", init)
        init(self, *args, **kwargs)

    for method in (__eq__, __hash__, __repr__, __setattr__, __delattr__, __init__):
        method.__qualname__ = f"{made.__qualname__}.{method.__name__}"
        type.__setattr__(made, method.__name__, method)
    type.__setattr__(made, "__getstate__", _getstate)
    type.__setattr__(made, "__setstate__", _setstate)
    return made


def _check(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> None:
    """Refuse what the compiled ``__init__`` does not do, and a default before a required field
    (``dataclass`` checks that only when it writes an ``__init__``)."""
    where = f"@frozen {cls.__qualname__}"
    if len(fields) != len(cls.__dataclass_fields__):  # type: ignore[attr-defined]
        raise TypeError(f"{where}: ClassVar and InitVar fields are not supported, use @dataclass")
    seen_default = False
    for f in fields:
        if f.kw_only is True or not f.init:
            raise TypeError(f"{where}: field {f.name!r} must be a parameter of __init__")
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
        seen_default = seen_default or has_default


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The values of ``names`` as a tuple (``attrgetter`` alone gives one value for one name)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _compile_init(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> Callable[..., None]:
    """The ``__init__`` ``dataclass(frozen=True)`` would write for ``fields``."""
    scope: dict[str, Any] = {"__setattr": object.__setattr__, "__factory": _FACTORY}
    params, body = ["self"], []
    for i, f in enumerate(fields):
        if f.default is not dataclasses.MISSING:
            scope[f"__default_{i}"] = f.default
            params.append(f"{f.name}=__default_{i}")
        elif f.default_factory is not dataclasses.MISSING:
            scope[f"__make_{i}"] = f.default_factory
            params.append(f"{f.name}=__factory")
            body.append(f"  if {f.name} is __factory: {f.name} = __make_{i}()")
        else:
            params.append(f.name)
        body.append(f"  __setattr(self, {f.name!r}, {f.name})")
    source = f"def __init__({', '.join(params)}):\n" + "\n".join(body or ["  pass"]) + "\n"
    exec(source, scope)  # the source is made above from the class's own field names
    init: Callable[..., None] = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(dataclasses.fields(self), state, strict=False):
        object.__setattr__(self, f.name, value)
