// Small enhancements for every page; everything works without them.
(function () {
  "use strict";
  // Installable and offline-aware: register the service worker (pages are never served stale).
  if ("serviceWorker" in navigator) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register("/sw.js").catch(function () {});
    });
  }

  function reveal(root) {
    root.querySelectorAll(".js-only[hidden]").forEach(function (element) {
      element.hidden = false;
    });
  }
  document.addEventListener("DOMContentLoaded", function () { reveal(document); });
  document.addEventListener("htmx:load", function (event) { reveal(event.detail.elt); });

  // A request that fails (no connection, or an error answer) says so in words, beside what
  // made it; htmx swaps nothing then, so what was typed stays. A poll's trouble is said
  // quietly, once; the words go as soon as a request gets through.
  var said = null;
  function failed(event) {
    var texts = document.getElementById("request-failed");
    var elt = event.detail.elt;
    if (!texts || !elt || !elt.isConnected) return;
    var poll = elt.id === "live";
    var status = event.type === "htmx:sendError" ? 0 : event.detail.xhr.status;
    var why = status === 403 ? "denied" : poll ? "stale" : status === 0 ? "network"
      : status === 429 ? "busy" : "failed";
    if (said && said.isConnected && said.dataset.why === why) return;
    if (said) said.remove();
    said = texts.content.querySelector('[data-why="' + why + '"]').cloneNode(true);
    said.className = "notice " + (poll ? "warn" : "error");
    said.setAttribute("role", poll ? "status" : "alert");
    said.id = "request-failed-notice";
    said.tabIndex = -1;
    var before = poll ? elt : elt.closest("form") || elt;
    before.parentNode.insertBefore(said, before);
    if (!poll) said.focus();
  }
  document.addEventListener("htmx:sendError", failed);
  document.addEventListener("htmx:responseError", failed);
  document.addEventListener("htmx:afterRequest", function (event) {
    if (said && event.detail.successful) {
      said.remove();
      said = null;
    }
  });

  // Copy a share link with one tap.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button || !navigator.clipboard) return;
    var field = document.getElementById(button.dataset.copy);
    navigator.clipboard.writeText(field.value).then(function () {
      button.dataset.label = button.dataset.label || button.textContent;
      button.textContent = "✓";
      setTimeout(function () { button.textContent = button.dataset.label; }, 1500);
    });
  });

  // New match: "who deals first" shows the names as they are typed.
  document.addEventListener("input", function (event) {
    var form = event.target.closest("#new-match");
    var match = event.target.name && event.target.name.match(/^player_(\d)$/);
    if (!form || !match) return;
    var label = form.querySelector('[data-seat="' + match[1] + '"]');
    if (!label) return;
    label.dataset.seatLabel = label.dataset.seatLabel || label.textContent;
    label.textContent = event.target.value.trim() || label.dataset.seatLabel;
  });
})();
