"""Dataclasses whose ``__eq__``, ``__hash__`` and ``__repr__`` are written once.

Why: ``dataclass`` compiles every method it writes with ``exec``, some 45 us each on
CPython 3.11, and a frozen dataclass gets six (``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, ``__setattr__``, ``__delattr__``), and ``tablectl replay`` or the daemon
makes some sixty of them as it starts (events, effects, settings). ``frozen_record``
makes the very same frozen dataclass but takes the three methods that only read the
fields from the functions below, so a class costs three compiles instead of six.

They behave as the generated ones (``tests/test_frozen_record.py`` holds them against
``@dataclass(frozen=True)``): equal only to an instance of the very same class whose
fields compare equal in order (``NotImplemented`` for anything else), the hash of the
field values in order, ``Act(by=None, seat=1, action='call', to=None)`` for the repr;
a field's ``compare``, ``hash`` and ``repr`` flags count as they do there, and a method
the class writes itself is kept. ``fields``, ``replace``, ``asdict``, pickling and
``match`` work as on any dataclass; ``__dataclass_params__`` says ``eq=False,
repr=False``, which only tells how the methods were made.

A frozen record of plain fields (``_plain_fields``: no ``default_factory``, no
``__post_init__``...) also gets its ``__init__`` from here (``_quick_init``, then
``init=False`` in its params): the same parameters, defaults and errors as dataclass's,
but it stores the arguments in the instance's ``__dict__`` at once, where dataclass's
calls ``object.__setattr__`` field by field, since a frozen record may not be assigned
to. Events and effects are made several times a line, so this halves their making.

``record`` does the same for a plain mutable ``@dataclass`` (the table's state, the
seat placement): the shared ``__eq__`` and ``__repr__``, and ``__hash__`` set to
``None`` as ``dataclass`` sets it for such a class, so one compile (``__init__``)
instead of three (``tests/test_frozen_record.py`` holds them against ``@dataclass``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, dataclass, fields
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar, dataclass_transform

_Record = TypeVar("_Record")

#: The values of a record's fields in order, as a tuple (``attrgetter`` gives a bare
#: value for a single name, and fails for none).
_Values = Callable[[object], tuple[Any, ...]]


@dataclass_transform(frozen_default=True)
def frozen_record(cls: type[_Record]) -> type[_Record]:
    """``@dataclass(frozen=True)``, with the shared ``__eq__``, ``__hash__``, ``__repr__``."""
    plain = _plain_fields(cls)
    made = dataclass(frozen=True, eq=False, repr=False, init=not plain)(cls)
    return _share_methods(_quick_init(made) if plain else made)


@dataclass_transform(frozen_default=True, kw_only_default=True)
def frozen_kw_record(cls: type[_Record]) -> type[_Record]:
    """``@dataclass(frozen=True, kw_only=True)``, with the shared methods."""
    plain = _plain_fields(cls)
    made = dataclass(frozen=True, kw_only=True, eq=False, repr=False, init=not plain)(cls)
    return _share_methods(_quick_init(made) if plain else made)


@dataclass_transform()
def record(cls: type[_Record]) -> type[_Record]:
    """``@dataclass``, with the shared ``__eq__`` and ``__repr__`` and no hash."""
    return _share_methods(dataclass(eq=False, repr=False)(cls), frozen=False)


def _plain_fields(cls: type) -> bool:
    """Whether every field of ``cls`` (its own and its dataclass bases') is a plain one,
    set from its argument or its default: no ``default_factory``, no ``init=False``, no
    ``InitVar`` or ``ClassVar`` pseudo-field, no ``__post_init__``, and the class writes
    no ``__init__`` of its own (dataclass keeps that one). A frozen record of such
    fields gets ``_quick_init``; any other keeps the ``__init__`` of ``dataclass``."""
    if hasattr(cls, "__post_init__") or "__init__" in cls.__dict__:
        return False
    own = cls.__dict__.get("__annotations__", {})
    if any("InitVar" in str(kind) or "ClassVar" in str(kind) for kind in own.values()):
        return False
    declared = [cls.__dict__.get(name) for name in own]
    for base in cls.__mro__[1:]:
        listed = getattr(base, "__dataclass_fields__", None)
        if listed is not None:
            if len(listed) != len(fields(base)):
                return False  # a pseudo-field
            declared += listed.values()
    return not any(
        isinstance(value, Field) and (value.default_factory is not MISSING or not value.init)
        for value in declared
    )


def _quick_init(cls: Any) -> Any:
    """The ``__init__`` that ``dataclass(frozen=True)`` would write (the same parameters,
    defaults, annotations and errors), storing the arguments in the instance's
    ``__dict__`` at once instead of through ``object.__setattr__`` one by one: a frozen
    record is made several times a line in replay (the event, its effects), and this
    takes its making from about 0.8 us to a third of that."""
    listed = fields(cls)
    positional = [f for f in listed if not f.kw_only]
    keyword = [f for f in listed if f.kw_only]
    seen_default = False
    for f in positional:  # as dataclass words it
        if f.default is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    defaults = {f"_default_{f.name}": f.default for f in listed if f.default is not MISSING}

    def parameter(f: Field[Any]) -> str:
        return f.name if f.default is MISSING else f"{f.name}=_default_{f.name}"

    # its own names as dataclass's are, out of the way of any field's (``self``, ``fields``)
    parameters = ["__dataclass_self__", *map(parameter, positional)]
    if keyword:
        parameters += ["*", *map(parameter, keyword)]
    body = [f"    __dataclass_fields__[{f.name!r}] = {f.name}" for f in listed]
    source = f"def __init__({', '.join(parameters)}):\n"
    source += "    __dataclass_fields__ = __dataclass_self__.__dict__\n"
    source += "\n".join(body) + "\n" if body else ""
    namespace: dict[str, Any] = {"__name__": cls.__module__, **defaults}
    exec(source, namespace)  # noqa: S102 - our own text, as dataclass does it
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{f.name: f.type for f in listed}, "return": None}
    cls.__init__ = init
    return cls


def _values_of(names: tuple[str, ...]) -> _Values:
    if not names:
        return lambda record: ()
    if len(names) == 1:
        value = attrgetter(names[0])
        return lambda record: (value(record),)
    return attrgetter(*names)


def _share_methods(cls: Any, *, frozen: bool = True) -> Any:
    """What ``dataclass(eq=True, repr=True)`` would add, from the functions below: the
    class's own fields kept on it, and a method the class body wrote left alone (as
    ``dataclass`` leaves it). A mutable record's ``__hash__`` is ``None`` (unhashable),
    a frozen one's hashes its fields."""
    listed = fields(cls)
    cls._record_compared = _values_of(tuple(f.name for f in listed if f.compare))
    cls._record_hashed = _values_of(
        tuple(f.name for f in listed if (f.compare if f.hash is None else f.hash))
    )
    cls._record_shown = tuple(f.name for f in listed if f.repr)
    own = cls.__dict__
    if "__eq__" not in own:
        cls.__eq__ = _eq
    explicit_hash = own.get("__hash__", MISSING)
    if explicit_hash is MISSING or (explicit_hash is None and "__eq__" in own):
        cls.__hash__ = _hash if frozen else None
    if "__repr__" not in own:
        cls.__repr__ = _repr
    return cls


def _eq(self: Any, other: Any) -> Any:
    kind = self.__class__
    if other.__class__ is kind:
        return kind._record_compared(self) == kind._record_compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__class__._record_hashed(self))


@recursive_repr()  # as dataclass's: "..." for a record inside itself
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__class__._record_shown)
    return f"{self.__class__.__qualname__}({shown})"
