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
