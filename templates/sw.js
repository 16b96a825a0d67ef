// Tressette Scoresheet service worker: static files from the cache; pages from the network.
// Offline, a match's sheet is the last one this phone saw, in its language, marked as such
// (offline.js says "Offline · as of 21:14"); any other page is the offline page.
const CACHE = "tressette-{{ version }}";
const SHEETS = "tressette-sheets";
const OFFLINE = "{% url 'offline' %}";
const STATIC = [OFFLINE{% for url in static_urls %}, "{{ url }}"{% endfor %}];
const SHEET = /^\/t\/[A-Za-z0-9_-]+\/m\/[0-9]+\/$/;
const LANGUAGE = "/offline-language"; // the language of the last sheet kept

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(STATIC)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  const current = [CACHE, SHEETS];
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => !current.includes(key)).map((key) => caches.delete(key))))
      .then(() => self.clients.claim())
  );
});

// A sheet as the network gave it, kept per match and language with the time it was drawn.
async function keepSheet(path, response) {
  const language = response.headers.get("Content-Language") || "";
  const headers = new Headers(response.headers);
  headers.set("X-Kept-At", new Date().toISOString());
  const copy = new Response(await response.blob(), { status: 200, headers });
  const cache = await caches.open(SHEETS);
  await cache.put(path + "?language=" + language, copy);
  await cache.put(LANGUAGE, new Response(language));
}

// The kept sheet, in the language last seen (else any), marked as a copy: never taken as live.
async function keptSheet(path) {
  const cache = await caches.open(SHEETS);
  const language = await cache.match(LANGUAGE).then((said) => (said ? said.text() : ""));
  let copy = await cache.match(path + "?language=" + language);
  if (!copy) {
    const keys = await cache.keys();
    const any = keys.find((key) => new URL(key.url).pathname === path);
    copy = any && (await cache.match(any));
  }
  if (!copy) return caches.match(OFFLINE);
  const at = copy.headers.get("X-Kept-At") || "";
  const html = (await copy.text()).replace("<html ", '<html data-offline-as-of="' + at + '" ');
  return new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8" } });
}

// Each path's copies are kept in the order they were asked for: one that comes back late never
// replaces a newer one. Offline, the copy is shown once those on their way are kept (offline.js
// asks for one as a save's answer arrives, before the phone shows the deal saved).
const keeping = new Map();

function sheet(request, path) {
  const answer = fetch(request);
  const copy = answer.then((response) => {
    const html = response.ok && response.headers.get("Content-Type").startsWith("text/html");
    return html ? response.clone() : null;
  }, () => null);
  const kept = Promise.all([keeping.get(path), copy])
    .then(([, response]) => response && keepSheet(path, response))
    .catch(() => {});
  keeping.set(path, kept);
  return { kept, answer: answer.catch(() => keeping.get(path).then(() => keptSheet(path))) };
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  // A sheet: opened (with every deal, too), or fetched again by offline.js after it changed
  // (the copy kept up to date).
  const asSheet = request.mode === "navigate" || request.headers.get("X-Offline-Copy") === "1";
  if (asSheet && SHEET.test(url.pathname) && (!url.search || url.search === "?deals=all")) {
    const { kept, answer } = sheet(request, url.pathname);
    event.respondWith(answer);
    event.waitUntil(kept); // the copy is written though the page has gone
  } else if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => caches.match(OFFLINE)));
  } else if (url.pathname.startsWith("{{ static_prefix }}") || STATIC.includes(url.pathname + url.search)) {
    event.respondWith(
      caches.match(request).then((hit) => hit || fetch(request).then((response) => {
        const copy = response.clone();
        if (response.ok) caches.open(CACHE).then((cache) => cache.put(request, copy));
        return response;
      }))
    );
  }
});
