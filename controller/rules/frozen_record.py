"""Dataclasses made with as little compiling as possible: ``frozen_record``,
``frozen_kw_record`` and ``record``.

Why: ``dataclass`` compiles every method it writes with ``exec``, some 45 us each on
CPython 3.11 (parsing the text is most of it), and a frozen dataclass gets six
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``,
``__delattr__``); ``tablectl replay`` or the daemon makes some seventy of them as it
starts (events, effects, settings). The three methods that only read the fields are
the functions below, for every record.

They behave as the generated ones (``tests/test_frozen_record.py`` holds them against
``@dataclass(frozen=True)``): equal only to an instance of the very same class whose
fields compare equal in order (``NotImplemented`` for anything else), the hash of the
field values in order, ``Act(by=None, seat=1, action='call', to=None)`` for the repr;
a field's ``compare``, ``hash`` and ``repr`` flags count as they do there, and a method
the class writes itself is kept. ``fields``, ``replace``, ``asdict``, pickling and
``match`` work as on any dataclass; ``__dataclass_params__`` says ``eq=False,
repr=False``, which only tells how the methods were made.

A frozen record of plain fields (``_plain_fields``: no ``default_factory``, no
``__post_init__``...), as nearly all are, is made with no compiling at all (``_frozen``):
``dataclass`` only lays out its fields, and the other three methods come from here.
Its ``__setattr__`` and ``__delattr__`` are closures with the generated ones' test and
words. Its ``__init__`` (``_quick_init``, then ``init=False`` in its params) has the
same parameters, defaults and errors as dataclass's, but stores the arguments in the
instance's ``__dict__`` at once, where dataclass's calls ``object.__setattr__`` field by
field: events and effects are made several times a line, so this halves their making.
Its code is the one compiled for a record of as many fields, stored in the same order,
with the names put in. Any other frozen record is ``dataclass(frozen=True)``'s, with
the shared three.

``record`` does the same for a plain mutable ``@dataclass`` (the table's state, the
seat placement): the shared ``__eq__`` and ``__repr__``, and ``__hash__`` set to
``None`` as ``dataclass`` sets it for such a class, so one compile (``__init__``)
instead of three (``tests/test_frozen_record.py`` holds them against ``@dataclass``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, fields
from functools import cache
from inspect import signature
from operator import attrgetter
from reprlib import recursive_repr
from types import CodeType, FunctionType
from typing import Any, TypeVar, cast, dataclass_transform

_Record = TypeVar("_Record")

#: The values of a record's fields in order, as a tuple (``attrgetter`` gives a bare
#: value for a single name, and fails for none).
_Values = Callable[[object], tuple[Any, ...]]


@dataclass_transform(frozen_default=True)
def frozen_record(cls: type[_Record]) -> type[_Record]:
    """``@dataclass(frozen=True)``, with the shared ``__eq__``, ``__hash__``, ``__repr__``."""
    return _frozen(cls, kw_only=False)


@dataclass_transform(frozen_default=True, kw_only_default=True)
def frozen_kw_record(cls: type[_Record]) -> type[_Record]:
    """``@dataclass(frozen=True, kw_only=True)``, with the shared methods."""
    return _frozen(cls, kw_only=True)


@dataclass_transform()
def record(cls: type[_Record]) -> type[_Record]:
    """``@dataclass``, with the shared ``__eq__`` and ``__repr__`` and no hash."""
    return _share_methods(dataclass(eq=False, repr=False)(cls), frozen=False)


def _plain_fields(cls: type) -> bool:
    """Whether every field of ``cls`` (its own and its dataclass bases') is a plain one,
    set from its argument or its default: no ``default_factory``, no ``init=False``, no
    ``InitVar`` or ``ClassVar`` pseudo-field, no ``__post_init__``, no field behind a
    slot or a data descriptor (``_set_through``), and the class writes no ``__init__``
    or ``__slots__`` of its own (dataclass keeps that one). A frozen record of such
    fields gets ``_quick_init``; any other keeps the ``__init__`` of ``dataclass``."""
    if hasattr(cls, "__post_init__") or "__init__" in cls.__dict__ or "__slots__" in cls.__dict__:
        return False
    own = cls.__dict__.get("__annotations__", {})
    if any("InitVar" in str(kind) or "ClassVar" in str(kind) for kind in own.values()):
        return False
    declared = [cls.__dict__.get(name) for name in own]
    names = set(own)
    for base in cls.__mro__[1:]:
        listed = getattr(base, "__dataclass_fields__", None)
        if listed is not None:
            if len(listed) != len(fields(base)):
                return False  # a pseudo-field
            declared += listed.values()
            names.update(listed)
    if any(_set_through(cls, name) for name in names):
        return False
    return not any(
        isinstance(value, Field) and (value.default_factory is not MISSING or not value.init)
        for value in declared
    )


def _set_through(cls: type, name: str) -> bool:
    """Whether the class attribute ``name`` is a data descriptor (a slot, a property, a
    descriptor as a field's default): dataclass's ``__init__`` sets the field through
    it (``object.__setattr__``), where the quick one would put it beside it."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            value = klass.__dict__[name]
            if isinstance(value, Field):
                value = value.default
            return hasattr(type(value), "__set__") or hasattr(type(value), "__delete__")
    return False


def _frozen(cls: Any, *, kw_only: bool) -> Any:
    """The frozen record of ``cls``. A class of plain fields is made with no ``exec`` at
    all: ``dataclass`` only lays out its fields (no ``__init__``, not frozen), and the
    quick ``__init__`` and the frozen ``__setattr__`` and ``__delattr__`` come from
    here. Any other class is ``dataclass(frozen=True)``'s, with the shared methods."""
    if not _plain_fields(cls):
        made = dataclass(frozen=True, kw_only=kw_only, eq=False, repr=False)(cls)
        return _share_methods(made)
    for name in ("__setattr__", "__delattr__"):  # as dataclass(frozen=True) refuses them
        if name in cls.__dict__:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    bases = [base for base in cls.__mro__[1:] if "__dataclass_params__" in base.__dict__]
    frozen = [base for base in bases if base.__dataclass_params__.frozen]
    if bases and not frozen:  # as dataclass: one frozen base is enough
        raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
    # dataclass refuses a frozen base under a class it makes unfrozen: the bases read as
    # unfrozen while it lays the fields out (it reads nothing else of theirs)
    for base in frozen:
        base.__dataclass_params__.frozen = False
    # nor has it a docstring to write from the signature before the quick __init__ is in
    undocumented = not cls.__doc__
    if undocumented:
        cls.__doc__ = cls.__name__
    try:
        made = dataclass(init=False, kw_only=kw_only, eq=False, repr=False)(cls)
    finally:
        for base in frozen:
            base.__dataclass_params__.frozen = True
    made.__dataclass_params__.frozen = True
    made.__setattr__, made.__delattr__ = _frozen_assignment(made)
    _quick_init(made)
    if undocumented:  # as dataclass writes it
        made.__doc__ = made.__name__ + str(signature(made)).replace(" -> None", "")
    return _share_methods(made)


def _frozen_assignment(cls: Any) -> tuple[Callable[..., None], Callable[..., None]]:
    """The ``__setattr__`` and ``__delattr__`` that ``dataclass(frozen=True)`` writes:
    a field, or any name on an instance of ``cls`` itself, may not be assigned or
    deleted (``FrozenInstanceError``, in its words)."""
    names = frozenset(f.name for f in fields(cls))

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    for method in (__setattr__, __delattr__):
        method.__module__ = cls.__module__
        method.__annotations__ = {}  # as dataclass writes them, with none
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
    return __setattr__, __delattr__


def _quick_init(cls: Any) -> Any:
    """The ``__init__`` that ``dataclass(frozen=True)`` would write (the same parameters,
    defaults, annotations and errors), storing the arguments in the instance's
    ``__dict__`` at once instead of through ``object.__setattr__`` one by one: a frozen
    record is made several times a line in replay (the event, its effects), and this
    takes its making from about 0.8 us to a third of that.

    Its code is ``init_source``'s for the class, made without compiling: the code
    compiled once for a record of as many fields stored in the same order, with the
    fields' names put in (``tests/test_frozen_record.py`` holds the two to be the same
    code)."""
    # dataclass's takes an InitVar too (with no __post_init__, it drops it); a ClassVar
    # is the pseudo-field whose kw_only dataclass leaves unset
    taken = [f for f in cls.__dataclass_fields__.values() if f.init and f.kw_only is not MISSING]
    positional = [f for f in taken if not f.kw_only]
    keyword = [f for f in taken if f.kw_only]
    seen_default = False
    for f in positional:  # as dataclass words it
        if f.default is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    names = tuple(f.name for f in (*positional, *keyword))
    stored = tuple(names.index(f.name) for f in fields(cls))  # in their declared order
    template = _init_template(len(names), stored)
    placeholders = dict(zip(_placeholders(len(names)), names, strict=True))
    own = "__dataclass_self__" if "self" in cls.__dataclass_fields__ else "self"  # as dataclass's
    code = template.replace(
        co_argcount=1 + len(positional),
        co_kwonlyargcount=len(keyword),
        co_varnames=(own, *names, template.co_varnames[-1]),
        co_consts=tuple(
            placeholders.get(c, c) if type(c) is str else c for c in template.co_consts
        ),
        co_qualname=f"{cls.__qualname__}.__init__",
    )
    defaults = tuple(f.default for f in positional if f.default is not MISSING)
    # dataclass's globals are the record's module (``get_type_hints`` reads them)
    module = sys.modules.get(cls.__module__)
    space = vars(module) if module is not None else {"__name__": cls.__module__}
    init = FunctionType(code, space, "__init__", defaults or None)
    init.__kwdefaults__ = {f.name: f.default for f in keyword if f.default is not MISSING} or None
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{f.name: f.type for f in (*positional, *keyword)}, "return": None}
    cls.__init__ = init
    return cls


def init_source(names: Sequence[str], keyword: int = 0, stored: Sequence[str] | None = None) -> str:
    """The text of a quick ``__init__`` taking ``names`` (the last ``keyword`` of them
    by keyword only): it stores the arguments named in ``stored`` (by default all of
    them), in that order, in the instance's ``__dict__`` under their names. Its own
    names are dataclass's, out of the way of any field's (``self``)."""
    own = "__dataclass_self__" if "self" in names else "self"
    parameters = [own, *names]
    if keyword:
        parameters.insert(len(parameters) - keyword, "*")
    source = f"def __init__({', '.join(parameters)}):\n"
    source += f"    __dataclass_fields__ = {own}.__dict__\n"
    return source + "".join(
        f"    __dataclass_fields__[{name!r}] = {name}\n"
        for name in (names if stored is None else stored)
    )


def _placeholders(count: int) -> tuple[str, ...]:
    return tuple(f"_{i}" for i in range(count))


@cache
def _init_template(count: int, stored: tuple[int, ...]) -> CodeType:
    """The code of a quick ``__init__`` of ``count`` placeholder parameters, storing the
    ones at ``stored`` in that order, compiled once."""
    names = _placeholders(count)
    namespace: dict[str, Any] = {}
    exec(init_source(names, 0, [names[at] for at in stored]), namespace)  # noqa: S102
    return cast(CodeType, namespace["__init__"].__code__)


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
    own = cls.__dict__  # a live view: the hash is settled before the shared __eq__ goes
    explicit_hash = own.get("__hash__", MISSING)  # in, on the class body's own methods
    if explicit_hash is MISSING or (explicit_hash is None and "__eq__" in own):
        cls.__hash__ = _hash if frozen else None
    if "__eq__" not in own:
        cls.__eq__ = _eq
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
