"""The floor board's page: one HTML document with its CSS and JavaScript, no build step.

The page opens `/events` (server-sent events, `board_server.py`) and keeps one card per
table: a `snapshot` replaces every card, a `card` replaces one, `broker` says whether
the board still hears its broker. Between messages it counts the running action clocks
down (a clock the board says is not `running`, a stopped table's, stands still)
and ages "heard ... ago" from the figures the last message gave, against the page's
own clock (so a browser whose clock differs from the board's still counts right). The
text scales with the window; with many tables it shrinks until every card fits the
screen (a wall display shows 40), but not below a readable size (a laptop scrolls).
Table data is only ever set as text (`textContent`), never as HTML.

Element ids and classes are stable (the browser test and a house's own CSS rely on
them): `#card-<table id>` (classes `alarm`, `warn`, `clock-warning`; `data-seq`: the
journal seq of the state shown, for `bench/floor.py`), and inside it
`.table-id`, `.game`, `.hand`, `.pot`, `.to-act`, `.clock`, `.open-seats`, `.alarms`,
`.heard`; `#broker` (the board's broker link), `#link` (the page's link to the board),
`#summary`.
"""

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Floor board</title>
<style>
  html { font-size: 16px; }
  body { margin: 0; font-family: system-ui, sans-serif; background: #111; color: #eee; }
  header.top { display: flex; gap: 1.5rem; align-items: baseline; padding: .5rem 1rem;
               background: #222; position: sticky; top: 0; }
  header.top h1 { font-size: 1.3rem; margin: 0; }
  #summary { color: #bbb; }
  .banner { display: none; padding: .3rem .8rem; border-radius: .3rem; font-weight: bold;
            background: #b00; color: #fff; }
  .banner.shown { display: inline-block; }
  main { display: grid; gap: .6rem; padding: .6rem;
         grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); }
  .card { background: #1d2a1d; border: .15rem solid #2f4f2f; border-radius: .5rem;
          padding: .5rem .7rem; display: flex; flex-direction: column; gap: .15rem;
          min-width: 0; overflow-wrap: anywhere; }
  .card.warn { border-color: #c90; }
  .card.alarm { background: #5a0d0d; border-color: #f33; }
  .card .head { display: flex; justify-content: space-between; align-items: baseline; }
  .table-id { font-size: 1.5rem; font-weight: bold; }
  .game { color: #bbb; }
  .pot { font-size: 1.2rem; }
  .clock { font-size: 1.4rem; font-weight: bold; color: #7cf; }
  .card.clock-warning .clock { color: #ff0; }
  .clock:empty, .to-act:empty, .open-seats:empty { display: none; }
  .alarms { margin: .2rem 0 0; padding: 0; list-style: none; font-weight: bold; }
  .alarms li.alarm { color: #fff; background: #c00; padding: .1rem .3rem; margin-top: .1rem; }
  .alarms li.warn { color: #111; background: #fc3; padding: .1rem .3rem; margin-top: .1rem; }
  .heard { color: #999; font-size: .85rem; margin-top: auto; }
</style>
</head>
<body>
<header class="top">
  <h1>Floor board</h1>
  <span id="summary">waiting for the tables</span>
  <span id="broker" class="banner">BROKER LOST: RECONNECTING</span>
  <span id="link" class="banner">BOARD LOST: RECONNECTING</span>
</header>
<main id="cards"></main>
<script>
"use strict";
const cards = new Map();  // table id -> {data, at: page time the data arrived}
const grid = document.getElementById("cards");

function el(tag, cls) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  return node;
}

function cardNode(id) {
  let node = document.getElementById("card-" + id);
  if (node) return node;
  node = el("section", "card");
  node.id = "card-" + id;
  node.dataset.table = id;
  const head = el("div", "head");
  head.append(el("span", "table-id"), el("span", "game"));
  node.append(head, el("div", "hand"), el("div", "pot"), el("div", "to-act"),
              el("div", "clock"), el("div", "open-seats"), el("ul", "alarms"),
              el("div", "heard"));
  // keep the cards in table order
  const after = [...grid.children].find(c => order(c.dataset.table) > order(id));
  grid.insertBefore(node, after || null);
  return node;
}

function order(id) {
  const digits = id.replace(/\\D/g, "");
  return id.replace(/\\d/g, "") + "\\u0000" + (digits ? digits.padStart(8, "0") : "") + id;
}

function text(node, cls, value) { node.querySelector("." + cls).textContent = value; }

function render(id) {
  const entry = cards.get(id);
  const c = entry.data;
  const node = cardNode(id);
  node.dataset.seq = c.seq == null ? "" : String(c.seq);
  text(node, "table-id", c.table_id);
  text(node, "game", c.game || "");
  const phase = (c.phase || "").toUpperCase();
  text(node, "hand", c.hand ? "HAND " + c.hand + (phase ? " \\u00b7 " + phase : "") :
                     (phase ? phase : "NO HAND YET"));
  text(node, "pot", c.pot ? "POT " + c.pot : "");
  text(node, "to-act", c.to_act ? "SEAT " + c.to_act + " TO ACT" +
                       (c.to_act_player ? " (" + c.to_act_player + ")" : "") : "");
  text(node, "open-seats", c.seats == null ? "" :
       (c.open_seats.length ? "OPEN SEATS: " + c.open_seats.join(" ") : "TABLE FULL"));
  const list = node.querySelector(".alarms");
  list.replaceChildren(...c.alarms.map(a => {
    const li = el("li", a.level);
    li.textContent = a.text;
    li.dataset.code = a.code;
    return li;
  }));
  node.classList.toggle("alarm", c.alarm);
  node.classList.toggle("warn", !c.alarm && c.alarms.length > 0);
  tickCard(id);
}

function tickCard(id) {
  const entry = cards.get(id);
  const c = entry.data;
  const node = cardNode(id);
  const since = performance.now() - entry.at;
  const clock = node.querySelector(".clock");
  if (c.clock) {
    // a stopped table's clock stands still (the board says so: running false)
    const left = Math.max(0, c.clock.remaining_ms - (c.clock.running === false ? 0 : since));
    clock.textContent = "CLOCK SEAT " + c.clock.seat + ": " + Math.ceil(left / 1000) + " S" +
                        (c.clock.running === false ? " STOPPED" : "");
    clock.dataset.remaining = String(Math.round(left));
    node.classList.toggle("clock-warning", c.clock.warning || left <= 10000);
  } else {
    clock.textContent = "";
    delete clock.dataset.remaining;
    node.classList.remove("clock-warning");
  }
  const heard = node.querySelector(".heard");
  if (c.last_heard_ms_ago == null) {
    heard.textContent = "";
  } else {
    const s = Math.floor((c.last_heard_ms_ago + since) / 1000);
    heard.textContent = "heard " + (s < 60 ? s + " s" : Math.floor(s / 60) + " min") + " ago";
  }
}

function summary() {
  const all = [...cards.values()].map(e => e.data);
  const alarms = all.filter(c => c.alarm).length;
  document.getElementById("summary").textContent =
    all.length + (all.length === 1 ? " table" : " tables") +
    (alarms ? ", " + alarms + " need someone" : "");
}

// The text scales with the screen; with many tables it shrinks until every card fits
// (a wall display shows all 40), down to a size still readable (a laptop then scrolls).
function fit() {
  const root = document.documentElement;
  let size = Math.max(13, Math.min(30, window.innerWidth / 95));
  root.style.fontSize = size + "px";
  while (root.scrollHeight > root.clientHeight && size > 10) {
    size -= 0.5;
    root.style.fontSize = size + "px";
  }
}
let fitted = -1;
function refit() {
  if (cards.size !== fitted) { fitted = cards.size; fit(); }
}
window.addEventListener("resize", fit);

function put(card) {
  cards.set(card.table_id, {data: card, at: performance.now()});
  render(card.table_id);
}

function broker(up) {
  document.getElementById("broker").classList.toggle("shown", !up);
}

const source = new EventSource("events");
source.addEventListener("open", () => document.getElementById("link").classList.remove("shown"));
source.addEventListener("error", () => document.getElementById("link").classList.add("shown"));
source.addEventListener("snapshot", (e) => {
  const snap = JSON.parse(e.data);
  broker(snap.broker);
  const ids = new Set(snap.cards.map(c => c.table_id));
  for (const id of [...cards.keys()]) {
    if (!ids.has(id)) { cards.delete(id); document.getElementById("card-" + id).remove(); }
  }
  snap.cards.forEach(put);
  summary();
  fitted = -1;
  refit();
});
source.addEventListener("card", (e) => { put(JSON.parse(e.data)); summary(); refit(); });
source.addEventListener("broker", (e) => broker(JSON.parse(e.data).up));
setInterval(() => { for (const id of cards.keys()) tickCard(id); }, 250);
</script>
</body>
</html>
"""
