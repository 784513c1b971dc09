"""The floor board's page: one HTML document with its CSS and JavaScript, no build step.

The page opens `/events` (server-sent events, `board_server.py`) and keeps one card per
table: a `snapshot` replaces every card, a `card` replaces one, `broker` says whether
the board still hears its broker. Between messages it counts the running action clocks
down (a clock the board says is not `running`, a stopped table's, stands still)
and ages "heard ... ago" and the dealer's minutes down from the figures the last
message gave, against the page's own clock (so a browser whose clock differs from the
board's still counts right). Table data is only ever set as text (`textContent`),
never as HTML.

A table that needs someone (any alarm) sorts first, then the tables in order. Above
the cards: the open seats of the room by game and stakes (`#room`), and the filters
(site, game, needs someone), mirrored in the address's query (`?site=lv&game=...&needs=1`)
so that a view can be bookmarked. `?wall=1` is the wall display: compact cards in large
type, no controls; the text shrinks until every card fits the screen (a wall display
shows 40), but not below a readable size. A click on a card opens its detail
(`/table/<id>.json`: its seats, its last hands, its last alarms) in `#detail`.

Element ids and classes are stable (the browser test and a house's own CSS rely on
them): `#card-<table id>` (classes `alarm`, `warn`, `clock-warning`, `push-due`;
`data-seq`: the journal seq of the state shown, for `bench/floor.py`; `data-unreadable`
on a card the page could not draw, which says so and lets the others be drawn), and
inside it
`.table-id`, `.game`, `.needs`, `.level`, `.hand`, `.pot`, `.to-act`, `.clock`, `.last-action`,
`.seats-list` (`li.seat`, classes `away`, `all-in`, `owes`, its parts `.seat-no`,
`.player`, `.stack`, `.flags`: a name wraps, a number never), `.open-seats`, `.dealer`,
`.pace`, `.money`, `.alarms`, `.alarm-log`, `.heard`; `#broker` (the board's broker
link), `#link` (the page's link to the board), `#summary`, `#room`, `#f-site`,
`#f-game`, `#f-needs`, `#detail` (`#detail-close`, `.detail-hands`).
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
  header.top { display: flex; flex-wrap: wrap; gap: .4rem 1.2rem; align-items: baseline;
               padding: .5rem 1rem; background: #222; position: sticky; top: 0; z-index: 2; }
  header.top h1 { font-size: 1.3rem; margin: 0; }
  #summary { color: #ccc; }
  .banner { display: none; padding: .3rem .8rem; border-radius: .3rem; font-weight: bold;
            background: #b00; color: #fff; }
  .banner.shown { display: inline-block; }
  #controls { display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: center; }
  #controls select, #controls input, #controls a { font-size: 1rem; }
  #controls a { color: #7cf; }
  #room { margin: .6rem .6rem 0; padding: .4rem .7rem; background: #1a1f2a;
          border-radius: .4rem; }
  #room h2 { display: inline; font-size: 1rem; margin: 0 .8rem 0 0; }
  #room ul { display: inline; margin: 0; padding: 0; list-style: none; }
  #room li { display: inline-block; margin-right: 1.2rem; }
  #room .where { color: #bbb; }
  main { display: grid; gap: .6rem; padding: .6rem;
         grid-template-columns: repeat(auto-fill, minmax(17rem, 1fr)); }
  .card { background: #1d2a1d; border: .15rem solid #2f4f2f; border-radius: .5rem;
          padding: .5rem .7rem; display: flex; flex-direction: column; gap: .15rem;
          min-width: 0; overflow-wrap: anywhere; cursor: pointer; }
  .card[hidden] { display: none; }
  .card.warn { border-color: #c90; }
  .card.alarm { background: #8b0000; border: .3rem solid #ff4040; }
  .card .head { display: flex; justify-content: space-between; align-items: baseline;
                gap: .5rem; }
  .table-id { font-size: 1.5rem; font-weight: bold; white-space: nowrap; }
  .game { color: #bbb; text-align: right; }
  .card.alarm .game { color: #fdd; }
  .needs { display: none; font-size: 1.6rem; font-weight: 900; letter-spacing: .05em;
           background: #fff; color: #b00; text-align: center; border-radius: .3rem; }
  .card.alarm .needs { display: block; }
  .pot { font-size: 1.2rem; }
  .clock { font-size: 1.4rem; font-weight: bold; color: #7cf; }
  .card.clock-warning .clock { color: #ff0; }
  .last-action { color: #cde; }
  .seats-list { margin: .2rem 0; padding: 0; list-style: none; font-size: .9rem;
                display: grid; grid-template-columns: 1fr 1fr; gap: 0 .6rem; }
  .seats-list li span { display: inline-block; max-width: 100%; vertical-align: top; }
  .seats-list .stack, .seats-list .flags, .detail-seats .stack { white-space: nowrap; }
  .seats-list li.away { color: #999; }
  .seats-list li.all-in { color: #fc6; font-weight: bold; }
  .seats-list li.owes { color: #f96; }
  .dealer.push { color: #111; background: #fc3; padding: 0 .3rem; font-weight: bold; }
  .pace, .money { color: #ccc; }
  .clock:empty, .to-act:empty, .open-seats:empty, .last-action:empty, .dealer:empty,
  .pace:empty, .money:empty { display: none; }
  .alarms { margin: .2rem 0 0; padding: 0; list-style: none; font-weight: bold; }
  .alarms li.alarm { color: #fff; background: #c00; padding: .1rem .3rem; margin-top: .1rem;
                     font-size: 1.15rem; }
  .alarms li.warn { color: #111; background: #fc3; padding: .1rem .3rem; margin-top: .1rem; }
  .alarm-log { margin: .2rem 0 0; padding: 0; list-style: none; font-size: .9rem;
               color: #ccc; display: flex; flex-wrap: wrap; gap: 0 .6rem; }
  .alarm-log:empty { display: none; }
  .alarm-log::before { content: "CLEARED"; font-weight: bold; margin-right: .4rem; }
  .alarms .since { font-size: .9rem; font-weight: normal; }
  .heard { color: #aaa; font-size: .9rem; margin-top: auto; }
  #detail { position: fixed; top: 0; right: 0; bottom: 0; width: min(34rem, 100vw);
            box-sizing: border-box; overflow-y: auto; background: #1b1b1b; z-index: 3;
            border-left: .2rem solid #555; padding: .6rem 1rem; }
  #detail[hidden] { display: none; }
  #detail h2 { margin: .2rem 0; }
  #detail h3 { margin: .8rem 0 .2rem; font-size: 1.05rem; }
  #detail ol, #detail ul { margin: 0; padding-left: 1.2rem; }
  #detail-close { float: right; font-size: 1rem; }
  body.wall header.top #controls, body.wall #detail { display: none; }
  body.wall .card { cursor: default; }
  body.wall .seats-list, body.wall .last-action, body.wall .alarm-log, body.wall .money,
  body.wall .pace, body.wall #room .where, body.wall .to-act, body.wall .heard,
  body.wall .alarms .since { display: none; }
  body.wall main { grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); }
</style>
</head>
<body>
<header class="top">
  <h1>Floor board</h1>
  <span id="summary">waiting for the tables</span>
  <span id="broker" class="banner">BROKER LOST: RECONNECTING</span>
  <span id="link" class="banner">BOARD LOST: RECONNECTING</span>
  <span id="controls">
    <label>Site <select id="f-site"><option value="">all</option></select></label>
    <label>Game <select id="f-game"><option value="">all</option></select></label>
    <label><input type="checkbox" id="f-needs"> needs someone</label>
    <a id="wall-link" href="?wall=1">wall display</a>
  </span>
</header>
<section id="room"><h2>OPEN SEATS</h2><ul></ul></section>
<main id="cards"></main>
<aside id="detail" hidden>
  <button id="detail-close" type="button">Close</button>
  <h2 class="detail-title"></h2>
  <div class="detail-game"></div>
  <h3>Seats</h3><ul class="detail-seats"></ul>
  <h3>Last alarms</h3><ul class="detail-alarms"></ul>
  <h3>Last hands</h3><div class="detail-hands"></div>
</aside>
<script>
"use strict";
const cards = new Map();  // table id -> {data, at: page time the data arrived}
const grid = document.getElementById("cards");
const query = new URLSearchParams(location.search);
const filter = {site: query.get("site") || "", game: query.get("game") || "",
                needs: query.get("needs") === "1"};
const wall = query.get("wall") === "1";
if (wall) document.body.classList.add("wall");
let roomDirty = true;
let openDetail = null;  // the table whose detail is open
let detailFetched = 0;
let detailDirty = false;  // the open table changed since its detail was fetched

function el(tag, cls, value) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (value != null) node.textContent = value;
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
  node.append(head, el("div", "needs", "NEEDS SOMEONE"), el("ul", "alarms"),
              el("div", "level"), el("div", "hand"), el("div", "pot"), el("div", "to-act"), el("div", "clock"),
              el("div", "last-action"), el("ul", "seats-list"), el("div", "open-seats"),
              el("div", "dealer"), el("div", "pace"), el("div", "money"),
              el("ul", "alarm-log"), el("div", "heard"));
  node.addEventListener("click", () => { if (!wall) showDetail(id); });
  node.addEventListener("keydown", (e) => { if (e.key === "Enter" && !wall) showDetail(id); });
  if (!wall) node.tabIndex = 0;  // a keyboard reaches a table's detail too
  return node;
}

// A table that needs someone first, then the tables in order (T2 before T10).
function order(id, alarm) {
  const digits = id.replace(/\\D/g, "");
  return (alarm ? "0" : "1") + id.replace(/\\d/g, "") + "\\u0000" +
         (digits ? digits.padStart(8, "0") : "") + id;
}

function place(node, key) {
  if (node.dataset.order === key && node.parentNode) return;
  node.dataset.order = key;
  const after = [...grid.children].find(c => c !== node && c.dataset.order > key);
  grid.insertBefore(node, after || null);
}

function text(node, cls, value) {
  const part = node.querySelector("." + cls);
  if (part.textContent !== value) part.textContent = value;
}

function clockTime(entry, msAgo) {
  const then = new Date(Date.now() - (performance.now() - entry.at) - msAgo);
  return then.toTimeString().slice(0, 8);
}

function seatFlags(s) {
  return [s.away ? "AWAY" : "", s.all_in ? "ALL-IN" : "", s.owes ? "OWES" : ""]
    .filter(v => v).join(" ");
}

// A seat's row in parts: the player's name may wrap, a number never does.
function seatParts(s) {
  return [["seat-no", String(s.seat)], ["player", s.player || "?"],
          ["stack", s.stack == null ? "" : String(s.stack)], ["flags", seatFlags(s)]];
}

// A card's list, made again only when what it says changed (200 tables: most changes
// leave the seats and alarms as they were). Each item: [class, text, data key, since].
function items(node, cls, rows) {
  const list = node.querySelector("." + cls);
  const key = JSON.stringify(rows);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(...rows.map(([kind, words, data, since]) => {
    const li = el("li", kind, Array.isArray(words) ? null : words);
    if (Array.isArray(words)) {  // parts, a space between (a name wraps, a number never)
      words.forEach(([part, value], i) => li.append(...(i ? [" "] : []), el("span", part, value)));
    }
    if (since) li.append(el("span", "since", since));
    li.dataset[cls === "seats-list" ? "seat" : "code"] = String(data);
    return li;
  }));
}

function render(id) {
  const entry = cards.get(id);
  const c = entry.data;
  const node = cardNode(id);
  delete node.dataset.unreadable;
  node.dataset.seq = c.seq == null ? "" : String(c.seq);
  text(node, "table-id", c.table_id);
  text(node, "game", c.game || "");
  const phase = (c.phase || "").toUpperCase();
  text(node, "hand", (c.hand ? "HAND " + c.hand + (phase ? " \\u00b7 " + phase : "") :
                      (phase ? phase : "NO HAND YET")) +
                     (c.locked ? " \\u00b7 PLAY LOCKED" : ""));
  text(node, "pot", c.pot ? "POT " + c.pot : "");
  text(node, "to-act", c.to_act ? "SEAT " + c.to_act + " TO ACT" +
                       (c.to_act_player ? " (" + c.to_act_player + ")" : "") : "");
  text(node, "last-action", c.last_action ? "LAST: " + c.last_action : "");
  text(node, "open-seats", c.seats == null ? "" :
       !c.open_seats_known ? "OPEN SEATS: NOT KNOWN (LINK DOWN)" :
       c.locked ? "OPEN SEATS: NONE WHILE PLAY IS LOCKED" :
       (c.open_seats.length ? "OPEN SEATS: " + c.open_seats.join(" ") : "TABLE FULL"));
  text(node, "pace", c.hands_per_hour == null ? "" :
       Math.round(c.hands_per_hour) + " HANDS/HOUR");
  text(node, "money", c.money ? "SHIFT DROP " + c.money.drop + " \\u00b7 TIPS " +
       c.money.tips : "");
  items(node, "seats-list", (c.seat_rows || []).map(s => [
    "seat" + (s.away ? " away" : "") + (s.all_in ? " all-in" : "") + (s.owes ? " owes" : ""),
    seatParts(s), s.seat]));
  // the alarms now, each with the time the board heard it; below, the ones cleared
  const log = c.alarm_log || [];
  items(node, "alarms", c.alarms.map(a => {
    const raised = log.find(e => e.code === a.code && e.cleared_ms_ago == null);
    return [a.level, a.text, a.code, raised ? " SINCE " + clockTime(entry, raised.ms_ago) : ""];
  }));
  items(node, "alarm-log", log.filter(a => a.cleared_ms_ago != null).map(a => [
    "cleared", clockTime(entry, a.ms_ago) + "\\u2013" + clockTime(entry, a.cleared_ms_ago) +
    " " + a.text, a.code]));
  node.classList.toggle("alarm", c.alarm);
  node.classList.toggle("warn", !c.alarm && c.alarms.length > 0);
  node.hidden = !shown(c);
  place(node, order(id, c.alarm));
  tickCard(id);
}

function unreadable(id, error) {
  const node = cardNode(id);
  text(node, "table-id", id);
  items(node, "alarms", [["alarm", "CARD CANNOT BE SHOWN: " + String(error).slice(0, 80),
                          "card_unreadable", ""]]);
  node.classList.add("alarm");
  node.dataset.unreadable = "1";
  cards.set(id, {data: {table_id: id, alarm: true, alarms: [], open_seats: [], unreadable: true},
                 at: performance.now()});
  place(node, order(id, true));
}

function tickCard(id) {
  const entry = cards.get(id);
  const c = entry.data;
  const node = cardNode(id);
  const since = performance.now() - entry.at;
  text(node, "level", levelWords(c.tournament, since));
  const clock = node.querySelector(".clock");
  if (c.clock) {
    // a stopped table's clock stands still (the board says so: running false)
    const left = Math.max(0, c.clock.remaining_ms - (c.clock.running === false ? 0 : since));
    text(node, "clock", "CLOCK SEAT " + c.clock.seat + ": " + Math.ceil(left / 1000) + " S" +
                        (c.clock.running === false ? " STOPPED" : ""));
    clock.dataset.remaining = String(Math.round(left));
    node.classList.toggle("clock-warning", c.clock.warning || left <= 10000);
  } else {
    text(node, "clock", "");
    delete clock.dataset.remaining;
    node.classList.remove("clock-warning");
  }
  let dealer = "";
  let push = false;
  if (c.dealer) {
    const down = c.dealer_ms + since;
    // the table's own word when it says; else the board's count (older tables)
    push = c.push_told ? c.push_due : c.push_after_ms != null && down >= c.push_after_ms;
    dealer = "DEALER " + c.dealer + " \\u00b7 " + Math.floor(down / 60000) +
             (c.dealer_change_seen ? "" : "+") + " MIN" + (push ? " \\u00b7 PUSH DUE" : "");
  }
  text(node, "dealer", dealer);
  node.querySelector(".dealer").classList.toggle("push", push);
  node.classList.toggle("push-due", push);
  if (c.last_heard_ms_ago == null) {
    text(node, "heard", "");
  } else {
    const s = Math.floor((c.last_heard_ms_ago + since) / 1000);
    text(node, "heard", "heard " + (s < 60 ? s + " s" : Math.floor(s / 60) + " min") + " ago");
  }
}

function shown(c) {
  return (!filter.site || c.site === filter.site) && (!filter.game || c.game === filter.game) &&
         (!filter.needs || c.alarm);
}

function summary() {
  const all = [...cards.values()].map(e => e.data);
  const alarms = all.filter(c => c.alarm).length;
  const hidden = all.filter(c => !shown(c)).length;
  const pushes = document.querySelectorAll(".card.push-due").length;
  const line = document.getElementById("summary");
  const words =
    all.length + (all.length === 1 ? " table" : " tables") +
    (hidden ? " (" + (all.length - hidden) + " shown)" : "") +
    (alarms ? ", " + alarms + " need someone" : "") +
    (pushes ? ", " + pushes + " push due" : "");
  if (line.textContent !== words) line.textContent = words;
}

// A tournament table's level line: the level and its stakes, the time left (counted
// down here between the table's states), on a break or paused, the players left.
function levelWords(t, since) {
  if (!t) return "";
  const left = Math.max(0, t.level_ms_left - (t.running ? since : 0));
  const seconds = Math.ceil(left / 1000);
  const time = Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
  const when = t.break ? "BREAK " + time + (t.paused ? " PAUSED" : "") +
                           " \u00b7 NEXT LEVEL " + t.level + " " + t.stakes :
               "LEVEL " + t.level + " " + t.stakes + " \u00b7 " + (t.paused ? "PAUSED" : time);
  return when + " \u00b7 " + t.players_left + " LEFT";
}

// The open seats of the room by game and stakes, for whoever keeps the waitlist (never a
// tournament table's: nobody walks into a tournament), and the players left per
// tournament across its tables.
function room() {
  const games = new Map();
  const tourney = [];
  for (const {data: c} of cards.values()) {
    if (c.tournament) { tourney.push(c); continue; }
    if (!c.open_seats.length || !c.open_seats_known || c.locked) continue;
    const game = c.game || "?";
    if (!games.has(game)) games.set(game, []);
    games.get(game).push(c);
  }
  const rows = [...games.keys()].sort().map(game => {
    const tables = games.get(game).sort((a, b) =>
      order(a.table_id, false) < order(b.table_id, false) ? -1 : 1);
    return [game, tables.reduce((n, c) => n + c.open_seats.length, 0),
            tables.map(c => c.table_id + " (" + c.open_seats.length + ")").join(" ")];
  });
  // one line per tournament (the tables naming it), in name order; unnamed ones last
  const named = new Map();
  for (const c of tourney) {
    const name = c.tournament.id || "";
    if (!named.has(name)) named.set(name, []);
    named.get(name).push(c);
  }
  const names = [...named.keys()].sort((a, b) => !a ? 1 : !b ? -1 : a < b ? -1 : 1);
  for (const name of names) {
    const tables = named.get(name).sort((a, b) =>
      order(a.table_id, false) < order(b.table_id, false) ? -1 : 1);
    rows.push([name ? "TOURNAMENT " + name : "TOURNAMENT",
               tables.reduce((n, c) => n + c.tournament.players_left, 0),
               tables.map(c => c.table_id + " (" + c.tournament.players_left + ")").join(" "),
               "left"]);
  }
  const list = document.querySelector("#room ul");
  const key = JSON.stringify(rows);
  if (list.dataset.key !== key) {
    list.dataset.key = key;
    const lines = rows.map(([game, open, where, what]) => {
      const li = el("li", null);
      li.dataset.game = game;
      li.append(el("b", null, game + ": " + open + " " + (what || "open")),
                el("span", "where", " " + where));
      return li;
    });
    list.replaceChildren(...(lines.length ? lines : [el("li", null, "none")]));
  }
  options("f-site", all("site"), filter.site);
  options("f-game", all("game"), filter.game);
}

function all(field) {
  return [...new Set([...cards.values()].map(e => e.data[field]).filter(v => v))].sort();
}

function options(id, values, chosen) {
  const select = document.getElementById(id);
  const want = ["", ...new Set([...values, ...(chosen ? [chosen] : [])])];
  const have = [...select.options].map(o => o.value);
  if (want.join("\\n") !== have.join("\\n")) {
    select.replaceChildren(...want.map(v => {
      const option = el("option", null, v || "all");
      option.value = v;
      return option;
    }));
  }
  select.value = chosen;
}

function refilter() {
  const params = new URLSearchParams();
  if (filter.site) params.set("site", filter.site);
  if (filter.game) params.set("game", filter.game);
  if (filter.needs) params.set("needs", "1");
  if (wall) params.set("wall", "1");
  const search = params.toString();
  history.replaceState(null, "", search ? "?" + search : location.pathname);
  params.set("wall", "1");  // the wall display of the same view
  document.getElementById("wall-link").href = "?" + params.toString();
  for (const [id, entry] of cards) cardNode(id).hidden = !shown(entry.data);
  summary();
  fit();
}

document.getElementById("f-needs").checked = filter.needs;
document.getElementById("f-site").addEventListener("change", (e) => {
  filter.site = e.target.value; refilter();
});
document.getElementById("f-game").addEventListener("change", (e) => {
  filter.game = e.target.value; refilter();
});
document.getElementById("f-needs").addEventListener("change", (e) => {
  filter.needs = e.target.checked; refilter();
});
refilter();  // the wall link of the view the page was opened with

// The detail of one table: its seats, its last alarms, its last hands from the feed.
function showDetail(id) {
  openDetail = id;
  detailDirty = false;
  detailFetched = performance.now();
  fetch("table/" + encodeURIComponent(id) + ".json").then(r => r.ok ? r.json() : null)
    .then(d => { if (d && openDetail === d.table_id) fillDetail(d); })
    .catch(() => {});
}

function fillDetail(d) {
  const panel = document.getElementById("detail");
  const entry = {at: performance.now()};
  panel.querySelector(".detail-title").textContent = "TABLE " + d.table_id;
  panel.querySelector(".detail-game").textContent = [d.game,
    d.dealer ? "DEALER " + d.dealer + " " + Math.floor(d.dealer_ms / 60000) +
               (d.dealer_change_seen ? "" : "+") + " MIN" + (d.push_due ? ", PUSH DUE" : "")
             : null,
    d.hands_per_hour == null ? null : Math.round(d.hands_per_hour) + " HANDS/HOUR",
    d.money ? "SHIFT DROP " + d.money.drop + ", TIPS " + d.money.tips : null,
    ...d.alarms.map(a => a.text)].filter(v => v).join(" \\u00b7 ");
  panel.querySelector(".detail-seats").replaceChildren(...d.seat_rows.map(s => {
    const li = el("li", null);
    seatParts(s).forEach(([part, value], i) => li.append(...(i ? [" "] : []), el("span", part, value)));
    if (s.status) li.append(" (" + s.status + ")");
    return li;
  }));
  const alarms = d.alarm_log.map(a => el("li", null, clockTime(entry, a.ms_ago) + " " + a.text +
    (a.cleared_ms_ago == null ? " (NOW)" : " (cleared " + clockTime(entry, a.cleared_ms_ago) +
     ")")));
  panel.querySelector(".detail-alarms").replaceChildren(
    ...(alarms.length ? alarms : [el("li", null, "none")]));
  panel.querySelector(".detail-hands").replaceChildren(...d.hands.map(h => {
    const part = el("div", "detail-hand");
    part.dataset.hand = String(h.hand);
    const lines = el("ol", null);
    lines.append(...h.lines.map(l => el("li", null, clockTime(entry, l.ms_ago) + " " + l.text)));
    part.append(el("h3", null, h.hand == null ? "OUTSIDE A HAND" : "HAND " + h.hand), lines);
    return part;
  }));
  panel.hidden = false;
}

function closeDetail() {
  openDetail = null;
  document.getElementById("detail").hidden = true;
}
document.getElementById("detail-close").addEventListener("click", closeDetail);
document.addEventListener("keydown", (e) => { if (e.key === "Escape") closeDetail(); });

// On the wall display the text shrinks until every card fits (all 40 on one screen),
// down to a size still readable; elsewhere it scales with the window and scrolls. The
// size is found by halving (a few layouts, not one per half pixel), and at most once
// a second while tables keep arriving (200 tables arriving one by one on the wall).
function fit() {
  const root = document.documentElement;
  const size = Math.max(14, Math.min(wall ? 32 : 22, window.innerWidth / (wall ? 60 : 105)));
  root.style.fontSize = size + "px";
  if (!wall || root.scrollHeight <= root.clientHeight) return;
  let fits = 12, over = size;  // 12 px is used even when it does not fit
  while (over - fits > 0.5) {
    const middle = (fits + over) / 2;
    root.style.fontSize = middle + "px";
    if (root.scrollHeight <= root.clientHeight) fits = middle; else over = middle;
  }
  root.style.fontSize = fits + "px";
}
let fitted = -1;
let fittedAt = -Infinity;
function refit() {
  if (cards.size === fitted || performance.now() - fittedAt < 1000) return;
  fitted = cards.size;
  fittedAt = performance.now();
  fit();
}
window.addEventListener("resize", fit);

function put(card) {
  cards.set(card.table_id, {data: card, at: performance.now()});
  try {
    render(card.table_id);
  } catch (error) {  // one card the page cannot draw: it says so, the others go on
    unreadable(card.table_id, error);
  }
  roomDirty = true;
  if (openDetail === card.table_id) detailDirty = true;
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
  room();
  roomDirty = false;
  fitted = -1;
  fittedAt = -Infinity;
  refit();
});
source.addEventListener("card", (e) => { put(JSON.parse(e.data)); refit(); });
source.addEventListener("broker", (e) => broker(JSON.parse(e.data).up));
setInterval(() => {
  for (const id of cards.keys()) {
    try { tickCard(id); } catch (error) { unreadable(id, error); }
  }
  if (roomDirty) { roomDirty = false; room(); }
  if (detailDirty && performance.now() - detailFetched > 1000) showDetail(openDetail);
  summary();
  refit();  // tables that came within the last second
}, 250);
</script>
</body>
</html>
"""
