"""Dataclasses that cost less to define: ``@frozen`` is ``@dataclass(frozen=True, slots=True)``,
``@record`` is ``@dataclass``.

Why: Python 3.11's ``dataclass`` writes out the source of every method it adds
(``__init__``, ``__repr__``, ``__eq__``, and ``__hash__``, ``__setattr__`` and
``__delattr__`` when frozen) and compiles each one: about 0.3 ms a class. The
scenario model's 49 classes alone took 16 ms, an eighth of ``workbench run``'s
start-up, and the engine's records most of another 10. Here ``dataclass`` only
collects the fields (and makes the slots); comparison, hash, repr and the
refusal to assign are closures over each class's field names, made without
compiling anything, and ``__init__`` (which must stay as fast as
``dataclass``'s: the loader makes thousands of instances) is compiled when the
class is first instantiated, so a class a run never instantiates never pays.

Instances behave as the standard decorator's do: the same constructor
(positional or keyword, defaults, ``default_factory``, ``__post_init__``),
equality (same class, fields compared as a tuple), hash (frozen) or none
(``@record``), ``repr``, ``FrozenInstanceError`` on assignment or deletion,
``__match_args__``, pickling and copying, and ``dataclasses.fields``,
``replace``, ``asdict`` and ``is_dataclass`` (``tests/test_records.py``
compares them with the standard decorator's). A method the class defines
itself is kept, as ``dataclass`` keeps it, and ``__dataclass_params__`` says
what the class is (frozen or not: a standard dataclass may derive from one of
these, and the reverse, as between standard ones). What differs: a class
without a docstring gets ``Name(field, ...)`` rather than its constructor's
signature,
and a frozen class refuses to assign any name, where 3.11's raises a
``TypeError`` from ``super()`` for a name that is no field (3.12 refuses it as
here). Keyword-only fields, fields left out of ``__init__``, ``InitVar`` and
``ClassVar`` are refused with a ``TypeError`` (nothing here needs them: use
``dataclass`` for those).
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
    """``@dataclass(frozen=True, slots=True)``, defined for less (see the module's docstring)."""
    for name in ("__setattr__", "__delattr__"):
        if name in cls.__dict__:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    return _define(cls, immutable=True)


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: type[T]) -> type[T]:
    """``@dataclass``, defined for less (see the module's docstring)."""
    return _define(cls, immutable=False)


def _define(cls: type[T], *, immutable: bool) -> type[T]:
    own = set(cls.__dict__)
    explicit_hash = "__hash__" in own and not (cls.__dict__["__hash__"] is None and "__eq__" in own)
    undocumented = cls.__doc__ is None
    if undocumented:
        cls.__doc__ = "-"  # or `dataclass` works out the constructor's signature for it (any true value)
    # `dataclass(frozen=True)` would compile a __setattr__ and a __delattr__, and refuses a frozen base to a
    # class it does not freeze: the bases are marked not frozen while it looks, and this class frozen after
    bases = _params_of_bases(cls)
    if immutable and bases and not any(params.frozen for params in bases):
        raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
    frozen_bases = [params for params in bases if params.frozen] if immutable else []
    for params in frozen_bases:
        params.frozen = False
    try:
        made = dataclasses.dataclass(init=False, repr=False, eq=False, slots=immutable)(cls)
    finally:
        for params in frozen_bases:
            params.frozen = True
    params = made.__dataclass_params__  # type: ignore[attr-defined]  # what the class is, as dataclass's says
    params.init = params.repr = params.eq = True
    params.frozen = immutable
    fields = dataclasses.fields(made)  # type: ignore[arg-type]  # a dataclass now
    _check(made, fields)
    names = tuple(f.name for f in fields)
    if undocumented:
        made.__doc__ = f"{made.__name__}({', '.join(names)})"
    methods: list[Callable[..., Any]] = []
    if "__init__" not in own:
        methods.append(_lazy_init(made, fields, immutable=immutable))
    if "__repr__" not in own:
        methods.append(_repr(tuple(f.name for f in fields if f.repr)))
    if "__eq__" not in own:
        methods.append(_eq(_getter(tuple(f.name for f in fields if f.compare))))
    if immutable:
        methods += _refusals(made, names)
        if not explicit_hash:
            methods.append(
                _hash(_getter(tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))))
            )
        # pickling and copying: slots without a __dict__, restored past the refusals
        type.__setattr__(made, "__getstate__", _getstate)
        type.__setattr__(made, "__setstate__", _setstate)
    for method in methods:
        method.__qualname__ = f"{made.__qualname__}.{method.__name__}"
        type.__setattr__(made, method.__name__, method)
    if not immutable and not explicit_hash:
        type.__setattr__(made, "__hash__", None)  # mutable and compared by value: unhashable
    return made


def _params_of_bases(cls: type) -> list[Any]:
    """The ``__dataclass_params__`` of the dataclasses ``cls`` derives from."""
    return [
        base.__dict__["__dataclass_params__"]
        for base in cls.__mro__[1:]
        if "__dataclass_params__" in base.__dict__
    ]


def _check(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> None:
    """Refuse what the compiled ``__init__`` does not do, and a default before a required field
    (``dataclass`` checks that only when it writes an ``__init__``)."""
    where = f"{cls.__qualname__}: use @dataclass for"
    if len(fields) != len(cls.__dataclass_fields__):  # type: ignore[attr-defined]
        raise TypeError(f"{where} ClassVar and InitVar fields")
    seen_default = False
    for f in fields:
        if f.kw_only is True or not f.init:
            raise TypeError(f"{where} field {f.name!r}, which is not a positional parameter of __init__")
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


def _eq(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, object], bool]:
    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    return __eq__


def _hash(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__


def _repr(shown: tuple[str, ...]) -> Callable[[Any], str]:
    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({values})"

    return __repr__


def _refusals(cls: type[Any], names: tuple[str, ...]) -> list[Callable[..., None]]:
    def __setattr__(self: Any, name: str, value: object) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return [__setattr__, __delattr__]


def _lazy_init(
    cls: type, fields: tuple[dataclasses.Field[Any], ...], *, immutable: bool
) -> Callable[..., None]:
    """An ``__init__`` that compiles the real one, puts it in its place on ``cls`` and calls it."""

    def __init__(self: Any, *args: object, **kwargs: object) -> None:
        init = _compile_init(cls, fields, immutable=immutable)
        type.__setattr__(cls, "__init__", init)
        init(self, *args, **kwargs)

    return __init__


def _compile_init(
    cls: type, fields: tuple[dataclasses.Field[Any], ...], *, immutable: bool
) -> Callable[..., None]:
    """The ``__init__`` ``dataclass`` would write for ``fields``."""
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
        body.append(
            f"  __setattr(self, {f.name!r}, {f.name})" if immutable else f"  self.{f.name} = {f.name}"
        )
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
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
