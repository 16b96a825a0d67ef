"""The pages' scripts (and the web app manifest) are fetched once a page is drawn: a phone
shows the sheet before its scripts arrive (a page works without them: its forms post and
redirect).
One inline script, the same on every page, loads them in order from its `data-src`; the policy
allows it by its hash (settings.SECURE_CSP), so no page holds a nonce. Once the last one has
run, the event `scripts:ran` starts what the scripts do to the page as drawn, in their order,
and then the page's root says so (`data-scripted`: the browser tests wait for it)."""

from base64 import b64encode
from hashlib import sha256

# Fetched once the page has loaded (htmx starts at once in a complete document; earlier it
# would wait for a DOMContentLoaded already past) and its first paint is on screen; where a
# browser does not tell paints (or paints nothing: a tab in the background), two frames on, or
# three seconds.
LOADER = (
    "(function(me){var done=false;"
    "function run(){if(done)return;done=true;var urls=me.dataset.src.split(' ');"
    "urls.forEach(function(url,i){var s=document.createElement('script');"
    "s.src=url;s.async=false;"
    "if(i===urls.length-1)s.onload=function(){document.dispatchEvent(new Event('scripts:ran'));"
    "document.documentElement.dataset.scripted=''};"
    "document.head.appendChild(s)});"
    "var m=document.createElement('link');m.rel='manifest';m.href=me.dataset.manifest;"
    "document.head.appendChild(m)}"
    "function later(){setTimeout(run)}"
    "function loaded(){var P=window.PerformanceObserver;setTimeout(run,3000);"
    "if(!P||(P.supportedEntryTypes||[]).indexOf('paint')<0)"
    "return requestAnimationFrame(function(){requestAnimationFrame(later)});"
    "new P(function(list,seen){if(list.getEntriesByName('first-contentful-paint').length)"
    "{seen.disconnect();later()}}).observe({type:'paint',buffered:true})}"
    "if(document.readyState==='complete')loaded();else addEventListener('load',loaded)"
    "})(document.currentScript)"
)
LOADER_HASH = "'sha256-" + b64encode(sha256(LOADER.encode()).digest()).decode() + "'"
