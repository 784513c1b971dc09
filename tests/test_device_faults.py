"""Device fault codes: one source (``controller.device_faults``), words for the dealer in
English and Spanish that fit the display and name no path."""

from __future__ import annotations

import pytest

from controller import device_faults
from controller.daemon.inputs import DeviceNotice, translate
from controller.lights import dealer_lines
from controller.rules.catalogue import LANGUAGES
from controller.rules.text import render
from drivers.events import DEVICE_NAMES, DeviceCleared, DeviceFault, PuckFault

IDLE = {"phase": "idle", "display_text": [["display.ready", {}]]}


@pytest.mark.parametrize("code", device_faults.CODES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_code_has_short_words_in_every_language(code: str, language: str) -> None:
    words = render(device_faults.words(code, (2, 5)), language)
    assert len(words) <= 40 and words == words.upper() and "/" not in words
    assert words.endswith(("CALL TECH", "LLAME AL TECNICO"))


def test_every_device_a_driver_names_has_its_own_code() -> None:
    for device in DEVICE_NAMES:
        code = device_faults.lost(device)
        assert code == f"{device}_lost" and device_faults.KINDS[code].device == device
    assert device_faults.lost("coffee_machine") == "device_lost"  # never an exception


def test_the_driver_text_is_the_detail_and_the_code_is_stable() -> None:
    text = "keypad is missing: nothing at /dev/serial/by-id/usb-X (unplugged or wrong port)"
    assert translate(DeviceFault(device="keypad", message=text)) == DeviceNotice(
        "keypad", text, code="keypad_lost"
    )
    puck = translate(PuckFault(seats=(2, 5)))
    assert isinstance(puck, DeviceNotice)
    assert (puck.code, puck.seats) == ("puck_two_seats", (2, 5))
    assert translate(DeviceCleared(device="tray")) == DeviceNotice("tray", None)


def test_the_dealer_display_shows_the_words_not_the_detail() -> None:
    line1, _ = dealer_lines(IDLE, fault=device_faults.words("keypad_lost"))
    assert line1 == "KEYPAD LOST: CALL TECH"
    line1, _ = dealer_lines(IDLE, fault=device_faults.words("keypad_lost"), language="es")
    assert line1 == "TECLADO PERDIDO: LLAME AL TECNICO"
    line1, _ = dealer_lines(IDLE, fault=device_faults.words("puck_two_seats", (2, 5)))
    assert line1 == "BUTTON SEEN AT SEATS 2 5: CALL TECH"
