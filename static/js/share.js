// A result for the table's chat (a match's, or tonight's tally): the server draws it (an
// SVG, and the text in the page); here the picture becomes a PNG, shared with the text
// through the phone's share sheet where it takes files, else the text alone; Copy copies
// the text (app.js) and the picture can be downloaded. Without this file, the page links
// the picture and shows the text. Each `.share-result` block on the page works on its own.
(function () {
  "use strict";
  var made = {}; // the PNG of each picture and text drawn, as a promise of a File (or null)

  function blocks() { return document.querySelectorAll(".share-result[data-picture]"); }
  function text(share) { return share.querySelector("textarea").value; }
  function keyOf(share) { return share.dataset.picture + "\n" + text(share); }

  // The picture drawn on a canvas, at its own size (1080 pixels wide), as a PNG.
  function png(share) {
    var key = keyOf(share);
    if (!made[key]) {
      made[key] = new Promise(function (resolve) {
        var image = new Image();
        image.onload = function () {
          var canvas = document.createElement("canvas");
          canvas.width = image.naturalWidth;
          canvas.height = image.naturalHeight;
          canvas.getContext("2d").drawImage(image, 0, 0);
          canvas.toBlob(function (blob) {
            resolve(blob && new File([blob], share.dataset.fileName, { type: "image/png" }));
          }, "image/png");
        };
        image.onerror = function () { resolve(null); };
        image.src = share.dataset.picture;
      }).then(function (file) {
        if (!file) delete made[key]; // tried again at the next tap
        return file;
      });
    }
    return made[key];
  }

  // What this browser can do is offered; the PNG is made ahead, so that a tap shares at once
  // (a share sheet opens only close to the tap), and the download link takes it.
  function offerOne(share) {
    share.querySelector("[data-share-button]").hidden = !navigator.share;
    share.querySelector("[data-copy]").hidden = !navigator.clipboard;
    var link = share.querySelector("[data-download]");
    var key = keyOf(share);
    if (link.dataset.key === key) return; // a poll that changed nothing of it
    link.dataset.key = key;
    png(share).then(function (file) {
      if (!file || !link.isConnected || link.dataset.key !== key) return;
      link.href = URL.createObjectURL(file);
      link.download = file.name;
    });
  }
  function offer() { blocks().forEach(offerOne); }
  offer(); // the page is whole: this file is deferred, or fetched once the result came (sheet.js)
  document.addEventListener("htmx:afterSettle", offer); // ended here, or on another phone

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-share-button]");
    if (!button) return;
    var share = button.closest(".share-result");
    var said = { title: document.title, text: text(share) };
    png(share).then(function (file) {
      var withPicture = file && { files: [file], title: said.title, text: said.text };
      var canShare = withPicture && navigator.canShare && navigator.canShare(withPicture);
      return navigator.share(canShare ? withPicture : said);
    }).catch(function () {}); // dismissed
  });
})();
