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
    var deals = String(document.querySelectorAll("#deal-rows tr:not(.pending)").length);
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
  var NEXT = ["entry-next", "recent", "delete-last", "deal-key"];
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
  // answer drew only what the next deal changes (its number, the revision, the last deals),
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

  function kind() {
    var checked = form() && form().querySelector("input[name=kind]:checked");
    return checked ? checked.value : "normal";
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
  }
  document.addEventListener("input", function (event) {
    var f = form();
    if (!f || !f.contains(event.target)) return;
    markTyping();
    if (event.target.hasAttribute("data-card-points")) {
      event.target.dataset.typed = "1";
      fillIn();
    }
  });
  document.addEventListener("change", function (event) {
    if (event.target.name !== "kind" || !form() || !form().contains(event.target)) return;
    fillIn();
    // A sweep or a claim asks which side: brought into sight, above the sticky Save.
    var choice = form().querySelector(".side-choice");
    if (kind() !== "normal" && choice) choice.scrollIntoView({ block: "nearest" });
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

  // After a save (never after a poll), focus goes to the first field with an error, or to
  // the message that says what happened: once, when the answer's parts have settled.
  var focused = null;
  document.addEventListener("htmx:afterSettle", function (event) {
    var config = event.detail.requestConfig;
    if (!config || config.verb !== "post" || focused === event.detail.xhr) return;
    focused = event.detail.xhr;
    var target = document.querySelector(
      "#deal-errors, #sheet [aria-invalid=true], #sheet .errorlist[tabindex], " +
        "#sheet .notice[tabindex], #sheet .result"
    );
    window.bringTo(target);
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

  // Offline at the table (offline.js): fetched after this file; the service worker keeps it
  // for when there is no connection.
  // Its words in the page's language come first.
  (function () {
    var sheet = document.getElementById("sheet");
    if (!sheet || !window.indexedDB) return;
    function load(src, then) {
      var script = document.createElement("script");
      script.src = src;
      script.onload = then || null;
      document.head.appendChild(script);
    }
    load(sheet.dataset.offlineWords, function () { load(sheet.dataset.offlineScript); });
  })();

  document.addEventListener("visibilitychange", function () {
    var toggle = document.getElementById("wake");
    if (toggle && toggle.checked && document.visibilityState === "visible") wake(true);
  });
})();
