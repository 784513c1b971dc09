"""``frozen_record``: its records compare, hash and print exactly as the methods that
``@dataclass(frozen=True)`` generates would, checked class by class against a twin
made by ``dataclasses`` itself."""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle
from types import ModuleType
from typing import Any, ClassVar

import pytest

from controller.config import daemon, floor, reader, settings
from controller.rules import effects, events, out_of_turn, pushed, tray_ledger
from controller.rules import settings as rule_settings
from controller.rules.frozen_record import frozen_kw_record, frozen_record
from controller.rules.keypad import menus, supervisor

#: The modules whose record classes are made by ``frozen_record``: events, effects
#: (some are declared beside the rule that makes them) and settings.
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
)


def record_classes(module: ModuleType) -> list[type]:
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and dataclasses.is_dataclass(value)
        and value.__module__ == module.__name__
    ]


RECORDS = [cls for module in RECORD_MODULES for cls in record_classes(module)]


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
