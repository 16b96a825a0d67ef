// The sheet's small enhancements. Everything works without them; no score is computed here.
(function () {
  "use strict";
  var lastEtag = null;

  // Polls carry the ETag of the last poll's answer, or the one the sheet was drawn with (the
  // page's, or that of the parts this phone's own save or action brought): an unchanged sheet
  // answers 304 and is not swapped.
  document.addEventListener("htmx:configRequest", function (event) {
    var tag = event.detail.elt.id === "live" && (lastEtag || event.detail.elt.dataset.etag);
    if (tag) event.detail.headers["If-None-Match"] = tag;
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    // The poll's own element (app.js): once its answer replaced it, htmx fires this on another.
    if (window.requestOrigin(event).id === "live") {
      var tag = event.detail.xhr.getResponseHeader("ETag");
      if (tag) lastEtag = tag;
    } else if (event.detail.successful) {
      lastEtag = null; // another answer drew the sheet afresh: #live names its ETag
    }
  });
  // A poll that brought a change says the totals in a sentence, for a screen reader (this
  // phone's own saves are said where focus goes instead). A "saved" or "deleted" notice,
  // with its Undo or Restore, speaks of the sheet as it was: once another phone changed its
  // deals, it goes (the history keeps what happened).
  document.addEventListener("htmx:afterSettle", function (event) {
    if (window.requestOrigin(event).id !== "live" || event.detail.xhr.status !== 200) return;
    var said = document.querySelector("#live [data-announce]");
    var region = document.getElementById("announce");
    var arrived = document.getElementById("arrived-by"); // who entered the deal just marked
    var first = arrived ? arrived.textContent.replace(/\s+/g, " ").trim() + ". " : "";
    if (said && region) region.textContent = first + said.textContent;
    // The number of the last deal in sight (a long sheet draws its last deals alone).
    var rows = document.querySelectorAll("#deal-rows tr:not(.pending)");
    var deals = rows.length ? rows[rows.length - 1].id.replace("deal-", "") : "0";
    document.querySelectorAll("[data-while-deals]").forEach(function (notice) {
      if (notice.dataset.whileDeals !== deals) notice.remove();
    });
  });

  function form() { return document.getElementById("deal-form"); }

  // A poll that was sent before the phone started typing must not wipe what it typed, unless
  // the form is withdrawn (this phone may no longer score). The answer to this phone's own
  // save or action always draws its parts. (An answer's parts are swapped one by one, right
  // after its beforeSwap, which alone says which request it answers.)
  var answeringPoll = false;
  document.addEventListener("htmx:beforeSwap", function (event) {
    answeringPoll = window.requestOrigin(event).id === "live";
  });
  // Nor move the form on to the next deal (the parts a poll draws when another phone saved
  // the deal this one shows): the deal being typed stays this one, as the phone was told.
  var NEXT = ["entry-next", "delete-last", "deal-key"];
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var typing = document.getElementById("typing");
    var incoming = event.detail.fragment;
    var keeps = incoming && incoming.querySelector && incoming.querySelector("#deal-form");
    var id = event.detail.target.id;
    var mine = ((id === "entry" || id === "settings") && keeps) || NEXT.indexOf(id) >= 0;
    if (answeringPoll && mine && typing && typing.value === "1") {
      event.detail.shouldSwap = false;
    }
  });

  // A deal saved from a form drawn blank (here, or on another phone as a poll shows): the
  // answer drew only what the next deal changes (its number, the totals, the revision),
  // so the form is emptied here to what the server drew, and its draft is the next deal's.
  // Not while a deal is typed in it (its next parts were not swapped in).
  document.addEventListener("deal:next", function () {
    var f = form();
    var typing = document.getElementById("typing");
    if (!f || (typing && typing.value === "1")) return;
    f.reset();
    f.dataset.draft = document.getElementById("deal-number").value;
    f.querySelectorAll("[data-typed]").forEach(function (field) { delete field.dataset.typed; });
    var count = f.querySelector("details.count");
    if (count) count.open = false;
  });

  function markTyping() {
    var typing = document.getElementById("typing");
    if (typing) typing.value = "1";
  }

  // What was typed before the page was drawn again is back (app.js): a poll must keep it.
  document.addEventListener("draft:restored", markTyping);

  function kindChip() { return form() && form().querySelector("input[name=kind]:checked"); }
  function kind() {
    var checked = kindChip();
    return checked ? checked.value : "normal";
  }
  // What the kind picked asks for, as its chip says (forms.Kinds, from the rules): whom a
  // sweep names, "side" or "player" (a player's chip says their side: data-side), or null;
  // and whether its card points go without saying.
  function sweptBy() {
    var checked = kindChip();
    return (checked && checked.dataset.sweeper) || null;
  }
  function cardPointsImplied() {
    var checked = kindChip();
    return Boolean(checked && checked.hasAttribute("data-card-points-implied"));
  }
  // The side that sweeps as the form stands: its chip, or the chip of the player who swept.
  function sweeper() {
    var by = sweptBy();
    var chip = by && form().querySelector(by === "side" ? "input[name=side]:checked" : "input[name=seat]:checked");
    return chip ? Number(by === "side" ? chip.value : chip.dataset.side) : null;
  }

  // Typing one side's card points fills in the other side's, as the server's rules would
  // (the page lists them: `data-other-card-points`, the other side's for 0, 1, ... typed).
  // Only in a deal played out: a claim stopped early (the other pile is not all the rest),
  // and the server fills in a sweep's blank side by the sweep's rule, so that a wrong number
  // is said of the one typed. Points filled in before such a kind was picked are taken out
  // again, and put back if the deal is played out after all.
  function cardFields() { return form().querySelectorAll("input[data-card-points]"); }
  function fillIn() {
    var fields = cardFields();
    var typed = [].filter.call(fields, function (field) { return field.dataset.typed === "1"; });
    if (typed.length !== 1) return;
    var other = typed[0] === fields[0] ? fields[1] : fields[0];
    var value = typed[0].value.trim();
    var others = form().dataset.otherCardPoints.split(" ");
    // What is not a number the list knows leaves the other side blank, not at what an
    // earlier keystroke made it (12 would leave the 10 that "1" gave): the error is said of
    // the number typed.
    var known = /^[0-9]{1,2}$/.test(value) && parseInt(value, 10) < others.length;
    other.value = kind() === "normal" && known ? others[parseInt(value, 10)] : "";
    showOnPad(other);
  }

  // A side's pad (radios: they work without this script) shows the key of what its field
  // holds, none for what no key says ("7⅓"). A key tapped is that side's card points, the
  // other side's filled in: a tap is a pick, so the last side tapped is the one counted
  // (typed in both fields, both are kept, and the server checks that they add up).
  function keys(side) { return form().querySelectorAll('input[name="card_pad_' + side + '"]'); }
  function showOnPad(field) {
    var value = field.value.trim();
    keys(field.dataset.cardPoints).forEach(function (key) { key.checked = key.value === value; });
  }
  function tapped(key) {
    var fields = cardFields();
    var field = fields[Number(key.name.slice(-1))]; // card_pad_0, card_pad_1
    field.value = key.value;
    field.dataset.typed = "1";
    delete fields[field === fields[0] ? 1 : 0].dataset.typed;
    fillIn();
  }
  // As drawn (a deal put back by Undo, a deal to edit, keys tapped before this script ran),
  // a key may be tapped with its field blank: the server counts the key then, and so does
  // the field here.
  function drawnPads() {
    cardFields().forEach(function (field) {
      var key = [].filter.call(keys(field.dataset.cardPoints), function (k) { return k.checked; })[0];
      if (!field.value.trim() && key) field.value = key.value;
      showOnPad(field);
    });
  }

  // A cappotto (or a cappottone) decides both sides' card points (the rules fill them in):
  // what the fields held goes, so that nothing left from before (a deal put back by Undo) is
  // sent to fail, and their keys rest (app.css). Back if another kind is picked after all.
  function cappotto() {
    var sweep = cardPointsImplied();
    cardFields().forEach(function (field) {
      if (sweep && field.value) {
        field.dataset.kept = field.value;
        field.value = "";
      } else if (!sweep && field.dataset.kept) {
        if (!field.value) field.value = field.dataset.kept;
        delete field.dataset.kept;
      }
      showOnPad(field);
    });
  }

  // What the totals will be once this deal is saved, beside them at the top of the entry:
  // what the form holds added to the totals the scoreboard shows. A sweep takes its side to
  // what the page says the rules give it. Whatever is not a plain number here is left for
  // the server to read ("…").
  function number(text) {
    text = text.trim();
    return /^[0-9]{1,3}$/.test(text) ? parseInt(text, 10) : text ? null : undefined;
  }
  function declared(text) {
    if (!text.trim()) return 0;
    if (!/^\+? *[0-9]{1,3}( *\+ *[0-9]{1,3})*$/.test(text.trim())) return null;
    return text.split("+").reduce(function (sum, part) { return sum + (parseInt(part, 10) || 0); }, 0);
  }
  function forecast() {
    var f = form();
    var tally = document.getElementById("tally");
    var after = document.getElementById("after");
    if (!f || !tally || !after) return;
    var now = [].map.call(document.querySelectorAll("#live .scoreboard .total"), function (total) {
      return number(total.textContent);
    });
    tally.querySelectorAll("b").forEach(function (shown, side) {
      shown.textContent = now[side] === undefined || now[side] === null ? "…" : now[side];
    });
    var k = kind();
    var sweep = sweptBy() !== null;
    var swept = sweeper();
    var drawn = tally.dataset.totals.split(" ").map(Number);
    var sweeps = tally.dataset.sweeps.split(" ").map(Number);
    var fields = cardFields();
    var held = false;
    var totals = [0, 1].map(function (side) {
      var cards = number(fields[side].value);
      var said = f.querySelector("[name=declared_points_" + side + "]"); // none: not counted
      var decl = said ? declared(said.value) : 0;
      held = held || cards !== undefined || decl !== 0;
      if (sweep && swept === null) return null; // which side swept decides both
      if (swept === side) return now[side] === drawn[side] ? sweeps[side] : null;
      if (cards === undefined && k !== "normal") cards = 0; // blank: none taken (the server's reading)
      if (typeof cards !== "number" || decl === null || typeof now[side] !== "number") return null;
      return now[side] + cards + decl;
    });
    held = held || k !== "normal";
    after.querySelector("[data-hint]").hidden = held;
    after.querySelector("[data-after]").hidden = !held;
    after.querySelectorAll("[data-after] b").forEach(function (shown, side) {
      shown.textContent = totals[side] === null ? "…" : totals[side];
    });
  }

  // The form as drawn (the page, an answer that drew it, a draft put back): its pads, its
  // kind's card points and what the totals will be.
  function drawnForm() {
    if (!form()) return;
    drawnPads();
    cappotto();
    forecast();
  }
  document.addEventListener("DOMContentLoaded", drawnForm);
  document.addEventListener("draft:restored", drawnForm);
  document.addEventListener("htmx:afterSettle", drawnForm);
  document.addEventListener("deal:next", forecast);

  document.addEventListener("input", function (event) {
    var f = form();
    if (!f || !f.contains(event.target)) return;
    markTyping();
    if (event.target.hasAttribute("data-card-points")) {
      event.target.dataset.typed = "1";
      fillIn();
      showOnPad(event.target);
    }
    forecast();
  });
  document.addEventListener("change", function (event) {
    var f = form();
    if (!f || !f.contains(event.target)) return;
    if (/^card_pad_\d$/.test(event.target.name)) {
      markTyping();
      tapped(event.target);
    } else if (event.target.name === "kind") {
      fillIn();
      cappotto();
      // A sweep or a claim asks which side, a sweep by one which player: brought into
      // sight, above the sticky Save.
      var choice = f.querySelector(sweptBy() === "player" ? ".player-choice" : ".side-choice");
      if (kind() !== "normal" && choice) choice.scrollIntoView({ block: "nearest" });
    }
    forecast();
  });

  // Declaration chips add to the field; "Clear" empties it.
  document.addEventListener("click", function (event) {
    var chip = event.target.closest("[data-add], [data-clear]");
    if (!chip) return;
    var field = document.getElementById(chip.dataset.target || chip.dataset.clear);
    if (!field) return;
    if (chip.dataset.clear) {
      field.value = "";
    } else {
      var current = parseInt(field.value, 10);
      field.value = String((isNaN(current) ? 0 : current) + parseInt(chip.dataset.add, 10));
    }
    markTyping();
    field.dispatchEvent(new Event("change", { bubbles: true }));
  });

  // Enter (a phone keypad's Go) in the count's fields counts: the form's first button, the
  // one Enter would press, saves the deal.
  document.addEventListener("keydown", function (event) {
    var count = event.key === "Enter" && event.target.closest("details.count");
    if (!count || event.target.tagName !== "INPUT") return;
    event.preventDefault();
    count.querySelector("button[name=count]").click();
  });

  // How far below the screen's foot the next deal's keys end, the sticky Save's bar under
  // them (the last pad: on the narrowest phones the sides' pads are one under the other).
  function keysBelow() {
    var pads = form() ? form().querySelectorAll(".pad") : [];
    var bar = form() && form().querySelector(".save-bar");
    var save = bar ? bar.offsetHeight : 0;
    if (!pads.length) return 0;
    return pads[pads.length - 1].getBoundingClientRect().bottom + save - innerHeight;
  }
  // After a save, the sheet's foot in sight, as on paper: the last deal, the totals, and the
  // next deal's keys whole above the sticky Save (first, where not all fit). Moved as little
  // as may be.
  function footInView() {
    var rows = document.querySelectorAll("#deal-rows tr");
    var below = keysBelow();
    if (!rows.length || !form()) return;
    var top = rows[rows.length - 1].getBoundingClientRect().top - 8; // a little above it too
    if (below > 0) window.scrollBy(0, below);
    else if (top < 0) window.scrollBy(0, Math.max(top, below));
  }
  // A sheet opened by a link opens with the totals at the top of the screen, the deals above
  // them, and under them the next deal's keys whole (first, where not all fit). A reload or
  // going back keeps the place the phone was at. (Half a pixel short: a scroll lands on a
  // device pixel, and must not take the totals' top edge off the screen.)
  document.addEventListener("DOMContentLoaded", function () {
    var entry = performance.getEntriesByType("navigation")[0];
    var focused = document.activeElement && document.activeElement !== document.body;
    if (!entry || entry.type !== "navigate" || focused) return;
    var totals = document.getElementById("live").getBoundingClientRect().top - 0.5;
    window.scrollBy(0, Math.max(document.querySelector("#deal-rows tr") ? totals : 0, keysBelow()));
    clearOfSave();
  });
  // A control the Save bar's top edge cuts as the sheet opens would show a sliver too thin
  // to tap: the bar reaches up over it (keys stay clear) until the sheet is scrolled.
  function clearOfSave() {
    var bar = form() && form().querySelector(".save-bar"), over = 0;
    if (!bar) return;
    var edge = bar.getBoundingClientRect().top;
    form().querySelectorAll("button, summary, label, input").forEach(function (control) {
      var box = control.getBoundingClientRect();
      if (box.top < edge && box.bottom > edge) over = Math.max(over, edge - box.top);
    });
    if (!over || keysBelow() + over > 0) return;
    bar.style.paddingTop = "calc(.5rem + " + over + "px)"; // app.css's, and the sliver
    requestAnimationFrame(function () { // after the scroll that opened the sheet is told
      addEventListener("scroll", function () { bar.style.paddingTop = ""; }, { once: true });
    });
  }

  // After a save (never after a poll), focus goes to the first field with an error (to what
  // is said of a deal's field, which a keyboard would cover), or to the message that says
  // what happened: once, when the answer's parts have settled. A deal saved leaves the
  // sheet's foot in sight, moved as little as may be; one that decides the match, the
  // totals at the top and what they say under them (End match stays at the foot: app.css).
  var focused = null;
  document.addEventListener("htmx:afterSettle", function (event) {
    var config = event.detail.requestConfig;
    if (!config || config.verb !== "post" || focused === event.detail.xhr) return;
    focused = event.detail.xhr;
    var target = document.querySelector(
      "#deal-errors, #sheet [aria-invalid=true], #sheet .errorlist[tabindex], " +
        "#sheet .notice[tabindex], #sheet .result"
    );
    var said = target && target.matches("#deal-form input[type=text]") &&
      document.getElementById(target.id + "_error");
    if (target && target.id === "saved") {
      target.focus({ preventScroll: true });
      if (form()) footInView();
      else document.getElementById("live").scrollIntoView();
    } else {
      window.bringTo(said || target);
    }
  });

  // Keep the screen awake while the match is played, where the browser can. Ended or stopped
  // (here, or on another phone as a poll shows), the screen may sleep again, and reopened it
  // is kept on again; only the phone's own tap on the toggle is stored as its choice.
  var lock = null;
  var playing = null;
  function wake(on) {
    if (!("wakeLock" in navigator)) return;
    if (on) {
      navigator.wakeLock.request("screen").then(function (l) { lock = l; }).catch(function () {});
    } else if (lock) {
      lock.release();
      lock = null;
    }
  }
  function followMatch() {
    var toggle = document.getElementById("wake");
    if (!toggle) return;
    if (!("wakeLock" in navigator)) { // this browser cannot keep the screen on
      toggle.closest(".wake").hidden = true;
      return;
    }
    var now = !document.querySelector("#sheet .result");
    if (now === playing) return; // a poll that changed nothing of this
    playing = now;
    toggle.closest(".wake").hidden = !now;
    toggle.checked = now && localStorage.getItem("wake") !== "0";
    wake(toggle.checked);
  }
  document.addEventListener("change", function (event) {
    if (event.target.id === "wake") {
      localStorage.setItem("wake", event.target.checked ? "1" : "0");
      wake(event.target.checked);
    }
  });
  document.addEventListener("DOMContentLoaded", followMatch);
  document.addEventListener("htmx:afterSettle", followMatch);

  // An open history follows the sheet: what a save here or a poll brought is listed at once.
  // Once per answer: htmx settles each element an answer swaps (the target, each OOB part).
  var historyDue = false;
  document.addEventListener("htmx:afterSettle", function (event) {
    var history = document.getElementById("history");
    var from = window.requestOrigin(event);
    if (!history || !history.open || from === history || history.contains(from)) return;
    if (event.detail.xhr.status !== 200 || historyDue) return;
    historyDue = true;
    setTimeout(function () {
      historyDue = false;
      var open = document.getElementById("history");
      if (open && open.open) htmx.trigger(open, "toggle");
    }, 0);
  });

  function load(src, then) {
    var script = document.createElement("script");
    script.src = src;
    script.onload = then || null;
    document.head.appendChild(script);
  }

  // Offline at the table (offline.js), on either game's sheet: fetched after this file; the
  // service worker keeps it for when there is no connection. Its words in the page's language
  // come first.
  (function () {
    var sheet = document.getElementById("sheet");
    if (!sheet || !window.indexedDB) return;
    load(sheet.dataset.offlineWords, function () { load(sheet.dataset.offlineScript); });
  })();

  // The result's Share (share.js) comes with the result: with the page that shows it, or
  // fetched once an answer brings it (End match here, or a poll).
  document.addEventListener("htmx:afterSettle", function () {
    var share = document.getElementById("share-result");
    var src = share && share.dataset.script;
    if (src && !document.querySelector('script[src="' + src + '"]')) load(src);
  });

  document.addEventListener("visibilitychange", function () {
    var toggle = document.getElementById("wake");
    if (toggle && toggle.checked && document.visibilityState === "visible") wake(true);
  });
})();
