// Small enhancements for every page; everything works without them.
(function () {
  "use strict";
  // What the scripts do to the page as drawn starts once all of them have run (each is
  // deferred, so the document is whole then): htmx's, this file's, the page's own.
  function ready(run) { document.addEventListener("DOMContentLoaded", run); }

  // Installable and offline-aware: register the service worker (pages are never served stale).
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js").catch(function () {});
  }

  // Focus, and bring into sight: focus() alone may not scroll (after an HTMX swap, htmx has
  // given focus back to the field that had it, while the page scrolled elsewhere).
  function bringTo(target) {
    if (!target) return;
    if (target.tabIndex < 0 && !target.hasAttribute("tabindex")) target.tabIndex = -1;
    target.focus();
    target.scrollIntoView({ block: "center" });
  }
  window.bringTo = bringTo; // sheet.js (loaded after this file) uses it after a save
  // A form sent without HTMX comes back whole: focus goes to what it says is wrong, which
  // may be out of sight (an alert drawn with the page is not always read out).
  // Else a notice the page was drawn to give (a merge done, say): drawn with the page, a
  // status is not read out unless it takes focus.
  function focusError() {
    bringTo(document.querySelector("main [aria-invalid=true]") ||
      document.querySelector("main .errorlist") ||
      document.querySelector("main [data-focus-on-load]"));
  }
  // A notice drawn from the address (?merged=4, ?edited=2) says what was just done. Once it
  // is shown, its parameter leaves the address: a reload does not say it again.
  function forgetDone() {
    var url = new URL(window.location.href);
    document.querySelectorAll("[data-once]").forEach(function (notice) {
      url.searchParams.delete(notice.dataset.once);
    });
    if (url.href !== window.location.href) {
      window.history.replaceState(window.history.state, "", url);
    }
  }
  ready(function () {
    focusError();
    forgetDone();
  });

  // A request that fails (no connection, or an error answer) says so in words, beside what
  // made it; htmx swaps nothing then, so what was typed stays. What a tap made stays said
  // until the same form gets through; a poll's trouble is said quietly and small, never over
  // a tap's, and goes once a poll gets through. (A 403 is a scorer link changed, or a page so
  // old its form's token expired: opening the scorer link again mends both. A 404 is a view
  // link changed. A 429 comes from a proxy.)
  var said = null;
  var saidFor = null;
  // The element that made the request: once a swap has replaced it, htmx fires the request's
  // later events on an element still in the page, so the event's own `elt` may be another.
  function origin(event) {
    var config = event.detail.requestConfig;
    return (config && config.elt) || event.detail.elt;
  }
  window.requestOrigin = origin; // sheet.js (loaded after this file) asks it too
  function isPoll(elt) { return elt.id === "live" || elt.hasAttribute("data-poll-etag"); }
  function failed(event) {
    var texts = document.getElementById("request-failed");
    var elt = origin(event);
    if (!texts || !elt || !elt.isConnected) return;
    var poll = isPoll(elt);
    var status = event.type === "htmx:sendError" ? 0 : event.detail.xhr.status;
    var config = event.detail.requestConfig;
    // The deals kept on the phone (offline.js) say themselves that they wait to be sent.
    if (status === 0 && config && config.headers["X-Offline-Queue"]) return;
    var why = status === 404 ? "gone" : poll ? "stale" : status === 403 ? "denied"
      : status === 0 ? "network" : status === 429 ? "busy" : "failed";
    if (said && said.isConnected && (said.dataset.why === why || (poll && !said.dataset.poll))) {
      return;
    }
    if (said) said.remove();
    said = texts.content.querySelector('[data-why="' + why + '"]').cloneNode(true);
    if (why === "stale" && elt.dataset.stale) said.textContent = elt.dataset.stale; // its own
    said.className = poll ? "notice warn small" : "notice error";
    said.setAttribute("role", poll ? "status" : "alert");
    if (poll) said.dataset.poll = "1";
    said.id = "request-failed-notice";
    said.tabIndex = -1;
    saidFor = elt;
    var before = poll ? elt : elt.closest("form") || elt;
    if (poll && elt.id !== "live") elt.querySelector("h2").after(said); // a card in a grid
    else before.parentNode.insertBefore(said, before);
    if (!poll) said.focus();
  }
  // A list that polls (the table's matches) names the version it shows: unchanged, it is
  // answered 304 and left as it is; changed, it is swapped with the next version's name.
  document.addEventListener("htmx:configRequest", function (event) {
    var tag = event.detail.elt.dataset && event.detail.elt.dataset.pollEtag;
    if (tag) event.detail.headers["If-None-Match"] = tag;
  });
  document.addEventListener("htmx:sendError", failed);
  document.addEventListener("htmx:responseError", failed);
  document.addEventListener("htmx:afterRequest", function (event) {
    if (!said || !event.detail.successful) return;
    var from = origin(event);
    if (said.dataset.poll ? !isPoll(from) : from !== saidFor) return;
    said.remove();
    said = null;
  });

  // What was typed in a form outlives the page being drawn again before it was sent: a change
  // of language, a reload, a browser that dropped the tab. Kept for this tab only, per page
  // and form, under the state the form was drawn for (`data-draft`: the deal's number, say):
  // only a blank form of that same state gets it back. A form drawn blank otherwise (a page
  // reached by a link, a form swapped in after Undo) is as the server drew it, and what was
  // kept for it goes: the phone saw it go. Not so a form that says `data-draft-stays` (the
  // next deal's): what was typed for it is back on a page reached by a link too (a look at
  // the stats and back), until it is sent or another deal takes its number. A form the server
  // sent back (an error) holds what was sent: that becomes the draft. Sending forgets it.
  function store(action) {
    try { return action(window.sessionStorage); } catch (error) { return null; } // refused
  }
  function draftKey(form) { return "draft:" + window.location.pathname + "#" + form.id; }
  function draftFields(form) {
    var kinds = /^(text|number|radio|checkbox|select-one|textarea)$/;
    return [].filter.call(form.elements, function (field) {
      // :disabled, not .disabled: a field in a disabled fieldset (a closed match) is shown only.
      return field.name && !field.matches(":disabled") && kinds.test(field.type);
    });
  }
  function keepDraft(form) {
    var values = {};
    draftFields(form).forEach(function (field) {
      if (field.type === "radio" || field.type === "checkbox") {
        values[field.name] = values[field.name] || [];
        if (field.checked) values[field.name].push(field.value);
      } else {
        values[field.name] = field.value;
      }
    });
    var draft = JSON.stringify({ state: form.dataset.draft, values: values });
    store(function (drafts) { drafts.setItem(draftKey(form), draft); });
  }
  function forgetDraft(form) {
    store(function (drafts) { drafts.removeItem(draftKey(form)); });
  }
  function restoreDraft(form) {
    var draft = store(function (drafts) { return JSON.parse(drafts.getItem(draftKey(form))); });
    if (!draft || draft.state !== form.dataset.draft) {
      forgetDraft(form);
      return;
    }
    var fields = draftFields(form);
    // A choice no longer offered (claims turned off) leaves its group as drawn.
    function offered(name, values) {
      return fields.some(function (other) {
        return other.name === name && values.indexOf(other.value) !== -1;
      });
    }
    fields.forEach(function (field) {
      var value = draft.values[field.name];
      if (value === undefined) return;
      if (field.type === "radio" && !offered(field.name, value)) return;
      if (Array.isArray(value)) field.checked = value.indexOf(field.value) !== -1;
      else field.value = value;
      // Back in sight: a folded part ("Count the pile") opens on what it holds.
      var folded = field.closest("details");
      var holds = field.type === "checkbox" ? field.checked : field.type !== "radio" && field.value;
      if (folded && holds) folded.open = true;
    });
    form.dispatchEvent(new CustomEvent("draft:restored", { bubbles: true }));
  }
  // Is this page drawn again: reloaded, gone back to, or after the language form? Read once
  // per page, so that the language form's mark never outlives the page it was sent from.
  function drawnAgain() {
    var entry = performance.getEntriesByType("navigation")[0];
    var carried = store(function (drafts) {
      var path = drafts.getItem("draft:language");
      drafts.removeItem("draft:language");
      return path;
    });
    return carried === window.location.pathname ||
      Boolean(entry && (entry.type === "reload" || entry.type === "back_forward"));
  }
  function draftsDrawn(root, again) {
    var forms = [].slice.call(root.querySelectorAll("form[data-draft]"));
    if (root.matches && root.matches("form[data-draft]")) forms.push(root);
    forms.forEach(function (form) {
      if (form.hasAttribute("data-draft-bound")) keepDraft(form);
      else if (again(form)) restoreDraft(form);
      else forgetDraft(form);
    });
  }
  // Kept once the input's own listeners are done (sheet.js fills in the other side's card
  // points), so that the draft is the form as the phone shows it.
  function typed(event) {
    var form = event.target.closest && event.target.closest("form[data-draft]");
    if (form) setTimeout(function () { keepDraft(form); }, 0);
  }
  document.addEventListener("input", typed);
  document.addEventListener("change", typed);
  document.addEventListener("submit", function (event) {
    if (event.target.matches("form[data-draft]")) forgetDraft(event.target);
    if (event.target.matches("form.language")) {
      store(function (drafts) { drafts.setItem("draft:language", window.location.pathname); });
    }
  });
  // Not sent after all (no connection, an error answer): what the form holds is the draft.
  function notSent(event) {
    var elt = origin(event);
    var form = elt && elt.closest && elt.closest("form[data-draft]");
    if (form && form.isConnected) keepDraft(form);
  }
  document.addEventListener("htmx:sendError", notSent);
  document.addEventListener("htmx:responseError", notSent);
  ready(function () {
    var again = drawnAgain();
    draftsDrawn(document, function (form) { return again || form.hasAttribute("data-draft-stays"); });
  });
  // A form an answer swaps in is as the server drew it (after Undo, say): what was kept for
  // it goes, unless the server sent it back holding what was sent.
  document.addEventListener("htmx:afterSwap", function (event) {
    var elt = event.detail.elt;
    if (!elt || !elt.isConnected || elt === document.body) return;
    draftsDrawn(elt, function () { return false; });
  });

  // Copy a share link with one tap.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button || !navigator.clipboard) return;
    var field = document.getElementById(button.dataset.copy);
    navigator.clipboard.writeText(field.value).then(function () {
      button.dataset.label = button.dataset.label || button.textContent;
      button.textContent = button.dataset.copied || "✓"; // said: the button is a live region
      setTimeout(function () { button.textContent = button.dataset.label; }, 1500);
    });
  });

  // The page's root says its scripts have run (the browser tests wait for it): after every
  // other script's start, in the same event.
  ready(function () {
    setTimeout(function () { document.documentElement.dataset.scripted = ""; });
  });
})();
