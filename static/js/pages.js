// The pages around the sheet (a table's, a new match, a match's settings): small
// enhancements; everything works without them.
(function () {
  "use strict";
  function ready(run) { document.addEventListener("DOMContentLoaded", run); }

  // A common line, with or without declarations, in one tap (a new match, a match's settings).
  document.addEventListener("click", function (event) {
    var pick = event.target.closest("[data-house-line]");
    if (!pick) return;
    var form = pick.closest("form");
    form.querySelector("[name=line]").value = pick.dataset.houseLine;
    form.querySelector("[name=declarations_allowed]").checked = pick.dataset.declarations === "1";
  });

  // Share a link through the phone's own share sheet, where there is one.
  ready(function () {
    if (!navigator.share) return;
    document.querySelectorAll("[data-share]").forEach(function (button) { button.hidden = false; });
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-share]");
    if (!button) return;
    var url = document.getElementById(button.dataset.share).value;
    navigator.share({ title: document.title, url: url }).catch(function () {}); // dismissed
  });

  // New match: "who deals first" shows the names as they are typed, and as they came back
  // with the page when something else on the form was wrong; a seat nobody need sit in (a
  // perdere's fourth and fifth) is not offered while its name is blank.
  function nameSeat(field) {
    var form = field.closest("[data-seats]");
    var match = field.name && field.name.match(/^player_(\d)$/);
    if (!form || !match) return;
    var label = form.querySelector('[data-seat="' + match[1] + '"]');
    if (!label) return;
    var name = field.value.trim();
    label.dataset.seatLabel = label.dataset.seatLabel || label.textContent;
    label.textContent = name || label.dataset.seatLabel;
    if (field.hasAttribute("data-optional")) label.closest("label").hidden = !name;
  }
  document.addEventListener("input", function (event) { nameSeat(event.target); });
  ready(function () {
    document.querySelectorAll("[data-seats] input[name^=player_]").forEach(nameSeat);
  });
})();
