from __future__ import annotations

import pytest

from drivers.errors import GpioUnavailable, HardwareConfigError
from drivers.pins import factory_class, mock_pin_factory, real_pin_factory
from drivers.settings import HardwareSettings


def test_no_name_no_chip_tries_gpiozeros_defaults_and_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, recwarn: pytest.WarningsRecorder
) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    try:
        factory = real_pin_factory(HardwareSettings())
    except GpioUnavailable as error:  # this machine: no lgpio, not a Pi
        assert str(error).startswith("no GPIO found (lgpio: ")
        assert "sudo apt install python3-lgpio" in str(error)
        assert "\n" not in str(error)
        assert not [w for w in recwarn if "PinFactoryFallback" in type(w.message).__name__]
    else:  # pragma: no cover - a Raspberry Pi with its pin library
        factory.close()


def test_factory_named_in_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    factory = real_pin_factory(HardwareSettings(pin_factory="mock"))
    try:
        assert type(factory).__name__ == "MockFactory"
    finally:
        factory.close()


def test_factory_named_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "MOCK")
    factory = real_pin_factory(HardwareSettings())
    try:
        assert type(factory).__name__ == "MockFactory"
    finally:
        factory.close()


def test_unknown_factory_is_a_config_error() -> None:
    with pytest.raises(
        HardwareConfigError, match="pin_factory 'gpio9000' is not a gpiozero pin factory"
    ):
        factory_class("gpio9000")


def test_a_chip_selects_lgpio_and_says_when_it_cannot_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    try:
        factory = real_pin_factory(HardwareSettings(gpiochip=99))
    except GpioUnavailable as error:
        assert "GPIO pin factory 'lgpio' on gpiochip99 cannot start" in str(error)
        assert isinstance(error, OSError)
    else:  # pragma: no cover - a machine with 100 gpiochips and lgpio
        factory.close()


def test_mock_factory_pin_classes() -> None:
    pwm, plain = mock_pin_factory(pwm=True), mock_pin_factory(pwm=False)
    try:
        assert type(pwm.pin(17)).__name__ == "MockPWMPin"
        assert type(plain.pin(17)).__name__ == "MockPin"
    finally:
        pwm.close()
        plain.close()
