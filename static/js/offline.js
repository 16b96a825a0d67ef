// Offline at the table. The service worker keeps the last sheet this phone saw (sw.js); here,
// deals entered without a connection wait on the phone (IndexedDB, one queue per match) and
// are sent once, in order, when it returns. What a deal is checked against and the words said
// come from the server's rules (offline.<language>.js, and where the sheet stands in the page),
// and the server checks each deal again when it arrives. One rule of each game is restated
// here, so that the phone stops at the deal that decides the match: `settle`, the rules'
// _settle for a played-out deal (tests/browser/test_offline.py plays each of its cases, a
// sweep's too), `settleSolo`, Terziglio's _terziglio_over and _terziglio_winner
// (tests/browser/test_terziglio.py), and `settleEach`, a perdere's _a_perdere_settle
// (tests/browser/test_a_perdere.py).
(function () {
  "use strict";
  var MATCH = window.location.pathname;
  var keptAt = document.documentElement.dataset.offlineAsOf; // a kept copy, shown offline
  var items = []; // this match's queue in order: what IndexedDB holds, as last read

  function form() { return document.getElementById("deal-form"); }
  var W = window.offlineWords; // the words and the rules' data (loaded before this file)
  // The sweeps, and whom each names: "side", or "player" for one who swept alone.
  var SWEEPS = W.sweeps;
  // Where the sheet stands (the deal form's #offline-data) with what the rules derived, and
  // its game's ways (below: TRESSETTE, TERZIGLIO, A_PERDERE).
  function sheetData() {
    var f = form();
    var drawn = document.getElementById("offline-data");
    if (!f || !drawn) return null;
    var d = JSON.parse(drawn.textContent);
    d.cards = W.cards;
    d.words = W.checks;
    d.kinds = W.kinds;
    d.game = GAMES[d.game] || TRESSETTE;
    // A perdere: the deal after which each player went out (0: before the sheet's next deal),
    // or null while in; the deals that wait add to it (settleEach).
    if (d.out) d.outAt = d.out.map(function (out) { return out ? 0 : null; });
    if (d.game === TRESSETTE) {
      d.other = f.dataset.otherCardPoints.split(" ").map(Number); // the other side's, for 0 … 11
      d.declared = W.declared[d.players];
      d.pairs = W.pairs[d.players];
    }
    return d;
  }
  // The game of the sheet on the page, before its data is read.
  function gameOf(f) {
    var named = f && f.querySelector("[name=game]");
    return (named && GAMES[named.value]) || TRESSETTE;
  }
  function escape(text) {
    var span = document.createElement("span");
    span.textContent = String(text);
    return span.innerHTML;
  }
  // offline.js's words or the rules', with Python's %(name)s.
  function say(text, params, html) {
    return text.replace(/%\((\w+)\)s/g, function (whole, name) {
      return html ? escape(params[name]) : String(params[name]);
    });
  }
  function word(name, params, html) { return say(W.words[name], params || {}, html); }
  function element(tag, className, text) {
    var made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined) made.textContent = text;
    return made;
  }
  function freshKey() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return [].map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  // --- The queue, in IndexedDB: one store of deals, each under its idempotency key.
  var opened = null;
  function store(mode, action) {
    opened = opened || new Promise(function (resolve, reject) {
      var request = indexedDB.open("tressette", 1);
      request.onupgradeneeded = function () {
        request.result.createObjectStore("deals", { keyPath: "key" }).createIndex("match", "match");
      };
      request.onsuccess = function () { resolve(request.result); };
      request.onerror = function () { reject(request.error); };
    });
    return opened.then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction("deals", mode);
        var request = action(tx.objectStore("deals"));
        tx.oncomplete = function () { resolve(request && request.result); };
        tx.onerror = function () { reject(tx.error); };
      });
    });
  }
  var others = "BroadcastChannel" in window ? new BroadcastChannel("tressette-queue") : null;
  function changed() {
    if (others) others.postMessage(MATCH);
    return load().then(render);
  }
  if (others) {
    others.onmessage = function (event) { if (event.data === MATCH) load().then(render); };
  }
  function load() {
    return store("readonly", function (deals) { return deals.index("match").getAll(MATCH); })
      .then(function (found) {
        items = (found || []).sort(function (a, b) { return a.number - b.number || a.at - b.at; });
        return items;
      });
  }
  function put(item) { return store("readwrite", function (deals) { return deals.put(item); }); }
  function drop(key) { return store("readwrite", function (deals) { return deals.delete(key); }); }
  // The deals after `item` move by `by` numbers (one discarded, or added after another's).
  function shiftAfter(item, by) {
    var after = items.filter(function (other) { return other.number > item.number; });
    return Promise.all(after.map(function (other) { other.number += by; return put(other); }));
  }

  // --- Reading and checking a deal as the page's data allows.
  function whole(text) { return /^[0-9]{1,4}$/.test(text) ? parseInt(text, 10) : text ? undefined : null; }
  function declared(text) {
    if (!text) return 0;
    if (!/^\+? *[0-9]{1,4}( *\+ *[0-9]{1,4})*$/.test(text)) return undefined;
    return text.split("+").reduce(function (sum, part) { return sum + (parseInt(part, 10) || 0); }, 0);
  }
  // The side a sweep names: its own, or that of the seat of the player who swept alone (the
  // page says each seat's side: Sheet.offline); null when none is named.
  function sweeper(values, d) {
    var by = SWEEPS[values.kind];
    var named = by === "player" ? values.seat : values.side;
    if (!by || !/^[0-9]$/.test(named)) return null;
    if (by === "side") return Number(named);
    var side = d.seat_sides[Number(named)];
    return side === undefined ? null : side;
  }
  // A sweep's words for what is missing: which side swept it, or which player alone.
  function sweepErrors(values, d) {
    if (!SWEEPS[values.kind] || sweeper(values, d) !== null) return [];
    var code = SWEEPS[values.kind] === "player" ? "sweep_player_required" : "sweep_side_required";
    return [say(d.words[code], {})];
  }
  // A played-out deal's points, or the rules' words for what is wrong with it; for a sweep,
  // its errors only (its score is the server's). A claim or text other than plain numbers is
  // not read here (null): the server reads it.
  function read(values, d) {
    var unnamed = sweepErrors(values, d);
    if (unnamed.length) return { errors: unnamed };
    var sweep = W.sweep_cards[values.kind];
    if (values.kind !== "normal" && !sweep) return null;
    var cards = [whole(values.card_points_0), whole(values.card_points_1)];
    var decl = [declared(values.declared_points_0), declared(values.declared_points_1)];
    if (cards.concat(decl).indexOf(undefined) !== -1) return null;
    var names = d.sides, w = d.words, errors = [];
    var side = sweep ? sweeper(values, d) : null;
    if (cards[0] === null && cards[1] === null) {
      if (!sweep || !sweep.blank) return { errors: [say(w.card_points_missing, {})] };
      cards = side === 0 ? sweep.blank.slice() : sweep.blank.slice().reverse();
    }
    // A blank side filled in as the rules fill it: by a sweep's rule, else to make 11.
    [0, 1].forEach(function (i) {
      var other = cards[1 - i];
      if (cards[i] !== null || other > d.cards) return;
      cards[i] = !sweep ? d.other[other] : i === side ? sweep.sweepers[other] : sweep.others[other];
    });
    var high = [0, 1].filter(function (i) { return cards[i] > d.cards; });
    var sum = cards[0] + cards[1];
    if (high.length) {
      high.forEach(function (i) {
        errors.push(say(w.card_points_too_high, { side: names[i], value: cards[i], max: d.cards }));
      });
    } else if (sweep && cards[side] < sweep.least) { // the sweepers' own said first, as the rules do
      errors.push(say(w[values.kind + "_sweeper_card_points"], { side: names[side] }));
    } else if (sweep && cards[1 - side] > sweep.most) {
      errors.push(say(w[values.kind + "_card_points"], { side: names[1 - side] }));
    } else if (sum !== d.cards) {
      errors.push(say(w.card_points_sum, { expected: d.cards, side_a: names[0], a: cards[0],
        side_b: names[1], b: cards[1], sum: sum }));
    } else if (!sweep && cards.indexOf(0) !== -1) {
      var swept = cards.indexOf(0);
      errors.push(say(w.card_points_sweep, { side: names[1 - swept], other: names[swept] }));
    }
    var impossible = [0, 1].filter(function (i) { return d.declared.indexOf(decl[i]) === -1; });
    var fits = d.pairs.some(function (pair) { return pair[0] === decl[0] && pair[1] === decl[1]; });
    impossible.forEach(function (i) {
      errors.push(say(w.declaration_impossible, { side: names[i], value: decl[i] }));
    });
    if (!impossible.length && !fits) errors.push(say(w.declarations_exceed_deck, { a: decl[0], b: decl[1] }));
    if (sweep) return errors.length ? { errors: errors } : null;
    return { errors: errors, cards: cards, declared: decl, points: [cards[0] + decl[0], cards[1] + decl[1]] };
  }
  // A deal as this phone typed it, for a notice. A sweep's points are the server's, not typed:
  // it is said as its row's tag says it, with the side that swept (a player alone is named).
  function typed(values, d) {
    if (SWEEPS[values.kind]) {
      var side = SWEEPS[values.kind] === "side" ? sweeper(values, d) : null;
      return tagOf(values, d) + (side === null ? "" : " · " + d.sides[side]);
    }
    var read_ = read(values, d);
    if (read_ && !read_.cards) read_ = null; // said wrong before it was read
    return [0, 1].map(function (i) {
      var cards = read_ ? read_.cards[i] : values["card_points_" + i] || "0";
      var decl = read_ ? read_.declared[i] : values["declared_points_" + i] || "0";
      return d.sides[i] + " " + cards + " + " + decl;
    }).join(", ") + (values.kind === "normal" ? "" : " (" + tagOf(values, d) + ")");
  }
  // A deal's kind as its row's tag says it: with the player, in a sweep by one.
  function tagOf(values, d) {
    var alone = SWEEPS[values.kind] === "player" && d.dealers[Number(values.seat)];
    return d.kinds[values.kind] + (alone ? " · " + alone : "");
  }

  // The question asked of a deal that waits for the person's choice, if it is on the page.
  function asked(item) {
    var add = document.querySelector('[data-offline-add="' + item.key + '"]');
    return add && add.closest(".notice");
  }
  var answered = {}; // the keys of the deals the person chose for on this page

  // --- Drawing the waiting deals: rows, provisional totals, the next deal's number and dealer.
  function render() {
    document.querySelectorAll(".offline-pending").forEach(function (drawn) { drawn.remove(); });
    document.querySelectorAll("[data-server-text]").forEach(function (changed_) {
      changed_.innerHTML = changed_.dataset.serverText;
      changed_.removeAttribute("data-server-text");
    });
    document.querySelectorAll("[data-offline-shown]").forEach(function (shown) {
      shown.hidden = shown.dataset.offlineShown === "hidden";
      shown.removeAttribute("data-offline-shown");
    });
    var d = sheetData();
    var rows = document.getElementById("deal-rows");
    if (!d || !rows || !items.length) return;
    // Still to be answered, after a reload or in another tab: asked again.
    var first = items[0];
    if (first.state === "conflict" && !answered[first.key] && !asked(first)) {
      window.bringTo(ask(first, d));
    }
    show(rows.closest(".deals-wrap"), true); // drawn hidden before the first deal
    show(document.getElementById("no-deals"), false);
    var columns = rows.closest("table").querySelectorAll("thead th").length;
    var totals = d.totals.slice();
    var state = { another: d.another };
    var waits = false;
    var held = false;
    items.forEach(function (item) {
      var deal = d.game.read(item.values, d);
      // A deal that waits for the person's choice (another phone's took its number, or the
      // server refused it) counts for nothing until then, nor do those queued after it: the
      // totals stay the server's.
      held = held || item.state !== "waiting";
      var counts = !held;
      if (counts) {
        waits = true;
        if (!deal || deal.errors.length) totals = null;
        else if (totals) totals = totals.map(function (total, i) { return total + deal.points[i]; });
        if (!state.decided) state = d.game.settle(state, item, totals, d);
      }
      rows.appendChild(row(item, deal, counts && totals, d, columns));
    });
    // What would act on the server's last deal, or draw the server's deals alone, is put away
    // while deals wait to follow it.
    show(document.getElementById("delete-last"), false);
    if (waits) show(document.getElementById("chart"), false);
    // Deals typed while one waits for the choice are numbered after it, as their rows say; a
    // refused deal is corrected in the form, under its own number.
    if (!waits) {
      if (first.state === "conflict") numberNext(d);
      return;
    }
    var waiting = word("provisional");
    document.querySelectorAll(".scoreboard .total").forEach(function (total, i) {
      remember(total).textContent = totals ? totals[i] : "…";
      total.after(element("span", "tag offline-pending", waiting));
    });
    document.querySelectorAll(".scoreboard .needs").forEach(function (needs, i) {
      remember(needs).textContent = needing(state, totals, i, d);
    });
    if (state.decided || state.another) {
      var said = state.decided ? word("decided", { number: state.decided }) : word(d.game.level);
      var live = document.querySelector("#live .scoreboard");
      if (live) live.after(element("p", "notice " + (state.decided ? "ok" : "warn") + " offline-pending", said));
    }
    if (state.decided) { // no deal after the one that decides it: the server would refuse it
      show(form(), false);
      show(document.querySelector("#live .next-dealer"), false);
      return;
    }
    numberNext(d);
  }
  // The next deal's number and dealer, after the deals that wait.
  function numberNext(d) {
    var next = Math.max(d.number, items[items.length - 1].number + 1);
    var dealer = dealerOf(next, d);
    var heading = form() && form().querySelector("h2");
    if (heading) remember(heading).textContent = word("deal", { number: next });
    var dealing = document.querySelector("#live .next-dealer");
    if (dealing) remember(dealing).innerHTML = word("dealer", { number: next, dealer: dealer }, true);
  }
  // Where the match stands once a waiting deal is added, as the rules' _settle has it for a
  // played-out deal (the sheet names the line, the tie rule and whether both sides are already
  // past the line); a sweep or a claim always ends it. Unknown totals decide nothing.
  function settle(state, item, totals, d) {
    var kind = item.values.kind;
    if (kind !== "normal") return { decided: item.number, winner: kind === "claim" ? null : sweeper(item.values, d) };
    if (!totals) return state;
    var over = [totals[0] >= d.line, totals[1] >= d.line];
    if (!over[0] && !over[1]) return { another: false };
    if (!over[0] || !over[1]) return { decided: item.number, winner: over[0] ? 0 : 1 };
    if (totals[0] === totals[1] || (!state.another && d.tie === "another_deal")) return { another: true };
    return { decided: item.number, winner: totals[0] > totals[1] ? 0 : 1 };
  }
  function needing(state, totals, i, d) {
    if (state.decided) return state.winner === i ? word("won") : "";
    if (d.line === null) return ""; // played to a number of deals, or until the table stops
    if (!totals) return "…";
    var needs = Math.max(0, d.line - totals[i]);
    if (isOut(d, i)) return word("out");
    if (!needs) return word("at-line");
    var n = d.game === A_PERDERE ? W.to_line : W.needs;
    return say(n.forms[Number(n.of[Math.min(needs, n.of.length - 1)])], { n: needs });
  }
  // Who deals deal `number`: the deal passes to the right, after each deal past a perdere's
  // players out by then (the rules' a_perdere_dealer).
  function dealerOf(number, d) {
    var seats = d.dealers.length;
    if (!d.outAt || number <= d.number) return d.dealers[(d.dealer + number - d.number + seats * 999) % seats];
    var seat = d.dealer;
    for (var deal = d.number; deal < number; deal++) {
      for (var step = 0; step < seats; step++) {
        seat = (seat + 1) % seats;
        if (d.outAt[seat] === null || d.outAt[seat] > deal) break;
      }
    }
    return d.dealers[seat];
  }
  function isOut(d, i) { return Boolean(d.outAt) && d.outAt[i] !== null; }
  function show(drawn, shown) {
    if (!drawn || drawn.hidden === !shown) return;
    drawn.dataset.offlineShown = drawn.hidden ? "hidden" : "shown";
    drawn.hidden = !shown;
  }
  function remember(drawn) {
    if (!drawn.hasAttribute("data-server-text")) drawn.dataset.serverText = drawn.innerHTML;
    return drawn;
  }
  function row(item, deal, totals, d, columns) {
    var tr = element("tr", "pending offline-pending");
    tr.dataset.key = item.key;
    var dealer = dealerOf(item.number, d);
    var th = element("th", "num", String(item.number));
    th.scope = "row";
    th.appendChild(element("span", "dealer small muted", dealer));
    tr.appendChild(th);
    var state = element("span", "tag waiting", item.state === "waiting" ? word("waiting") : word("not-sent"));
    d.game.cells(tr, item, deal && !deal.errors.length ? deal : null, totals, d, state);
    while (tr.children.length < columns) tr.appendChild(element("td"));
    return tr;
  }
  // A Tressette deal's cells: each side's points, the kind under the side it names; the
  // running totals.
  function cells(tr, item, deal, totals, d, state) {
    [0, 1].forEach(function (i) {
      var td = element("td", "side-" + i);
      td.appendChild(element("strong", "", deal ? String(deal.points[i]) : "…"));
      var claimed = item.values.kind === "claim" && item.values.side !== "" ? Number(item.values.side) : null;
      var named = SWEEPS[item.values.kind] ? sweeper(item.values, d) : claimed;
      if (named === i) td.appendChild(element("span", "tag", tagOf(item.values, d)));
      tr.appendChild(td);
    });
    var run = element("td", "run", totals ? totals[0] + "–" + totals[1] : "…");
    run.appendChild(state);
    tr.appendChild(run);
  }

  // --- Entering a deal while offline (or while others wait to be sent: they go first).
  function clearErrors(f) { f.querySelectorAll(".offline-errors").forEach(function (said) { said.remove(); }); }
  function showErrors(f, errors) {
    clearErrors(f);
    var list = element("ul", "errorlist nonfield offline-errors");
    list.id = "deal-errors";
    list.setAttribute("role", "alert");
    list.tabIndex = -1;
    errors.forEach(function (error) { list.appendChild(element("li", "", error)); });
    // Below the form's head, which stays in sight: the errors scroll with the fields.
    (f.querySelector(".entry-head") || f.querySelector("h2")).after(list);
    window.bringTo(list);
  }
  function notice(text, className) {
    var said = document.getElementById("offline-notice") || element("div");
    said.id = "offline-notice";
    said.className = "notice " + (className || "ok");
    said.setAttribute("role", className === "ok" ? "status" : "alert");
    said.tabIndex = -1;
    said.textContent = "";
    said.appendChild(element("p", "", text));
    var notices = document.getElementById("notices");
    notices.parentNode.insertBefore(said, notices.nextSibling);
    return said;
  }
  function blank(f) {
    var game = gameOf(f);
    game.fields.forEach(function (name) {
      f.querySelectorAll('[name="' + name + '"]').forEach(function (field) {
        if (field.type === "hidden") return; // the form's own (a perdere's players, and 0 for one out)
        if (field.type === "radio") field.checked = field.value === game.blank[name];
        else field.value = "";
        delete field.dataset.typed;
      });
    });
    var typing = document.getElementById("typing");
    if (typing) typing.value = "0";
  }
  // The deals that wait, added to where the sheet stands (as render adds them): a perdere's
  // next deal is checked against who is out after them.
  function replay(d) {
    var totals = d.totals.slice();
    var state = { another: d.another };
    items.every(function (item) {
      var deal = item.state === "waiting" ? d.game.read(item.values, d) : null;
      if (!deal || deal.errors.length) return false;
      totals = totals.map(function (total, i) { return total + deal.points[i]; });
      state = d.game.settle(state, item, totals, d);
      return !state.decided;
    });
    return d;
  }
  function enqueue(f, resend, submitter) {
    var d = replay(sheetData());
    var sent = new FormData(f);
    var values = {};
    d.game.fields.forEach(function (name) { values[name] = String(sent.get(name) || "").trim(); });
    if (submitter && submitter.name === "a_monte") values.a_monte = "1"; // Terziglio's own button
    var game = f.querySelector("[name=game]"); // the form of the match's game, when sent
    if (game) values.game = game.value;
    if (d.game.fill) d.game.fill(values, d);
    var deal = d.game.read(values, d);
    if (deal && deal.errors.length) {
      showErrors(f, deal.errors);
      return Promise.resolve();
    }
    clearErrors(f);
    // A deal the server refused is corrected by the one typed now; a deal that waits for the
    // choice after another phone's took its number keeps waiting, and this one queues behind it.
    var refused = items[0] && items[0].state === "refused" ? items[0] : null;
    var waiting = items[0] && items[0].state === "conflict" ? items[0] : null;
    var key = document.getElementById("deal-key");
    var item = refused || {
      // A save that may have got through keeps its key; a copy's page is not this phone's last.
      key: resend && !keptAt && key && key.value ? key.value : freshKey(),
      match: MATCH,
      url: f.getAttribute("action"),
      number: Math.max(d.number, items.length ? items[items.length - 1].number + 1 : 0),
      at: Date.now(),
    };
    if (key && !refused) key.value = freshKey(); // the next deal's
    item.values = values;
    item.state = "waiting";
    item.words = "";
    blank(f); // at once: the next deal may be typed before the phone has stored this one
    return put(item).then(function () {
      var failed = document.getElementById("request-failed-notice");
      if (failed) failed.remove();
      // The question still asked stays in sight: the deal just typed waits for its answer.
      var question = waiting && asked(waiting);
      if (question) window.bringTo(question);
      else window.bringTo(notice(word("kept", { number: item.number }), "ok"));
      return changed();
    }).then(send);
  }
  function submitterOf(event) {
    var triggering = event.detail.requestConfig && event.detail.requestConfig.triggeringEvent;
    return triggering && triggering.submitter;
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var f = event.detail.elt;
    var submitter = submitterOf(event);
    if (f.id !== "deal-form" || (submitter && submitter.name === "count")) return;
    if (navigator.onLine && !keptAt && !items.length) return;
    event.preventDefault();
    enqueue(f, false, submitter);
  });
  // Sent while the phone thought it was online, and no answer came: kept, with its key (it may
  // have got through; sent again, the server says so and does not save it twice).
  document.addEventListener("htmx:sendError", function (event) {
    var f = window.requestOrigin(event);
    if (f && f.id === "deal-form" && f.isConnected) enqueue(f, true, submitterOf(event));
  });

  // --- Sending, in order, one tab at a time; what the server answers is drawn by htmx.
  // Asked while a round is under way (the connection came back during a try that fails),
  // another round follows it.
  var sending = false;
  var askedAgain = false;
  function send() {
    if (sending) askedAgain = true;
    if (!navigator.onLine || sending || !items.length) return Promise.resolve();
    sending = true;
    askedAgain = false;
    var run = function () { return load().then(next); };
    var locked = navigator.locks ? navigator.locks.request("tressette-send " + MATCH, run) : run();
    return locked.catch(function () {}).then(function () {
      sending = false;
      return changed();
    }).then(function () {
      if (keptAt && navigator.onLine && !items.length) window.location.reload();
      else if (askedAgain) return send();
    });
  }
  function next() {
    var item = items[0];
    if (!item || item.state !== "waiting" || !navigator.onLine) return Promise.resolve();
    return post(item).then(function (outcome) {
      if (outcome === "saved") {
        var own = document.getElementById("offline-notice");
        if (own) own.remove(); // the server's own notice says it now
        return drop(item.key).then(load).then(next);
      }
      if (outcome === "conflict") return conflict(item);
      if (outcome === "refused") return refuse(item);
      return null; // no answer, or one that says nothing of this deal: tried again later
    });
  }
  var SAID = ["#saved", "#conflict", "#deleted-since", "#deal-errors", "#notices .error"];
  var REFUSED = "#deal-errors, #entry [aria-invalid=true], #notices .error";
  function post(item) {
    SAID.forEach(function (id) { document.querySelectorAll(id).forEach(function (old) { old.remove(); }); });
    var token = document.querySelector("[name=csrfmiddlewaretoken]"); // any form's: one secret
    var shown = document.querySelector("#deal-form [name=shown]");
    var values = Object.assign({}, item.values, {
      number: item.number,
      key: item.key,
      shown: shown ? shown.value : "",
      csrfmiddlewaretoken: token ? token.value : "",
    });
    var status = 0;
    function answered(event) {
      var headers = event.detail.requestConfig && event.detail.requestConfig.headers;
      if (headers && headers["X-Offline-Queue"] === item.key) status = event.detail.xhr.status;
    }
    document.addEventListener("htmx:afterRequest", answered);
    return htmx.ajax("POST", item.url, {
      source: "#entry", swap: "none", values: values, headers: { "X-Offline-Queue": item.key },
    }).catch(function () {}).then(function () {
      document.removeEventListener("htmx:afterRequest", answered);
      if (status !== 200) return "unanswered";
      var copy = document.getElementById("offline-copy");
      if (copy) copy.remove(); // the server answered: what it drew is the live sheet's
      if (document.querySelector("#saved, #deleted-since")) return "saved";
      if (document.querySelector("#conflict")) return "conflict";
      if (document.querySelector(REFUSED)) return "refused";
      return "unanswered";
    });
  }
  // Another phone's deal took this number: the person decides (added after it, or discarded).
  function conflict(item) {
    var server = document.getElementById("conflict");
    var theirs = server && server.querySelector("p");
    if (server) server.remove();
    item.state = "conflict";
    if (theirs) { // the server's words of the other phone's deal, to ask again after a reload
      var strong = theirs.querySelector("strong");
      var points = theirs.cloneNode(true);
      points.querySelectorAll("strong").forEach(function (said) { said.remove(); });
      var rest = points.textContent.replace(/\s+/g, " ").trim();
      item.theirs = { said: strong ? strong.textContent.trim() : "", points: rest };
    }
    window.bringTo(ask(item, sheetData()));
    return put(item);
  }
  // The question of a deal another phone's took the number of, with the choices.
  function ask(item, d) {
    var yours = d ? d.game.typed(item.values, d) : "";
    var said = notice(word("conflict", { number: item.number, yours: yours }), "warn");
    if (item.theirs) {
      var theirs = element("p");
      theirs.append(element("strong", "", item.theirs.said), " " + item.theirs.points);
      said.insertBefore(theirs, said.firstChild);
    }
    var actions = element("p", "actions");
    var add = element("button", "primary", word("add", { number: d ? d.number : item.number + 1 }));
    add.type = "button";
    add.dataset.offlineAdd = item.key;
    var discard = element("button", "", word("discard"));
    discard.type = "button";
    discard.dataset.offlineDiscard = item.key;
    actions.append(add, discard);
    said.appendChild(actions);
    return said;
  }
  // Refused: the form holds it with the server's words; saved again, it is this deal corrected.
  function refuse(item) {
    var errors = document.querySelectorAll("#deal-errors li, #entry .errorlist li, #notices .error");
    var words = [].map.call(errors, function (error) { return error.textContent.trim(); }).join(" ");
    item.state = "refused";
    item.words = words;
    document.querySelectorAll("#notices .error").forEach(function (said_) { said_.remove(); }); // said below
    var closed = !form(); // no form to correct it in: the match is decided, ended or stopped
    var said = notice(word(closed ? "refused-closed" : "refused", { number: item.number, words: words }), "warn");
    var discard = element("button", "", word("discard"));
    discard.type = "button";
    discard.dataset.offlineDiscard = item.key;
    said.appendChild(element("p", "actions")).appendChild(discard);
    return put(item);
  }
  // A refused deal discarded: the form is blank again, and what was said of it goes.
  function forget() {
    if (form()) blank(form());
    document.querySelectorAll("#deal-errors, #entry .errorlist, #notices .error").forEach(function (said) {
      said.remove();
    });
    document.querySelectorAll("#entry [aria-invalid=true]").forEach(function (field) {
      field.removeAttribute("aria-invalid");
    });
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-offline-add], [data-offline-discard]");
    if (!button) return;
    var key = button.dataset.offlineAdd || button.dataset.offlineDiscard;
    var item = items.filter(function (queued) { return queued.key === key; })[0];
    answered[key] = true; // not asked again while the answer is stored
    button.closest(".notice").remove();
    if (!item) return;
    var d = sheetData();
    var done;
    if (button.dataset.offlineAdd) {
      var by = (d ? d.number : item.number + 1) - item.number;
      done = shiftAfter(item, by).then(function () {
        item.number += by;
        item.state = "waiting";
        return put(item);
      });
    } else {
      // A refused deal's number is free again; a deal another phone entered first took it.
      var by_ = item.state === "refused" ? -1 : 0;
      if (item.state === "refused") forget();
      done = drop(item.key).then(function () { return shiftAfter(item, by_); });
    }
    done.then(changed).then(send);
  });

  // --- Terziglio: a deal is who played alone, the bid and their card points, or a monte.
  // What it pays comes from the server (#offline-data's `pays`, by the rules): for each bid and
  // the soloist's card points 0 … 11, what the soloist's balance and each other's move by.
  function readSolo(values, d) {
    if (values.a_monte) return { errors: [], points: d.sides.map(function () { return 0; }) };
    var typedCards = whole(values.card_points);
    if (typedCards === undefined) return null; // not a plain number: the server reads it
    var cards = typedCards !== null ? typedCards : whole(values.card_pad);
    var seat = /^[0-9]$/.test(values.soloist) ? Number(values.soloist) : null;
    var w = d.words;
    if (seat === null || seat >= d.sides.length) return { errors: [say(w.terziglio_soloist_required, {})] };
    var params = { player: d.sides[seat], max: d.cards, value: cards };
    var pays = d.pays[values.bid];
    var errors = [];
    if (!pays) errors.push(say(w.terziglio_bid_required, params));
    if (cards === null || cards === undefined) errors.push(say(w.terziglio_card_points_required, params));
    else if (cards > d.cards) errors.push(say(w.terziglio_card_points_too_high, params));
    if (errors.length) return { errors: errors };
    var paid = pays[cards];
    var points = d.sides.map(function (_name, i) { return i === seat ? paid[0] : paid[1]; });
    return { errors: [], points: points, seat: seat, cards: cards, won: paid[0] > 0 };
  }
  // "chiamo 7–4", as the row's tag says it.
  function bidSaid(values, deal, d) {
    return W.bids[values.bid] + " " + deal.cards + "–" + (d.cards - deal.cards);
  }
  function typedSolo(values, d) {
    if (values.a_monte) return W.bids.a_monte;
    var deal = readSolo(values, d);
    if (deal && deal.errors.length) deal = null;
    var who = d.sides[Number(values.soloist)] || "?";
    return who + " · " + (deal ? bidSaid(values, deal, d) : (W.bids[values.bid] || "?") + " " +
      (values.card_points || values.card_pad || "?"));
  }
  // Each player's balance after the deal and what it moved by, the bid under who played alone.
  function soloCells(tr, item, deal, totals, d, state) {
    var th = tr.firstChild;
    if (item.values.a_monte) th.insertBefore(element("span", "tag", W.bids.a_monte), th.lastChild);
    th.appendChild(state);
    d.sides.forEach(function (_name, i) {
      var td = element("td", "side-" + i);
      td.appendChild(element("strong", "", totals ? String(totals[i]) : "…"));
      if (deal) td.appendChild(element("span", "small muted detail", (deal.points[i] > 0 ? "+" : "") + deal.points[i]));
      if (deal && deal.seat === i) {
        td.appendChild(element("span", "tag " + (deal.won ? "won" : "lost"), bidSaid(item.values, deal, d)));
      }
      tr.appendChild(td);
    });
  }
  // Where a match of three stands once a waiting deal is added, as the rules' _terziglio_over
  // and _terziglio_winner have it: over at the line or after the agreed deals (the sheet names
  // which), won by the one highest balance; two highest alike play another deal.
  function settleSolo(state, item, totals, d) {
    if (!totals) return state;
    var high = Math.max.apply(null, totals);
    var over = d.line !== null ? high >= d.line : d.deals !== null && item.number >= d.deals;
    if (!over) return { another: false };
    var highest = totals.filter(function (total) { return total === high; }).length;
    if (highest > 1) return { another: true };
    return { decided: item.number, winner: totals.indexOf(high) };
  }

  // --- A perdere: a deal is each player's card points (0 for one out), or who took every point.
  // The totals a deal can have come from the server (#offline-data's `possible`, by the rules,
  // for each number of players still in). Who is out follows the deals that wait (settleEach).
  function readEach(values, d) {
    var w = d.words;
    var seats = d.sides.map(function (_name, i) { return i; });
    var still = seats.filter(function (i) { return !isOut(d, i); });
    if (/^[0-9]$/.test(values.sweeper || "")) {
      var sweeper = Number(values.sweeper);
      if (!d.sweep || isOut(d, sweeper)) return null; // the server says why
      var charged = seats.map(function (i) { return isOut(d, i) || i === sweeper ? 0 : d.cards; });
      return { errors: [], points: charged, sweeper: sweeper };
    }
    var cards = [];
    var errors = [];
    for (var i = 0; i < seats.length; i++) {
      var typed = whole(values["card_points_" + i]);
      if (typed === undefined) return null; // not a plain number ("3⅔"): the server reads it
      if (typed === null && !isOut(d, i)) errors.push(word("missing", { player: d.sides[i] }));
      if (typed && isOut(d, i)) errors.push(say(w.a_perdere_player_out, { player: d.sides[i] }));
      cards.push(typed || 0);
    }
    if (errors.length) return { errors: errors };
    var sum = cards.reduce(function (a, b) { return a + b; }, 0);
    var possible = d.possible[String(still.length)] || [];
    if (possible.indexOf(sum) === -1) {
      var params = { count: still.length, sum: sum, min: possible[0], max: possible[possible.length - 1] };
      params.expected = params.min;
      return { errors: [say(possible.length > 1 ? w.a_perdere_total : w.a_perdere_total_exact, params)] };
    }
    var took = d.sweep ? cards.indexOf(d.cards) : -1;
    if (took !== -1) return { errors: [say(w.a_perdere_sweep_unmarked, { player: d.sides[took], points: d.cards })] };
    return { errors: [], points: cards };
  }
  // A player out after the deals that wait, whose field the form still shows, is sent as the
  // server draws one out: 0.
  function fillEach(values, d) {
    d.sides.forEach(function (_name, i) {
      if (isOut(d, i) && !values["card_points_" + i]) values["card_points_" + i] = "0";
    });
  }
  function typedEach(values, d) {
    if (/^[0-9]$/.test(values.sweeper || "")) return (d.sides[Number(values.sweeper)] || "?") + " · " + word("swept");
    return d.sides.map(function (name, i) { return name + " " + (values["card_points_" + i] || "0"); }).join(", ");
  }
  // Each player's total after the deal and what it charged them; who took every point, who
  // went out; a dash for one out before it.
  function eachCells(tr, item, deal, totals, d, state) {
    tr.firstChild.appendChild(state);
    d.sides.forEach(function (_name, i) {
      var td = element("td", "side-" + i);
      tr.appendChild(td);
      if (isOut(d, i) && d.outAt[i] < item.number) {
        td.className += " out";
        td.appendChild(element("span", "muted", "–"));
        return;
      }
      td.appendChild(element("strong", "", totals ? String(totals[i]) : "…"));
      if (deal) td.appendChild(element("span", "small muted detail", "+" + deal.points[i]));
      if (deal && deal.sweeper === i) td.appendChild(element("span", "tag won", word("swept")));
      if (d.outAt[i] === item.number) td.appendChild(element("span", "tag lost", word("out")));
    });
  }
  // Where a match a perdere stands once a waiting deal is added, as the rules'
  // _a_perdere_settle has it: who reaches the line is out and the last one in wins (all the
  // rest out at once: the lowest, those level at it playing on); or, by the table's terms,
  // the lowest total wins once anyone reaches it.
  function settleEach(state, item, totals, d) {
    if (!totals) return state;
    var still = d.sides.map(function (_n, i) { return i; }).filter(function (i) { return !isOut(d, i); });
    var reached = still.filter(function (i) { return totals[i] >= d.line; });
    if (!reached.length) return { another: false };
    var among = d.lowest ? totals.map(function (_t, i) { return i; }) : still;
    var left = still.filter(function (i) { return reached.indexOf(i) === -1; });
    if (!d.lowest) {
      reached.forEach(function (i) { d.outAt[i] = item.number; });
      if (left.length > 1) return { another: false };
      if (left.length === 1) return { decided: item.number, winner: left[0] };
    }
    var low = Math.min.apply(null, among.map(function (i) { return totals[i]; }));
    var lowest = among.filter(function (i) { return totals[i] === low; });
    if (!d.lowest) lowest.forEach(function (i) { d.outAt[i] = null; });
    if (lowest.length > 1) return { another: true };
    return { decided: item.number, winner: lowest[0] };
  }

  // Each game's ways: the fields a deal is typed in (and a blank form's choice), how it is
  // read and checked, said, drawn, and where it leaves the match.
  var TRESSETTE = {
    fields: ["kind", "side", "seat", "card_points_0", "card_points_1", "declared_points_0",
      "declared_points_1", "card_pad_0", "card_pad_1"],
    blank: { kind: "normal" },
    read: read, typed: typed, cells: cells, settle: settle, level: "tie",
  };
  var TERZIGLIO = {
    fields: ["soloist", "bid", "card_pad", "card_points"],
    blank: {},
    read: readSolo, typed: typedSolo, cells: soloCells, settle: settleSolo, level: "level",
  };
  var A_PERDERE = {
    fields: ["players", "sweeper", "card_points_0", "card_points_1", "card_points_2", "card_points_3",
      "card_points_4"],
    blank: { sweeper: "" },
    read: readEach, fill: fillEach, typed: typedEach, cells: eachCells, settle: settleEach,
    level: "lowest",
  };
  var GAMES = { terziglio: TERZIGLIO, a_perdere: A_PERDERE };

  // --- The copy shown offline says so; a sheet that changed is kept again for offline.
  if (keptAt) {
    var time = new Date(keptAt).toLocaleTimeString(document.documentElement.lang, {
      hour: "2-digit", minute: "2-digit",
    });
    var banner = element("p", "notice warn offline-banner", word("as-of", { time: time }));
    banner.id = "offline-copy";
    banner.setAttribute("role", "status");
    var sheet = document.getElementById("sheet");
    sheet.parentNode.insertBefore(banner, sheet);
  }
  // Asked for as each answer arrives, before it is drawn: once the phone shows a deal saved, a
  // copy with it is on its way (sw.js keeps copies in the order asked for).
  function keepCopy() {
    if (keptAt || !navigator.serviceWorker || !navigator.serviceWorker.controller) return;
    fetch(MATCH, { headers: { "X-Offline-Copy": "1" }, credentials: "same-origin" }).catch(function () {});
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.xhr.status === 200) keepCopy();
  });
  document.addEventListener("htmx:afterSettle", render);
  // The first visit: the service worker has just started, and has no copy of this sheet yet.
  if (navigator.serviceWorker) navigator.serviceWorker.addEventListener("controllerchange", keepCopy);
  window.addEventListener("online", function () {
    if (keptAt && !items.length) window.location.reload();
    else send();
  });
  setInterval(send, 20000);
  load().then(render).then(send).catch(function () {});
})();
