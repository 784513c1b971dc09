"""Every text shown to dealers and players, in English and Spanish.

A text is a *message*: a catalogue key and its arguments, ``("display.to_act",
{"seat": 7})``. ``render`` turns it into words in one language; ``display.language``
(``en`` | ``es``) picks the language in the daemon. The rules core speaks English in
its replay output (``Refusal.message``, the state's ``display``); every such text is
made from its message here, never written out where it is used, so each text has one
source.

A refusal (``refuse``) is an error code and a message: its English ``message`` and its
words in any language are both rendered from the message. A message inside another
(``MIN {verb} 40`` with ``RAISE TO``, a pot's name, a betting round's) is a ``Phrase``:
its English words, as the replay output and JSON carry them, that keep their message,
so the outer message renders them in its own language.

Rules for the catalogues (checked by ``tests/test_text.py``):

- both catalogues have the same keys, and each key the same placeholders;
- printable ASCII only, upper case: the dealer display shows 40 ASCII characters a
  line (``drivers.display``), so Spanish is written without accents or tildes.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from controller.rules.errors import Refusal

Message = tuple[str, dict[str, Any]]

LANGUAGES = ("en", "es")

#: Draw games: the betting rounds' names on the dealer display (flop games show none:
#: the board tells the dealer where the hand is).
ROUND_WORDS = {
    "predraw": "word.round_predraw",
    "draw1": "word.round_draw1",
    "draw2": "word.round_draw2",
    "draw3": "word.round_draw3",
}

EN: dict[str, str] = {
    # -- words used inside other messages ------------------------------------------
    "word.raise_to": "RAISE TO",
    "word.bet": "BET",
    "word.raise": "RAISE",
    "word.fold": "FOLD",
    "word.check": "CHECK",
    "word.call": "CALL",
    "word.all_in": "ALL IN",
    "word.check_or_fold": "CHECK OR FOLD",
    "word.call_or_fold": "CALL OR FOLD",
    "word.main_pot": "MAIN POT",
    "word.side_pot": "SIDE POT {index}",
    "word.wait": "WAIT",
    "word.post": "POST",
    "word.kill": "KILL",
    "word.keep": "KEEP",
    "word.round_predraw": "PREDRAW",
    "word.round_draw1": "DRAW 1",
    "word.round_draw2": "DRAW 2",
    "word.round_draw3": "DRAW 3",
    # -- why a seat may not raise (betting.py) ---------------------------------------
    "reason.all_chips": "CALLING TAKES ALL ITS CHIPS",
    "reason.no_answer": "NO ONE LEFT TO ANSWER A RAISE",
    "reason.not_reopened": "BETTING NOT REOPENED",
    "reason.no_check_raise": "NO CHECK-RAISE AT THIS TABLE",
    "reason.capped": "BETTING IS CAPPED",
    "reason.raises_capped": "RAISES ARE CAPPED",
    "reason.held_to_check": "CHECKED OUT OF TURN",
    # -- refusals of the rules engine -------------------------------------------------
    "refuse.already_moving": "SEAT {seat} IS ALREADY MOVING",
    "refuse.already_out": "SEAT {seat} IS ALREADY SITTING OUT",
    "refuse.already_seated": "{player} IS ALREADY IN SEAT {seat}",
    "refuse.no_chips_to_put_in": "SEAT {seat} HAS NO CHIPS TO PUT IN",
    "refuse.amount_units": "AMOUNTS IN UNITS OF {amount}",
    "refuse.chip_units": "CHIPS IN UNITS OF {amount}",
    "refuse.max_buy_in_add": "MAX BUY-IN {amount}: SEAT {seat} MAY ADD {value}",
    "refuse.stack_limit": "STACK LIMIT {amount}: SEAT {seat} MAY ADD {value}",
    "refuse.max_buy_in": "MAX BUY-IN {amount}",
    "refuse.min_buy_in_add": "MIN BUY-IN {amount}: SEAT {seat} MUST ADD AT LEAST {value}",
    "refuse.no_chips_to_play": "SEAT {seat} HAS NO CHIPS TO PLAY",
    "refuse.min_buy_in": "MIN BUY-IN {amount}",
    "refuse.max": "MAX {verb} {amount}",
    "refuse.min": "MIN {verb} {amount}",
    "refuse.more_than": "RAISE MUST BE MORE THAN {amount}",
    "refuse.seat_has_only": "SEAT {seat} HAS ONLY {amount}",
    "refuse.only_in_all": "SEAT {seat} HAS ONLY {amount} IN ALL",
    "refuse.needs_amount": "{action} NEEDS AN AMOUNT: THE TOTAL BET",
    "refuse.keep_preflop": "KEEP ONLY IN THE FIRST BETTING ROUND, FOR A PLAYER PRESENT",
    "refuse.move_must_wait": "SEAT {seat} MUST WAIT {count} HAND(S): NO POST AFTER A SEAT CHANGE",
    "refuse.dealt_in_already": "SEAT {seat} IS DEALT IN ALREADY",
    "refuse.ranking_empty": "RANKING IS EMPTY: LIST THE HANDS SHOWN, BEST FIRST",
    "refuse.not_in_hand": "SEAT {seat} IS NOT IN THE HAND",
    "refuse.ranked_twice": "SEAT {seat} IS RANKED TWICE",
    "refuse.pot_unranked": "{name} HAS NO RANKED SEAT: RANK ONE OF {seats}",
    "refuse.no_seat": "NO SEAT {seat}: SEATS ARE 1-{last}",
    "refuse.cannot_check": "CANNOT CHECK: CALL {call} OR FOLD",
    "refuse.clock_running": "CLOCK ALREADY RUNNING ON SEAT {seat}",
    "refuse.empty_seat": "SEAT {seat} IS EMPTY",
    "refuse.hand_in_play": "HAND {hand} IS STILL IN PLAY",
    "refuse.time_between_hands": "COLLECT TIME FROM SEAT {seat} BETWEEN HANDS",
    "refuse.must_post": "SEAT {seat} MUST POST MISSED BLINDS TO PLAY",
    "refuse.no_one_to_act": "NO ONE IS TO ACT",
    "refuse.needs_chips": "SEAT {seat} NEEDS CHIPS TO PLAY",
    "refuse.no_hand_to_void": "NO HAND IN PROGRESS TO VOID",
    "refuse.no_hand": "NO HAND IN PROGRESS",
    "refuse.no_straddle": "NO STRADDLE AT THIS TABLE",
    "refuse.no_straddle_heads_up": "NO STRADDLE HEADS-UP",
    "refuse.straddle_first": "STRADDLE ONLY BEFORE ANY ACTION",
    "refuse.straddle_seat": "ONLY SEAT {seat} (LEFT OF THE BIG BLIND) MAY STRADDLE",
    "refuse.straddle_needs": "STRADDLE NEEDS {amount}",
    "refuse.no_time_fee": "THIS TABLE DOES NOT CHARGE TIME",
    "refuse.two_players": "NEED TWO PLAYERS WITH CHIPS TO DEAL",
    "refuse.not_out": "SEAT {seat} IS NOT SITTING OUT",
    "refuse.not_showdown": "NO SHOWDOWN TO AWARD",
    "refuse.not_your_turn": "SEAT {seat} IS NOT TO ACT: SEAT {to_act} IS",
    "refuse.nothing_to_undo": "NO ACTION TO TAKE BACK",
    "refuse.puck_missing": "PLACE THE BUTTON PUCK TO START THE GAME",
    "refuse.no_raise": "NO RAISE: {reason}",
    "refuse.may_only": "SEAT {seat} MAY ONLY {only}: {reason}",
    "refuse.seat_taken": "SEAT {seat} IS TAKEN",
    "refuse.already_out_of_turn": "SEAT {seat} ALREADY ACTED OUT OF TURN",
    "refuse.held_to_check": "SEAT {seat} CHECKED OUT OF TURN: NO BET OR RAISE",
    "refuse.out_of_turn_since": "SEAT {seat} ACTED SINCE, OUT OF TURN",
    "refuse.tray_units": "TRAY CHIPS IN UNITS OF {amount}",
    "refuse.puck_block": "MOVE BUTTON TO SEAT {seat} FIRST",
    "refuse.transfer_between_hands": "TRANSFER ONLY BETWEEN HANDS",
    "refuse.transfer_same_seat": "TRANSFER FROM SEAT {seat} TO ANOTHER SEAT",
    # -- refusals of the keypad grammar ------------------------------------------------
    "keypad.unknown_key": "UNKNOWN KEY {key}",
    "keypad.too_long": "NUMBER TOO LONG: CLEAR",
    "keypad.leading_zero": "NUMBER CANNOT START WITH 0",
    "keypad.type_number": "TYPE THE NUMBER, THEN ENTER",
    "keypad.type_amount": "TYPE THE AMOUNT, THEN ENTER",
    "keypad.finish_bet": "FINISH THE BET WITH ENTER, OR CLEAR",
    "keypad.entry_open": "ENTRY OPEN: CLEAR FIRST",
    "keypad.idle_digits": "PRESS NEXT TO DEAL, FUNC FOR MENUS",
    "keypad.nothing_to_enter": "NOTHING TO ENTER",
    "keypad.press_action": "SEAT {seat}: PRESS FOLD, CHECK, BET OR ALLIN",
    "keypad.choose_menu": "CHOOSE A MENU: 0-9, OR CLEAR",
    "keypad.choose": "CHOOSE {choice}, OR CLEAR",
    "keypad.choose_or_page": "CHOOSE {choice}, NEXT FOR MORE, OR CLEAR",
    "keypad.confirm": "PRESS ENTER TO CONFIRM, CLEAR TO CANCEL",
    "keypad.not_in_pot": "SEAT {seat} IS NOT IN THE {name}",
    "keypad.already_winner": "SEAT {seat} IS ALREADY A WINNER",
    "keypad.pot_needs_winner": "{name} NEEDS A WINNER: ONE OF {seats}",
    "keypad.award_keys": "SEAT, ENTER; ENTER ALONE ENDS THE POT",
    "keypad.push_needs_chips": "KEY EACH CHIP, THEN ENTER",
    "keypad.push_keys": "CHIP ENTER; THEN CHECK, BET OR ENTER",
    "keypad.pin_unavailable": "PIN CHECK NOT AVAILABLE",
    "keypad.hidden_digit": "A HIDDEN DIGIT ONLY IN A PIN",
    "keypad.locked": "SUPERVISOR MENU LOCKED: {seconds} S",
    "keypad.locked_clear": "SUPERVISOR MENU LOCKED: CLEAR",
    "keypad.need_id": "TYPE YOUR ID, THEN ENTER",
    "keypad.fill_needs_chips": "KEY A CHIP VALUE AND ITS COUNT",
    # -- choices offered in prompts --------------------------------------------------
    "choice.wait_post": "1 WAIT 2 POST",
    "choice.kill_keep": "1 KILL 2 KEEP",
    "choice.supervisor": "1-7",
    "choice.transfer_reason": "1 2 OR 3",
    # -- the dealer display: what happens next ------------------------------------------
    "display.ready": "READY",
    "display.hand": "HAND {hand}",
    "display.to_act": "SEAT {seat} TO ACT",
    "display.round_to_act": "{round}: SEAT {seat} TO ACT",
    "display.check": "CHECK",
    "display.call": "CALL {amount}",
    "display.call_all_in": "CALL {amount} ALL IN",
    "display.showdown": "SHOWDOWN: WINNING SEAT, ENTER",
    "display.show_order": "SHOW: {seats}",
    "display.show_order_pots": "SHOW: {seats}  NEXT: POTS",
    "display.more_pots": "{situation}  NEXT: POTS",
    "display.pay": "PAY SEAT {seat}: {amount}",
    "display.pay_deal": "{name}  NEXT: DEAL",
    "display.pay_more": "{name} {page}/{pages}  NEXT: MORE",
    "display.pay_last": "{name} {page}/{pages}  NEXT: DEAL",
    "display.pot_page": "{name} {amount} ({page}/{pages})",
    "display.pot_seats": "SEATS {seats}",
    "display.out_of_turn": "SEAT {seat} {action} OUT OF TURN",
    # -- keypad prompts -------------------------------------------------------------------
    "prompt.typed": "{digits}_",
    "prompt.bet": "SEAT {seat} BET/RAISE TO",
    "prompt.round_bet": "{round}: SEAT {seat} BET/RAISE TO",
    "prompt.seat_action": "SEAT {digits}_",
    "prompt.seat_action_keys": "FOLD CHECK BET ALLIN",
    "prompt.func_1": "1 SEAT 2 OUT 3 IN 4 LEAVE 5 CHIPS",
    "prompt.func_2": "6 MOVE 7 AWARD 8 DEALER 9 PUSH 0 SUPER",
    "prompt.sit_seat": "SEAT PLAYER: SEAT",
    "prompt.sit_chips": "SEAT {seat}: CHIPS",
    "prompt.sit_player": "SEAT {seat}: CARD (ENTER: NONE)",
    "prompt.sit_entry": "SEAT {seat} {chips}: 1 WAIT 2 POST",
    "prompt.player": "PLAYER {player}",
    "prompt.sit_out_seat": "SIT OUT: SEAT",
    "prompt.sit_in_seat": "SIT IN: SEAT",
    "prompt.sit_in_entry": "SEAT {seat} SIT IN: 1 WAIT 2 POST",
    "prompt.leave_seat": "LEAVE: SEAT",
    "prompt.leave_confirm": "SEAT {seat} LEAVES: ENTER",
    "prompt.chips_seat": "BUY CHIPS: SEAT",
    "prompt.chips_amount": "SEAT {seat} BUYS: AMOUNT",
    "prompt.chips_entry": "SEAT {seat} +{amount}: 1 WAIT 2 POST",
    "prompt.move_from": "MOVE: FROM SEAT",
    "prompt.move_to": "MOVE SEAT {seat}: TO SEAT",
    "prompt.move_entry": "SEAT {seat_from} TO {seat_to}: 1 WAIT 2 POST",
    "prompt.award": "{name} {amount}: WINNER",
    "prompt.award_winners": "WON: {seats} {digits}_",
    "prompt.award_of": "ONE OF {seats}: {digits}_",
    "prompt.sign_in": "DEALER SIGN-IN: ID (ENTER ALONE: OUT)",
    "prompt.push": "SEAT {seat} PUSHED: {pile}",
    "prompt.push_keys": "CHIP ENTER; CHECK=CALL BET=RAISE",
    "prompt.supervisor_id": "SUPERVISOR: ID",
    "prompt.pin": "SUPERVISOR {supervisor}: PIN",
    "prompt.pin_typed": "{stars}_",
    "prompt.supervisor_1": "1 VOID HAND  2 UNDO LAST ACTION",
    "prompt.supervisor_2": "3 DEALT IN ERROR  NEXT: MORE",
    "prompt.supervisor_3": "4 TRAY FILL  5 TRAY CREDIT",
    "prompt.supervisor_4": "6 TRAY ACK  7 TRANSFER  NEXT: BACK",
    "prompt.transfer_from": "TRANSFER: FROM SEAT",
    "prompt.transfer_to": "TRANSFER FROM SEAT {seat}: TO SEAT",
    "prompt.transfer_amount": "SEAT {seat_from} TO SEAT {seat_to}: AMOUNT",
    "prompt.transfer_reason": "MOVE {amount} SEAT {seat_from} TO {seat_to}: WHY",
    "prompt.transfer_reasons": "1 WRONG PAYOUT 2 MISPLACED 3 OTHER",
    "prompt.transfer_confirm": "MOVE {amount} SEAT {seat_from} TO {seat_to}",
    "prompt.void": "VOID HAND {hand}: ENTER",
    "prompt.undo": "TAKE BACK SEAT {seat} {action}: ENTER",
    "prompt.b11_seat": "DEALT IN ERROR: SEAT",
    "prompt.b11_ruling": "SEAT {seat}: 1 KILL 2 KEEP",
    "prompt.fill_value": "{action}: CHIP VALUE (ENTER: DONE)",
    "prompt.fill_count": "{action}: COUNT OF {value}",
    "prompt.fill_total": "TOTAL {amount}",
    "prompt.tray_ack": "ACKNOWLEDGE TRAY: ENTER",
    "prompt.confirm_keys": "ENTER=YES CLEAR=NO",
    "prompt.enter_wait": "ENTER ALONE: WAIT",
    "prompt.enter_house": "ENTER ALONE: HOUSE RULE",
    "prompt.cancel": "CLEAR: CANCEL",
    "word.fill": "FILL",
    "word.credit": "CREDIT",
    # -- notices after a key ----------------------------------------------------------------
    "notice.wrong_pin": "WRONG PIN: {tries} TRIES LEFT",
    "notice.wrong_pin_last": "WRONG PIN: 1 TRY LEFT",
    "notice.locked": "WRONG PIN: MENU LOCKED {seconds} S",
    "notice.dealer_in": "DEALER {dealer} SIGNED IN",
    "notice.dealer_out": "DEALER SIGNED OUT",
    "notice.tray_ack": "TRAY ACKNOWLEDGED BY SUPERVISOR {supervisor}",
    "notice.pushed": "READ AS {action} ({rule})",
    "notice.pushed_to": "READ AS {action} TO {amount} ({rule})",
    "notice.transferred": "MOVED {amount} SEAT {seat_from} TO {seat_to}",
    # -- lights, clock, puck, tray, faults (controller.lights, .puck, .tray) -----------------
    "clock.expired": "TIME: SEAT {seat} {action}",
    "puck.move": "MOVE BUTTON TO SEAT {seat}",
    "puck.place": "PLACE BUTTON ON SEAT {seat}",
    "puck.two_seats": "BUTTON SEEN AT SEATS {seats}",
    "tray.alarm": "TRAY OFF BY {difference}: CALL SUPERVISOR",
    "fault.line": "FAULT: {what}",
    "fault.keypad_lost": "KEYPAD LOST: CALL TECH",
    "fault.tray_lost": "CHIP TRAY LOST: CALL TECH",
    "fault.display_lost": "DISPLAY LOST: CALL TECH",
    "fault.puck_lost": "BUTTON SENSOR LOST: CALL TECH",
    "fault.lights_lost": "SEAT LIGHTS LOST: CALL TECH",
    "fault.puck_two_seats": "BUTTON SEEN AT SEATS {seats}: CALL TECH",
    "fault.device_lost": "DEVICE LOST: CALL TECH",
    # the sticky faults that lock play (controller.fault_words): the call, then the name
    "fault.lock.fault": "FAULT: CALL TECHNICIAN",
    "fault.lock.memory_fault": "MEMORY FAULT: CALL TECHNICIAN",
    "fault.lock.storage_fault": "STORAGE FAULT: CALL TECHNICIAN",
    "fault.lock.software_fault": "SOFTWARE FAULT: CALL TECHNICIAN",
    "fault.name.fault": "FAULT",
    "fault.name.journal_error": "JOURNAL FAULT",
    "fault.name.journal_busy": "JOURNAL IN USE",
    "fault.name.journal_not_found": "NO JOURNAL",
    "fault.name.config_mismatch": "CONFIG DIFFERS",
    "fault.name.journal_integrity": "MEMORY FAULT",
    "fault.name.journal_corrupt": "MEMORY FAULT DB",
    "fault.name.chain_broken": "MEMORY FAULT CHAIN",
    "fault.name.torn_tail": "MEMORY FAULT TAIL",
    "fault.name.ack_mark_lost": "MEMORY FAULT ACK",
    "fault.name.journal_foreign": "MEMORY FAULT TABLE",
    "fault.name.snapshot_missing": "MEMORY FAULT SNAP",
    "fault.name.snapshot_unreadable": "MEMORY FAULT SNAP",
    "fault.name.replay_diverged": "MEMORY FAULT REPLAY",
    "fault.name.config_unreadable": "MEMORY FAULT CONFIG",
    "fault.name.storage_fault": "STORAGE FAULT",
    "fault.name.storage_full": "STORAGE FULL",
    "fault.name.storage_read_only": "STORAGE READ-ONLY",
    "fault.name.storage_not_writable": "STORAGE NO ACCESS",
    "fault.name.software_fault": "SOFTWARE FAULT",
    "fault.name.software_modified": "SOFTWARE MODIFIED",
    "refused.line": "NO: {reason}",
}

ES: dict[str, str] = {
    "word.raise_to": "SUBIR A",
    "word.bet": "APOSTAR",
    "word.raise": "SUBIR",
    "word.fold": "NO VA",
    "word.check": "PASA",
    "word.call": "IGUALA",
    "word.all_in": "TODO",
    "word.check_or_fold": "PASAR O NO IR",
    "word.call_or_fold": "IGUALAR O NO IR",
    "word.main_pot": "BOTE PRINCIPAL",
    "word.side_pot": "BOTE LATERAL {index}",
    "word.wait": "ESPERA",
    "word.post": "PAGA",
    "word.kill": "MUERTA",
    "word.keep": "SIGUE",
    "word.round_predraw": "PRE-DESCARTE",
    "word.round_draw1": "DESCARTE 1",
    "word.round_draw2": "DESCARTE 2",
    "word.round_draw3": "DESCARTE 3",
    "reason.all_chips": "IGUALAR LE CUESTA TODAS SUS FICHAS",
    "reason.no_answer": "NADIE PUEDE RESPONDER A UNA SUBIDA",
    "reason.not_reopened": "LA APUESTA NO SE HA REABIERTO",
    "reason.no_check_raise": "SIN PASAR Y SUBIR EN ESTA MESA",
    "reason.capped": "APUESTAS AL TOPE",
    "reason.raises_capped": "SUBIDAS AL TOPE",
    "reason.held_to_check": "PASO FUERA DE TURNO",
    "refuse.already_moving": "EL ASIENTO {seat} YA SE ESTA CAMBIANDO",
    "refuse.already_out": "EL ASIENTO {seat} YA ESTA AUSENTE",
    "refuse.already_seated": "{player} YA ESTA EN EL ASIENTO {seat}",
    "refuse.no_chips_to_put_in": "EL ASIENTO {seat} NO TIENE FICHAS",
    "refuse.amount_units": "CANTIDADES EN UNIDADES DE {amount}",
    "refuse.chip_units": "FICHAS EN UNIDADES DE {amount}",
    "refuse.max_buy_in_add": "COMPRA MAXIMA {amount}: ASIENTO {seat} PUEDE SUMAR {value}",
    "refuse.stack_limit": "LIMITE DE FICHAS {amount}: ASIENTO {seat} PUEDE SUMAR {value}",
    "refuse.max_buy_in": "COMPRA MAXIMA {amount}",
    "refuse.min_buy_in_add": "COMPRA MINIMA {amount}: ASIENTO {seat} DEBE SUMAR {value} O MAS",
    "refuse.no_chips_to_play": "EL ASIENTO {seat} NO TIENE FICHAS PARA JUGAR",
    "refuse.min_buy_in": "COMPRA MINIMA {amount}",
    "refuse.max": "MAXIMO {verb} {amount}",
    "refuse.min": "MINIMO {verb} {amount}",
    "refuse.more_than": "LA SUBIDA DEBE SUPERAR {amount}",
    "refuse.seat_has_only": "EL ASIENTO {seat} SOLO TIENE {amount}",
    "refuse.only_in_all": "EL ASIENTO {seat} SOLO TIENE {amount} EN TOTAL",
    "refuse.needs_amount": "{action} NECESITA CANTIDAD: LA APUESTA TOTAL",
    "refuse.keep_preflop": "SEGUIR SOLO EN LA PRIMERA RONDA, CON EL JUGADOR PRESENTE",
    "refuse.move_must_wait": "EL ASIENTO {seat} DEBE ESPERAR {count} MANO(S): SIN PAGAR TRAS CAMBIO",
    "refuse.dealt_in_already": "EL ASIENTO {seat} YA TIENE CARTAS",
    "refuse.ranking_empty": "ORDEN VACIO: MANOS MOSTRADAS, LA MEJOR PRIMERO",
    "refuse.not_in_hand": "EL ASIENTO {seat} NO ESTA EN LA MANO",
    "refuse.ranked_twice": "EL ASIENTO {seat} ESTA DOS VECES",
    "refuse.pot_unranked": "{name} SIN GANADOR: UNO DE {seats}",
    "refuse.no_seat": "NO HAY ASIENTO {seat}: ASIENTOS 1-{last}",
    "refuse.cannot_check": "NO PUEDE PASAR: IGUALA {call} O NO VA",
    "refuse.clock_running": "RELOJ YA EN MARCHA EN ASIENTO {seat}",
    "refuse.empty_seat": "EL ASIENTO {seat} ESTA VACIO",
    "refuse.hand_in_play": "LA MANO {hand} SIGUE EN JUEGO",
    "refuse.time_between_hands": "COBRAR TIEMPO AL ASIENTO {seat} ENTRE MANOS",
    "refuse.must_post": "EL ASIENTO {seat} DEBE PAGAR CIEGAS PARA JUGAR",
    "refuse.no_one_to_act": "NADIE DEBE HABLAR",
    "refuse.needs_chips": "EL ASIENTO {seat} NECESITA FICHAS",
    "refuse.no_hand_to_void": "NO HAY MANO QUE ANULAR",
    "refuse.no_hand": "NO HAY MANO EN JUEGO",
    "refuse.no_straddle": "SIN STRADDLE EN ESTA MESA",
    "refuse.no_straddle_heads_up": "SIN STRADDLE MANO A MANO",
    "refuse.straddle_first": "STRADDLE SOLO ANTES DE HABLAR",
    "refuse.straddle_seat": "SOLO EL ASIENTO {seat} (IZQ. CIEGA GRANDE) HACE STRADDLE",
    "refuse.straddle_needs": "EL STRADDLE ES {amount}",
    "refuse.no_time_fee": "ESTA MESA NO COBRA TIEMPO",
    "refuse.two_players": "FALTAN DOS JUGADORES CON FICHAS",
    "refuse.not_out": "EL ASIENTO {seat} NO ESTA AUSENTE",
    "refuse.not_showdown": "NO HAY MANO QUE ADJUDICAR",
    "refuse.not_your_turn": "NO HABLA EL {seat}: HABLA EL {to_act}",
    "refuse.nothing_to_undo": "NO HAY ACCION QUE DESHACER",
    "refuse.puck_missing": "PONGA EL BOTON PARA EMPEZAR",
    "refuse.no_raise": "SIN SUBIDA: {reason}",
    "refuse.may_only": "EL ASIENTO {seat} SOLO PUEDE {only}: {reason}",
    "refuse.seat_taken": "EL ASIENTO {seat} ESTA OCUPADO",
    "refuse.already_out_of_turn": "EL ASIENTO {seat} YA HABLO FUERA DE TURNO",
    "refuse.held_to_check": "EL ASIENTO {seat} PASO FUERA DE TURNO: NO APUESTA",
    "refuse.out_of_turn_since": "EL {seat} HABLO DESPUES, FUERA DE TURNO",
    "refuse.tray_units": "FICHAS DE BANCA EN UNIDADES DE {amount}",
    "refuse.puck_block": "MUEVA EL BOTON AL ASIENTO {seat} ANTES",
    "refuse.transfer_between_hands": "MOVER FICHAS SOLO ENTRE MANOS",
    "refuse.transfer_same_seat": "MOVER DEL ASIENTO {seat} A OTRO ASIENTO",
    "keypad.unknown_key": "TECLA DESCONOCIDA {key}",
    "keypad.too_long": "NUMERO DEMASIADO LARGO: BORRE",
    "keypad.leading_zero": "EL NUMERO NO EMPIEZA POR 0",
    "keypad.type_number": "TECLEE EL NUMERO Y ENTER",
    "keypad.type_amount": "TECLEE LA CANTIDAD Y ENTER",
    "keypad.finish_bet": "TERMINE LA APUESTA CON ENTER O BORRE",
    "keypad.entry_open": "ENTRADA ABIERTA: BORRE ANTES",
    "keypad.idle_digits": "NEXT PARA REPARTIR, FUNC PARA MENUS",
    "keypad.nothing_to_enter": "NADA QUE ENTRAR",
    "keypad.press_action": "ASIENTO {seat}: FOLD, CHECK, BET O ALLIN",
    "keypad.choose_menu": "ELIJA MENU: 0-9, O BORRE",
    "keypad.choose": "ELIJA {choice}, O BORRE",
    "keypad.choose_or_page": "ELIJA {choice}, NEXT PARA MAS, O BORRE",
    "keypad.confirm": "ENTER PARA CONFIRMAR, CLEAR CANCELA",
    "keypad.not_in_pot": "EL ASIENTO {seat} NO ESTA EN EL {name}",
    "keypad.already_winner": "EL ASIENTO {seat} YA ES GANADOR",
    "keypad.pot_needs_winner": "{name} NECESITA GANADOR: UNO DE {seats}",
    "keypad.award_keys": "ASIENTO, ENTER; ENTER SOLO CIERRA EL BOTE",
    "keypad.push_needs_chips": "TECLEE CADA FICHA Y ENTER",
    "keypad.push_keys": "FICHA ENTER; LUEGO CHECK, BET O ENTER",
    "keypad.pin_unavailable": "NO SE PUEDE COMPROBAR EL PIN",
    "keypad.hidden_digit": "DIGITO OCULTO SOLO EN UN PIN",
    "keypad.locked": "MENU DE SUPERVISOR BLOQUEADO: {seconds} S",
    "keypad.locked_clear": "MENU DE SUPERVISOR BLOQUEADO: BORRE",
    "keypad.need_id": "TECLEE SU NUMERO Y ENTER",
    "keypad.fill_needs_chips": "TECLEE VALOR DE FICHA Y CANTIDAD",
    "choice.wait_post": "1 ESPERA 2 PAGA",
    "choice.kill_keep": "1 MUERTA 2 SIGUE",
    "choice.supervisor": "1-7",
    "choice.transfer_reason": "1 2 O 3",
    "display.ready": "LISTO",
    "display.hand": "MANO {hand}",
    "display.to_act": "HABLA EL ASIENTO {seat}",
    "display.round_to_act": "{round}: HABLA EL ASIENTO {seat}",
    "display.check": "PASA",
    "display.call": "IGUALA {amount}",
    "display.call_all_in": "IGUALA {amount} TODO",
    "display.showdown": "DESCUBRIR: ASIENTO GANADOR, ENTER",
    "display.show_order": "MUESTRAN: {seats}",
    "display.show_order_pots": "MUESTRAN: {seats}  NEXT: BOTES",
    "display.more_pots": "{situation}  NEXT: BOTES",
    "display.pay": "PAGUE AL ASIENTO {seat}: {amount}",
    "display.pay_deal": "{name}  NEXT: REPARTIR",
    "display.pay_more": "{name} {page}/{pages}  NEXT: MAS",
    "display.pay_last": "{name} {page}/{pages}  NEXT: REPARTIR",
    "display.pot_page": "{name} {amount} ({page}/{pages})",
    "display.pot_seats": "ASIENTOS {seats}",
    "display.out_of_turn": "ASIENTO {seat} {action} FUERA DE TURNO",
    "prompt.typed": "{digits}_",
    "prompt.bet": "ASIENTO {seat} APUESTA/SUBE A",
    "prompt.round_bet": "{round}: ASIENTO {seat} APUESTA/SUBE A",
    "prompt.seat_action": "ASIENTO {digits}_",
    "prompt.seat_action_keys": "FOLD CHECK BET ALLIN",
    "prompt.func_1": "1 SENTAR 2 AUS 3 VUELVE 4 SALE 5 COMPRA",
    "prompt.func_2": "6 CAMBIO 7 BOTE 8 CRUP 9 EMPUJE 0 SUP",
    "prompt.sit_seat": "SENTAR JUGADOR: ASIENTO",
    "prompt.sit_chips": "ASIENTO {seat}: FICHAS",
    "prompt.sit_player": "ASIENTO {seat}: TARJETA (ENTER: NINGUNA)",
    "prompt.sit_entry": "ASIENTO {seat} {chips}: 1 ESPERA 2 PAGA",
    "prompt.player": "JUGADOR {player}",
    "prompt.sit_out_seat": "AUSENTE: ASIENTO",
    "prompt.sit_in_seat": "VUELVE: ASIENTO",
    "prompt.sit_in_entry": "ASIENTO {seat} VUELVE: 1 ESPERA 2 PAGA",
    "prompt.leave_seat": "SALE: ASIENTO",
    "prompt.leave_confirm": "SALE EL ASIENTO {seat}: ENTER",
    "prompt.chips_seat": "COMPRA FICHAS: ASIENTO",
    "prompt.chips_amount": "ASIENTO {seat} COMPRA: CANTIDAD",
    "prompt.chips_entry": "ASIENTO {seat} +{amount}: 1 ESPERA 2 PAGA",
    "prompt.move_from": "CAMBIO: DEL ASIENTO",
    "prompt.move_to": "CAMBIO DEL {seat}: AL ASIENTO",
    "prompt.move_entry": "DEL {seat_from} AL {seat_to}: 1 ESPERA 2 PAGA",
    "prompt.award": "{name} {amount}: GANADOR",
    "prompt.award_winners": "GANAN: {seats} {digits}_",
    "prompt.award_of": "UNO DE {seats}: {digits}_",
    "prompt.sign_in": "CRUPIER: NUMERO (ENTER SOLO: SALE)",
    "prompt.push": "ASIENTO {seat} EMPUJA: {pile}",
    "prompt.push_keys": "FICHA ENTER; CHECK=IGUALA BET=SUBE",
    "prompt.supervisor_id": "SUPERVISOR: NUMERO",
    "prompt.pin": "SUPERVISOR {supervisor}: PIN",
    "prompt.pin_typed": "{stars}_",
    "prompt.supervisor_1": "1 ANULAR MANO  2 DESHACER ACCION",
    "prompt.supervisor_2": "3 CARTAS POR ERROR  NEXT: MAS",
    "prompt.supervisor_3": "4 RELLENO BANCA  5 CREDITO BANCA",
    "prompt.supervisor_4": "6 BANCA OK  7 MOVER  NEXT: VOLVER",
    "prompt.transfer_from": "MOVER FICHAS: DEL ASIENTO",
    "prompt.transfer_to": "MOVER DEL ASIENTO {seat}: AL ASIENTO",
    "prompt.transfer_amount": "DEL ASIENTO {seat_from} AL {seat_to}: CANTIDAD",
    "prompt.transfer_reason": "MOVER {amount} DEL {seat_from} AL {seat_to}: MOTIVO",
    "prompt.transfer_reasons": "1 PAGO ERRADO 2 FICHAS MAL 3 OTRO",
    "prompt.transfer_confirm": "MOVER {amount} DEL {seat_from} AL {seat_to}",
    "prompt.void": "ANULAR MANO {hand}: ENTER",
    "prompt.undo": "DESHACER ASIENTO {seat} {action}: ENTER",
    "prompt.b11_seat": "CARTAS POR ERROR: ASIENTO",
    "prompt.b11_ruling": "ASIENTO {seat}: 1 MUERTA 2 SIGUE",
    "prompt.fill_value": "{action}: VALOR FICHA (ENTER: FIN)",
    "prompt.fill_count": "{action}: CUANTAS DE {value}",
    "prompt.fill_total": "TOTAL {amount}",
    "prompt.tray_ack": "DAR POR BUENA LA BANCA: ENTER",
    "prompt.confirm_keys": "ENTER=SI CLEAR=NO",
    "prompt.enter_wait": "ENTER SOLO: ESPERA",
    "prompt.enter_house": "ENTER SOLO: REGLA DE LA CASA",
    "prompt.cancel": "CLEAR: CANCELAR",
    "word.fill": "RELLENO",
    "word.credit": "CREDITO",
    "notice.wrong_pin": "PIN ERRONEO: QUEDAN {tries} INTENTOS",
    "notice.wrong_pin_last": "PIN ERRONEO: QUEDA 1 INTENTO",
    "notice.locked": "PIN ERRONEO: MENU BLOQUEADO {seconds} S",
    "notice.dealer_in": "CRUPIER {dealer} ENTRA",
    "notice.dealer_out": "CRUPIER SALE",
    "notice.tray_ack": "BANCA DADA POR BUENA: SUPERVISOR {supervisor}",
    "notice.pushed": "LEIDO COMO {action} ({rule})",
    "notice.pushed_to": "LEIDO COMO {action} A {amount} ({rule})",
    "notice.transferred": "MOVIDAS {amount} DEL {seat_from} AL {seat_to}",
    "clock.expired": "TIEMPO: ASIENTO {seat} {action}",
    "puck.move": "MUEVA EL BOTON AL ASIENTO {seat}",
    "puck.place": "PONGA EL BOTON EN EL ASIENTO {seat}",
    "puck.two_seats": "BOTON VISTO EN ASIENTOS {seats}",
    "tray.alarm": "BANCA DESCUADRADA {difference}: SUPERVISOR",
    "fault.line": "FALLO: {what}",
    "fault.keypad_lost": "TECLADO PERDIDO: LLAME AL TECNICO",
    "fault.tray_lost": "BANCA PERDIDA: LLAME AL TECNICO",
    "fault.display_lost": "PANTALLA PERDIDA: LLAME AL TECNICO",
    "fault.puck_lost": "SENSOR BOTON PERDIDO: LLAME AL TECNICO",
    "fault.lights_lost": "LUCES PERDIDAS: LLAME AL TECNICO",
    "fault.puck_two_seats": "BOTON EN ASIENTOS {seats}: LLAME AL TECNICO",
    "fault.device_lost": "APARATO PERDIDO: LLAME AL TECNICO",
    "fault.lock.fault": "FALLO: LLAME AL TECNICO",
    "fault.lock.memory_fault": "FALLO DE MEMORIA: LLAME AL TECNICO",
    "fault.lock.storage_fault": "FALLO ALMACENAMIENTO: LLAME AL TECNICO",
    "fault.lock.software_fault": "FALLO DE SOFTWARE: LLAME AL TECNICO",
    "fault.name.fault": "FALLO",
    "fault.name.journal_error": "FALLO DEL REGISTRO",
    "fault.name.journal_busy": "REGISTRO EN USO",
    "fault.name.journal_not_found": "SIN REGISTRO",
    "fault.name.config_mismatch": "CONFIGURACION DISTINTA",
    "fault.name.journal_integrity": "FALLO DE MEMORIA",
    "fault.name.journal_corrupt": "FALLO DE MEMORIA BD",
    "fault.name.chain_broken": "FALLO DE MEMORIA CADENA",
    "fault.name.torn_tail": "FALLO DE MEMORIA FINAL",
    "fault.name.ack_mark_lost": "FALLO DE MEMORIA MARCA",
    "fault.name.journal_foreign": "FALLO DE MEMORIA MESA",
    "fault.name.snapshot_missing": "FALLO DE MEMORIA FOTO",
    "fault.name.snapshot_unreadable": "FALLO DE MEMORIA FOTO",
    "fault.name.replay_diverged": "FALLO DE MEMORIA REPETICION",
    "fault.name.config_unreadable": "FALLO DE MEMORIA CONFIG",
    "fault.name.storage_fault": "FALLO DE ALMACENAMIENTO",
    "fault.name.storage_full": "ALMACENAMIENTO LLENO",
    "fault.name.storage_read_only": "ALMACENAMIENTO SOLO LECTURA",
    "fault.name.storage_not_writable": "ALMACENAMIENTO SIN ACCESO",
    "fault.name.software_fault": "FALLO DE SOFTWARE",
    "fault.name.software_modified": "SOFTWARE MODIFICADO",
    "refused.line": "NO: {reason}",
}

CATALOGUES: Mapping[str, Mapping[str, str]] = {"en": EN, "es": ES}


def round_word(phase: str) -> Phrase | None:
    """The name of a draw game's betting round (``DRAW 1``), else None."""
    key = ROUND_WORDS.get(phase)
    return phrase(key) if key is not None else None


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def msg(key: str, /, **args: Any) -> Message:
    """A message; an unknown key is a programming error, raised at once."""
    if key not in EN:
        raise KeyError(f"no text {key!r} in the catalogue")
    return key, args


def render(message: Message, language: str = "en") -> str:
    key, args = message
    catalogue = CATALOGUES.get(language, EN)
    template = catalogue.get(key) or EN[key]
    values = {
        name: (render(value.message, language) if isinstance(value, Phrase) else value)
        for name, value in args.items()
    }
    return template.format(**values)


class Phrase(str):
    """A message used inside another message: the English words (what the replay
    output, the journal and JSON hold), keeping the message they were rendered from so
    that ``render`` shows them in the outer message's language."""

    message: Message

    def __new__(cls, message: Message) -> Phrase:
        self = super().__new__(cls, render(message))
        self.message = message
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # copies and pickles keep the message
        return Phrase, (self.message,)


def phrase(key: str, /, **args: Any) -> Phrase:
    """The message ``key`` as an argument of another message."""
    return Phrase(msg(key, **args))


def refuse(code: str, key: str, /, **args: Any) -> Refusal:
    """A refusal (raise it): the replay contract's ``code``, and the catalogue message
    its English ``message`` and its words in every language are made from."""
    message = msg(key, **args)
    return Refusal(code, render(message), key=key, key_args=args)


def refusal_message(refusal: Refusal) -> Message | None:
    """The catalogue message of a refusal of the rules; None for a malformed event
    (``BadEvent``), whose message quotes the line and is shown as it is."""
    return (refusal.key, refusal.key_args) if refusal.key is not None else None


def refusal_text(refusal: Refusal, language: str) -> str:
    """A refusal's words in ``language``."""
    said = refusal_message(refusal)
    return render(said, language) if said is not None else refusal.message


def to_json(message: Message) -> list[Any]:
    """A message as JSON: a ``Phrase`` argument stays a string, its English words
    (the state view's ``display_text``)."""
    key, args = message
    return [key, dict(args)]


def to_record(message: Message) -> list[Any]:
    """A message to keep in the table's state (journal snapshots): a ``Phrase``
    argument kept as its message, so that it is shown in any language after a restart."""
    key, args = message
    return [
        key,
        {
            name: ({"phrase": to_record(value.message)} if isinstance(value, Phrase) else value)
            for name, value in args.items()
        },
    ]


def from_json(data: Any) -> Message:
    """A message from ``to_json`` or ``to_record``."""
    key, args = data
    return str(key), {
        name: (Phrase(from_json(value["phrase"])) if isinstance(value, dict) else value)
        for name, value in dict(args).items()
    }
