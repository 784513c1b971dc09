"""``frozen_record``: its records compare, hash and print exactly as the methods that
``@dataclass(frozen=True)`` generates would, checked class by class against a twin
made by ``dataclasses`` itself; ``record`` likewise against plain ``@dataclass``."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
import pickle
from types import ModuleType
from typing import Any, ClassVar, get_type_hints

import pytest

from controller import light_patterns
from controller.config import daemon, floor, reader, settings
from controller.rules import (
    betting,
    effects,
    events,
    out_of_turn,
    positions,
    pots,
    pushed,
    state,
    tray_ledger,
)
from controller.rules import settings as rule_settings
from controller.rules.frozen_record import frozen_kw_record, frozen_record, init_source, record
from controller.rules.keypad import menus, supervisor

#: The modules whose record classes are made by ``frozen_record``: events, effects
#: (some are declared beside the rule that makes them), settings, and the rules' other
#: frozen values (pots, the legal actions, the hand's plan).
RECORD_MODULES: tuple[ModuleType, ...] = (
    events,
    effects,
    out_of_turn,
    pushed,
    tray_ledger,
    menus,
    supervisor,
    rule_settings,
    daemon,
    floor,
    reader,
    settings,
    light_patterns,
    pots,
    betting,
    positions,
)
#: The modules whose mutable record classes are made by ``record``: the table's state
#: and the seat placement (``positions``, whose other records are frozen).
MUTABLE_MODULES: tuple[ModuleType, ...] = (state, positions)


def record_classes(module: ModuleType) -> list[type]:
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and dataclasses.is_dataclass(value)
        and value.__module__ == module.__name__
    ]


RECORDS = [
    cls
    for module in RECORD_MODULES
    for cls in record_classes(module)
    if cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
]
MUTABLE_RECORDS = [
    cls
    for module in MUTABLE_MODULES
    for cls in record_classes(module)
    if not cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
]


def twin(cls: type) -> type:
    """The same fields (names, flags, order) in a class made by plain
    ``@dataclass(frozen=True)``, under the same name."""
    listed = dataclasses.fields(cls)
    specs = [
        (f.name, Any, dataclasses.field(repr=f.repr, compare=f.compare, hash=f.hash))
        for f in listed
    ]
    return dataclasses.make_dataclass(
        cls.__name__, specs, frozen=True, kw_only=all(f.kw_only for f in listed)
    )


def sample(cls: type) -> dict[str, Any]:
    """A distinct value for every field, so that a field out of order shows."""
    return {f.name: 10 * i for i, f in enumerate(dataclasses.fields(cls), 1)}


def build(cls: type, values: dict[str, Any]) -> Any:
    """An instance holding ``values``, made without ``__init__`` when the class checks
    its values (``__post_init__``) and would refuse the samples."""
    if not hasattr(cls, "__post_init__"):
        return cls(**values)
    record = object.__new__(cls)
    for name, value in values.items():
        object.__setattr__(record, name, value)
    return record


def test_every_record_module_uses_frozen_record() -> None:
    for cls in RECORDS:
        params = cls.__dataclass_params__  # type: ignore[attr-defined]
        assert params.frozen and not params.eq and not params.repr, cls
    mixed = [cls for cls in record_classes(positions) if cls not in RECORDS]
    assert mixed == [positions.Placement]  # the one mutable record there, made by record


def test_every_mutable_record_module_uses_record() -> None:
    assert {cls.__name__ for cls in record_classes(state)} == {
        "Seat",
        "Clock",
        "Hand",
        "UndoRecord",
        "Positions",
        "TableState",
    }
    for cls in MUTABLE_RECORDS:
        params = cls.__dataclass_params__  # type: ignore[attr-defined]
        assert not params.frozen and not params.eq and not params.repr, cls
        assert cls.__hash__ is None, cls


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: f"{cls.__module__}.{cls.__name__}")
def test_a_record_behaves_as_the_generated_dataclass(cls: type) -> None:
    made = twin(cls)
    values = sample(cls)
    record, same, generated = build(cls, values), build(cls, values), made(**values)

    assert repr(record) == repr(generated)
    assert hash(record) == hash(generated) == hash(same)
    assert record == same and not record != same  # noqa: SIM202 - both operators checked
    assert record.__eq__(generated) is NotImplemented
    assert generated.__eq__(record) is NotImplemented
    assert record != generated
    assert record.__eq__(object()) is NotImplemented
    assert cls.__match_args__ == made.__match_args__  # type: ignore[attr-defined]

    for name in values:
        changed = build(cls, {**values, name: -1})
        generated_changed = made(**{**values, name: -1})
        assert (record == changed) is (generated == generated_changed) is False
        assert (hash(record) == hash(changed)) is (hash(generated) == hash(generated_changed))
        if not hasattr(cls, "__post_init__"):
            assert dataclasses.replace(record, **{name: -1}) == changed
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, name, -1)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(record, name)

    assert dataclasses.asdict(record) == dataclasses.asdict(generated)
    assert dataclasses.astuple(record) == dataclasses.astuple(generated)
    assert pickle.loads(pickle.dumps(record)) == record
    assert copy.deepcopy(record) == record and copy.copy(record) == record


def test_the_replay_contracts_words_print_as_before() -> None:
    act = events.Act(seat=1, action="call")
    assert repr(act) == "Act(by=None, seat=1, action='call', to=None)"
    assert repr(events.StartHand()) == "StartHand(by=None)"
    assert repr(effects.HandEnded(3)) == "HandEnded(hand=3, voided=False)"
    assert act == events.Act(by=None, seat=1, action="call", to=None)
    assert act != events.Act(seat=1, action="call", to=4)
    assert hash(act) == hash((None, 1, "call", None))
    assert hash(events.StartHand()) == hash((None,))


def test_only_the_very_same_class_compares() -> None:
    """A subclass, a base class or another class with the same fields is not equal,
    as with the generated ``__eq__`` (``NotImplemented`` both ways, so ``==`` is
    identity)."""
    assert events.Event(by="d1").__eq__(events.StartHand(by="d1")) is NotImplemented
    assert events.StartHand(by="d1").__eq__(events.Event(by="d1")) is NotImplemented
    assert events.StartHand(by="d1") != events.Misdeal(by="d1")
    assert effects.ClockStarted(4, 900) != effects.ClockWarning(4, 900)
    assert effects.Effect() == effects.Effect() and hash(effects.Effect()) == hash(())


def test_a_record_inside_itself_prints_as_dots() -> None:
    inner: list[object] = []
    record = events.Push(seat=2, chips=inner)  # type: ignore[arg-type]
    inner.append(record)
    generated = twin(events.Push)(by=None, seat=2, chips=[], declared=None)
    generated.chips.append(generated)
    assert repr(record) == repr(generated) == "Push(by=None, seat=2, chips=[...], declared=None)"


def test_field_flags_and_a_method_of_the_class_own_are_kept() -> None:
    """``repr=False``, ``compare=False``, ``hash=False``, class variables, a value not
    equal to itself, and a ``__repr__`` written in the class body, as ``dataclass``
    treats them."""

    def declare(decorator: Any) -> type:
        @decorator
        class Reading:
            kind: ClassVar[str] = "reading"
            value: float
            secret: str = dataclasses.field(default="s", repr=False)
            note: str = dataclasses.field(default="n", compare=False)
            mark: int = dataclasses.field(default=0, hash=False)

        return Reading

    def declare_with_repr(decorator: Any) -> type:
        @decorator
        class Labelled:
            label: str

            def __repr__(self) -> str:
                return f"<{self.label}>"

        return Labelled

    for ours, theirs in (
        (frozen_record, dataclasses.dataclass(frozen=True)),
        (frozen_kw_record, dataclasses.dataclass(frozen=True, kw_only=True)),
    ):
        mine, plain = declare(ours), declare(theirs)
        nan = math.nan
        for args in (
            {"value": 1.5},
            {"value": 1.5, "secret": "x", "note": "y", "mark": 7},
            {"value": nan},
        ):
            a, b = mine(**args), plain(**args)
            assert repr(a) == repr(b)
            assert (a == a) is (b == b)  # a NaN field: identity counts, as in a tuple
            assert hash(a) == hash(b)
            for change in ({"note": "other"}, {"mark": 8}, {"secret": "z"}):
                a2, b2 = mine(**{**args, **change}), plain(**{**args, **change})
                assert (a == a2) is (b == b2)
                assert (hash(a) == hash(a2)) is (hash(b) == hash(b2))
        labelled = declare_with_repr(ours)
        assert repr(labelled(label="x")) == "<x>"
        assert labelled(label="x") == labelled(label="x") != labelled(label="y")


def mutable_twin(cls: type) -> type:
    """The same fields (names, flags, order) in a class made by plain ``@dataclass``,
    under the same name."""
    listed = dataclasses.fields(cls)
    specs = [
        (f.name, Any, dataclasses.field(repr=f.repr, compare=f.compare, hash=f.hash))
        for f in listed
    ]
    return dataclasses.make_dataclass(cls.__name__, specs, kw_only=all(f.kw_only for f in listed))


@pytest.mark.parametrize("cls", MUTABLE_RECORDS, ids=lambda cls: f"{cls.__module__}.{cls.__name__}")
def test_a_mutable_record_behaves_as_the_generated_dataclass(cls: type) -> None:
    made = mutable_twin(cls)
    values = sample(cls)
    record, same, generated = cls(**values), cls(**values), made(**values)

    assert repr(record) == repr(generated)
    assert cls.__hash__ is made.__hash__ is None
    with pytest.raises(TypeError, match="unhashable"):
        hash(record)
    assert record == same and not record != same  # noqa: SIM202 - both operators checked
    assert record.__eq__(generated) is NotImplemented
    assert generated.__eq__(record) is NotImplemented
    assert record != generated
    assert record.__eq__(object()) is NotImplemented
    assert cls.__match_args__ == made.__match_args__  # type: ignore[attr-defined]
    assert [(f.name, f.repr, f.compare, f.hash, f.kw_only) for f in dataclasses.fields(cls)] == [
        (f.name, f.repr, f.compare, f.hash, f.kw_only) for f in dataclasses.fields(made)
    ]

    for name in values:
        changed = cls(**{**values, name: -1})
        generated_changed = made(**{**values, name: -1})
        assert (record == changed) is (generated == generated_changed) is False
        assert dataclasses.replace(record, **{name: -1}) == changed
        mutated = cls(**values)
        setattr(mutated, name, -1)
        assert mutated == changed and repr(mutated) == repr(changed)

    assert dataclasses.asdict(record) == dataclasses.asdict(generated)
    assert dataclasses.astuple(record) == dataclasses.astuple(generated)
    assert pickle.loads(pickle.dumps(record)) == record
    assert copy.deepcopy(record) == record and copy.copy(record) == record
    assert copy.copy(record) is not record


def test_the_state_compares_and_prints_as_before() -> None:
    seat = state.Seat("ann", 500)
    assert repr(state.Clock(3, 900)) == "Clock(seat=3, remaining_ms=900, warning=False)"
    assert repr(seat).startswith("Seat(player='ann', stack=500, in_hand=False, ")
    table = state.TableState(seats={1: seat})
    other = state.TableState(seats={1: state.Seat("ann", 500)})
    assert table == other
    other.seats[1].stack = 499
    assert table != other
    assert state.TableState.from_dict(table.to_dict()) == table
    with pytest.raises(TypeError, match="unhashable"):
        {table}  # noqa: B018 - the set is made to be refused


def test_a_mutable_records_field_flags_and_own_methods_are_kept() -> None:
    """``repr=False``, ``compare=False``, a record inside itself, and an ``__eq__``,
    ``__hash__`` or ``__repr__`` written in the class body, as ``dataclass`` treats
    them."""

    def declare(decorator: Any) -> type:
        @decorator
        class Reading:
            kind: ClassVar[str] = "reading"
            value: float
            secret: str = dataclasses.field(default="s", repr=False)
            note: str = dataclasses.field(default="n", compare=False)
            inner: list[Any] = dataclasses.field(default_factory=list)

        return Reading

    def declare_own(decorator: Any) -> tuple[type, type]:
        @decorator
        class Labelled:
            label: str

            def __repr__(self) -> str:
                return f"<{self.label}>"

            def __hash__(self) -> int:
                return len(self.label)

        @decorator
        class Loose:
            label: str

            def __eq__(self, other: object) -> bool:
                return True

        return Labelled, Loose

    mine, plain = declare(record), declare(dataclasses.dataclass)
    for args in (
        {"value": 1.5},
        {"value": 1.5, "secret": "x", "note": "y"},
        {"value": math.nan},
    ):
        a, b = mine(**args), plain(**args)
        assert repr(a) == repr(b)
        assert (a == a) is (b == b)  # a NaN field: identity counts, as in a tuple
        for change in ({"note": "other"}, {"secret": "z"}, {"inner": [1]}):
            a2, b2 = mine(**{**args, **change}), plain(**{**args, **change})
            assert (a == a2) is (b == b2)
    looped, plain_looped = mine(value=1.0), plain(value=1.0)
    looped.inner.append(looped)
    plain_looped.inner.append(plain_looped)
    assert repr(looped) == repr(plain_looped)
    assert "inner=[...]" in repr(looped)

    (labelled, loose), (plain_labelled, plain_loose) = (
        declare_own(record),
        declare_own(dataclasses.dataclass),
    )
    assert repr(labelled(label="x")) == "<x>"
    assert hash(labelled(label="xy")) == hash(plain_labelled(label="xy")) == 2
    assert labelled(label="x") == labelled(label="x") != labelled(label="y")
    assert loose(label="x") == loose(label="y")
    assert loose.__hash__ is plain_loose.__hash__ is None


def init_twin(cls: type) -> type:
    """The same fields with their types, defaults and keyword-only flags, in a class made
    by plain ``@dataclass(frozen=True)``: its ``__init__`` is the one dataclass writes."""
    specs = [
        (f.name, f.type, dataclasses.field(default=f.default, kw_only=f.kw_only))
        for f in dataclasses.fields(cls)
    ]
    return dataclasses.make_dataclass(cls.__name__, specs, frozen=True)


QUICK = [cls for cls in RECORDS if not cls.__dataclass_params__.init]  # type: ignore[attr-defined]


def test_plain_frozen_records_get_the_quick_init_and_the_others_keep_dataclasses() -> None:
    assert events.Act in QUICK and effects.Acted in QUICK and pots.Pot in QUICK
    # a default_factory or a __post_init__: dataclass's own __init__
    kept = [cls for cls in RECORDS if cls not in QUICK]
    assert kept and all(
        hasattr(cls, "__post_init__")
        or any(f.default_factory is not dataclasses.MISSING for f in dataclasses.fields(cls))
        for cls in kept
    ), kept


@pytest.mark.parametrize("cls", QUICK, ids=lambda cls: f"{cls.__module__}.{cls.__name__}")
def test_the_quick_init_takes_and_stores_as_dataclasses_does(cls: type) -> None:
    made = init_twin(cls)
    assert inspect.signature(cls) == inspect.signature(made)
    values = sample(cls)
    assert vars(cls(**values)) == vars(made(**values))
    listed = dataclasses.fields(cls)
    positional = [values[f.name] for f in listed if not f.kw_only]
    keywords = {f.name: values[f.name] for f in listed if f.kw_only}
    assert vars(cls(*positional, **keywords)) == vars(made(*positional, **keywords))
    required = [f.name for f in listed if f.default is dataclasses.MISSING]
    if required:  # the same words for a missing argument (the twin's name is the class's)
        partial = {k: v for k, v in values.items() if k != required[-1]}
        with pytest.raises(TypeError) as ours:
            cls(**partial)
        with pytest.raises(TypeError) as theirs:
            made(**partial)
        assert str(ours.value) == str(theirs.value).replace(
            f"{made.__qualname__}.__init__", f"{cls.__qualname__}.__init__"
        )
    with pytest.raises(TypeError):
        cls(**values, not_a_field=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cls(**values).__setattr__(listed[0].name, 0) if listed else cls().__setattr__("x", 0)


@pytest.mark.parametrize("cls", QUICK, ids=lambda cls: f"{cls.__module__}.{cls.__name__}")
def test_the_quick_init_is_the_code_its_text_compiles_to(cls: type) -> None:
    """The quick ``__init__`` is made from the code compiled once for a record of as many
    fields, with the names put in: it must be the very code that compiling its own text
    gives, instruction for instruction."""
    listed = dataclasses.fields(cls)
    names = [f.name for f in listed if not f.kw_only] + [f.name for f in listed if f.kw_only]
    namespace: dict[str, Any] = {}
    keyword, stored = sum(f.kw_only for f in listed), [f.name for f in listed]
    exec(init_source(names, keyword, stored), namespace)  # noqa: S102
    compiled, made = namespace["__init__"].__code__, cls.__init__.__code__  # type: ignore[misc]
    for part in (
        "co_code",
        "co_consts",
        "co_names",
        "co_varnames",
        "co_argcount",
        "co_posonlyargcount",
        "co_kwonlyargcount",
        "co_nlocals",
        "co_stacksize",
        "co_flags",
        "co_exceptiontable",
    ):
        assert getattr(made, part) == getattr(compiled, part), part
    assert made.co_qualname == f"{cls.__qualname__}.__init__"


def test_the_quick_init_refuses_a_field_without_default_after_one_with() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @frozen_record
        class Wrong:
            a: int = 1
            b: int


@pytest.mark.parametrize("make", [frozen_record, frozen_kw_record])
def test_the_quick_init_takes_fields_named_as_its_own_locals(make: Any) -> None:
    """A field may be called ``self`` or ``fields``, as dataclass's ``__init__`` allows
    (it names its own ``self`` ``__dataclass_self__``): the quick one stores each
    argument under its name, not the instance's ``__dict__`` or a duplicate ``self``."""

    class Named:
        __annotations__ = {"self": "int", "fields": "int", "name": "str"}
        name = "x"

    made = make(Named)
    assert not made.__dataclass_params__.init  # the quick init
    one = made(self=1, fields=2)
    assert (one.self, one.fields, one.name) == (1, 2, "x")
    assert repr(one).endswith("Named(self=1, fields=2, name='x')")
    if make is frozen_record:
        assert made(3, 4, "y") == made(self=3, fields=4, name="y")


@pytest.mark.parametrize("make", [frozen_record, frozen_kw_record])
def test_an_init_the_class_writes_itself_is_kept(make: Any) -> None:
    """As dataclass leaves a class's own ``__init__`` (and the module says a method the
    class body wrote is kept), the quick init does not replace it."""

    class Parsed:
        __annotations__ = {"amount": "int"}

        def __init__(self, text: str) -> None:
            object.__setattr__(self, "amount", int(text))

    made = make(Parsed)
    assert made("5").amount == 5


def made_twice(
    namespace: dict[str, Any], bases: tuple[type, ...] = (), *, kw_only: bool = False
) -> tuple[Any, Any]:
    """The class of ``namespace`` made by ``frozen_record`` (``frozen_kw_record``) and by
    ``@dataclass(frozen=True[, kw_only=True])``, each from a fresh copy of it."""
    make = frozen_kw_record if kw_only else frozen_record
    ours = make(type("Made", bases, dict(namespace)))
    theirs = dataclasses.dataclass(frozen=True, kw_only=kw_only)(
        type("Made", bases, dict(namespace))
    )
    return ours, theirs


def test_the_quick_init_stores_the_fields_in_their_order() -> None:
    """A keyword-only field declared before a positional one comes after it in the
    signature, but dataclass's ``__init__`` stores the fields in their declared order:
    the instance's ``__dict__``, ``vars`` and its pickle keep that order."""

    @frozen_kw_record
    class Named:
        """A keyword-only base."""

        name: str

    @dataclasses.dataclass(frozen=True, kw_only=True)
    class PlainNamed:
        name: str

    ours, _ = made_twice({"__annotations__": {"seat": "int"}}, (Named,))
    _, plain = made_twice({"__annotations__": {"seat": "int"}}, (PlainNamed,))
    assert not ours.__dataclass_params__.init  # the quick init
    assert list(vars(ours(3, name="x"))) == list(vars(plain(3, name="x"))) == ["name", "seat"]
    assert list(ours(3, name="x").__reduce_ex__(2)[2]) == ["name", "seat"]  # what pickles
    annotations = {"first": "int", "second": "int", "third": "int"}
    kept = {"first": dataclasses.field(kw_only=True, default=1), "second": 2, "third": 3}
    ours, theirs = made_twice({"__annotations__": annotations, **kept})
    assert list(vars(ours())) == list(vars(theirs())) == ["first", "second", "third"]
    assert ours.__init__.__annotations__ == theirs.__init__.__annotations__


def test_the_quick_init_names_its_self_as_dataclass_does() -> None:
    """``self``, unless a field is called so (then ``__dataclass_self__``, as dataclass
    names it): a field called ``__dataclass_self__`` is taken by keyword too."""
    annotations = {"__dataclass_self__": "int", "other": "int"}
    ours, theirs = made_twice({"__annotations__": annotations})
    assert vars(ours(__dataclass_self__=1, other=2)) == {"__dataclass_self__": 1, "other": 2}
    assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
    assert ours.__init__.__code__.co_varnames[0] == "self"
    ours, theirs = made_twice({"__annotations__": {"self": "int"}})
    assert ours.__init__.__code__.co_varnames[0] == "__dataclass_self__"
    assert vars(ours(self=1)) == vars(theirs(self=1)) == {"self": 1}


def test_a_record_without_a_docstring_gets_dataclasss() -> None:
    annotations = {"seat": "int", "name": "str"}
    for kw_only in (False, True):
        ours, theirs = made_twice({"__annotations__": annotations, "name": "x"}, kw_only=kw_only)
        assert ours.__doc__ == theirs.__doc__
    ours, theirs = made_twice({"__annotations__": annotations, "__doc__": "Its own."})
    assert ours.__doc__ == theirs.__doc__ == "Its own."


def test_a_frozen_and_a_mutable_dataclass_base_together_as_dataclass_allows() -> None:
    """dataclass refuses a frozen class over only mutable dataclass bases, but takes one
    over a frozen base and a mutable one; the bases' flags are left as they were."""

    @frozen_record
    class Frozen:
        """A frozen base."""

        seat: int = 1

    @dataclasses.dataclass
    class Mutable:
        name: str = "x"

    ours, theirs = made_twice(
        {"__annotations__": {"amount": "int"}, "amount": 5}, (Frozen, Mutable)
    )
    assert ours.__dataclass_params__.frozen and theirs.__dataclass_params__.frozen
    assert vars(ours()) == vars(theirs()) == {"seat": 1, "name": "x", "amount": 5}
    assert Frozen.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert not Mutable.__dataclass_params__.frozen  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ours().amount = 1
    for make in (frozen_record, dataclasses.dataclass(frozen=True)):
        with pytest.raises(TypeError, match="cannot inherit frozen dataclass from a non-frozen"):
            make(type("Made", (Mutable,), {"__annotations__": {"amount": "int"}, "amount": 5}))
    assert not Mutable.__dataclass_params__.frozen  # type: ignore[attr-defined]


class Doubled:
    """A data descriptor: what is set is kept doubled (as a field's default, dataclass's
    ``__init__`` sets the field through it)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = f"_{name}"

    def __get__(self, instance: object, owner: type | None = None) -> int:
        return 0 if instance is None else int(getattr(instance, self.name, 0))

    def __set__(self, instance: object, value: int) -> None:
        object.__setattr__(instance, self.name, 2 * value)


def test_a_field_behind_a_slot_or_a_descriptor_is_set_as_dataclass_sets_it() -> None:
    """dataclass's ``__init__`` sets a field through ``object.__setattr__``, so through a
    slot or a data descriptor of that name; an instance's ``__dict__`` would miss it."""
    slotted = {"__annotations__": {"seat": "int"}, "__slots__": ("seat",)}
    ours, theirs = made_twice(slotted)
    assert ours(3).seat == theirs(3).seat == 3

    class SlottedBase:
        __slots__ = ("seat",)

    ours, theirs = made_twice({"__annotations__": {"seat": "int"}}, (SlottedBase,))
    assert ours(3).seat == theirs(3).seat == 3
    described = {"__annotations__": {"seat": "int"}, "seat": Doubled()}
    ours, theirs = made_twice(described)
    assert ours(3).seat == theirs(3).seat == 6
    assert ours().seat == theirs().seat == 0
    defaulted = {"__annotations__": {"seat": "int"}, "seat": dataclasses.field(default=Doubled())}
    ours, theirs = made_twice(defaulted)
    assert ours(3).seat == theirs(3).seat == 6


LaidAside = dataclasses.InitVar


def test_an_init_var_by_another_name_is_taken_as_dataclass_takes_it() -> None:
    """A pseudo-field ``InitVar`` by a name of its own: dataclass's ``__init__`` takes its
    argument (and, with no ``__post_init__``, drops it)."""
    annotations = {"seat": "int", "spare": "LaidAside[int]"}
    ours, theirs = made_twice({"__annotations__": annotations, "__module__": __name__})
    assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
    assert vars(ours(1, 2)) == vars(theirs(1, 2)) == {"seat": 1}
    assert ours.__match_args__ == theirs.__match_args__
    ours, theirs = made_twice(
        {"__annotations__": {"spare": "LaidAside[int]"}, "__module__": __name__}
    )
    assert vars(ours(2)) == vars(theirs(2)) == {}


def test_the_frozen_methods_are_of_the_records_module() -> None:
    ours, theirs = made_twice({"__annotations__": {"seat": "int"}, "__module__": __name__})
    for name in ("__init__", "__setattr__", "__delattr__"):
        method, generated = getattr(ours, name), getattr(theirs, name)
        assert (method.__module__, method.__qualname__) == (
            generated.__module__,
            generated.__qualname__,
        )


def test_the_quick_init_reads_its_annotations_in_the_records_module() -> None:
    """dataclass writes its methods with the record's module as their globals, so that
    ``get_type_hints`` finds the names of the annotations there."""
    annotations = {"seat": "Doubled", "name": "str"}
    ours, theirs = made_twice({"__annotations__": annotations, "__module__": __name__})
    assert get_type_hints(ours.__init__) == get_type_hints(theirs.__init__)
    assert get_type_hints(ours.__init__)["seat"] is Doubled
    for name in ("__setattr__", "__delattr__"):
        assert inspect.signature(getattr(ours, name)) == inspect.signature(getattr(theirs, name))


@pytest.mark.parametrize("make", [frozen_record, frozen_kw_record])
def test_a_hash_the_class_sets_to_none_itself_is_kept(make: Any) -> None:
    """``__hash__ = None`` written in a class that writes no ``__eq__`` is the class's
    own word (dataclass keeps it: unhashable); the ``None`` Python sets beside an
    ``__eq__`` of the class's own is not (dataclass writes the hash)."""
    kw_only = make is frozen_kw_record
    ours, theirs = made_twice(
        {"__annotations__": {"seat": "int"}, "__hash__": None}, kw_only=kw_only
    )
    assert ours.__hash__ is theirs.__hash__ is None
    with pytest.raises(TypeError, match="unhashable type"):
        hash(ours(seat=1))

    def equal(self: object, other: object) -> bool:
        return True

    with_eq = {"__annotations__": {"seat": "int"}, "__eq__": equal, "__hash__": None}
    ours, theirs = made_twice(with_eq, kw_only=kw_only)
    assert hash(ours(seat=1)) == hash(theirs(seat=1)) == hash((1,))
