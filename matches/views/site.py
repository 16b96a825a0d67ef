"""The site around the tables: the offline page, the web app manifest, the service worker,
offline.js's words, and two answers for operations (the benchmark's floor, the health check)."""

import hashlib
import json
from functools import cache

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext, gettext_noop, ngettext, pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from matches import rules, selectors
from matches.models import BIDS, Table


@require_safe
def offline(request: HttpRequest) -> HttpResponse:
    return render(request, "offline.html")


# What the manifest says in every language: how the installed app looks.
_INSTALLED = {
    "start_url": "/",
    "scope": "/",
    "display": "standalone",
    "orientation": "portrait",
    "background_color": "#f6f4ee",
    "theme_color": "#1f6f4a",
}
_ICONS = [
    ("icons/icon-192.png", "192x192", "image/png", "any"),
    ("icons/icon-512.png", "512x512", "image/png", "any"),
    ("icons/maskable-512.png", "512x512", "image/png", "maskable"),
    ("icons/icon.svg", "any", "image/svg+xml", "any"),
]


@require_safe
def manifest(request: HttpRequest, language: str) -> HttpResponse:
    """The web app manifest in the page's language: the name a phone gives the installed app.

    One address per language (the page names its own), so any cache may keep it a day.
    """
    with translation.override(language):
        names = {
            "lang": language,
            "name": gettext("Tressette Scoresheet"),
            "short_name": gettext("Tressette"),
            "description": gettext(
                "The score of your Tressette matches, on every phone at the table."
            ),
        }
    # "any" is an icon's purpose unless it says another: only the maskable one says it.
    icons = [
        {"src": static(name), "sizes": sizes, "type": kind}
        | ({"purpose": purpose} if purpose != "any" else {})
        for name, sizes, kind, purpose in _ICONS
    ]
    response = JsonResponse(
        {**names, **_INSTALLED, "icons": icons},
        content_type="application/manifest+json",
        json_dumps_params={"ensure_ascii": False, "separators": (",", ":")},
    )
    response["Content-Language"] = language  # the address's, not the phone's
    patch_cache_control(response, public=True, max_age=24 * 3600)
    return response


# What offline.js says of the deals that wait on a phone.
_OFFLINE_WORDS = {
    "as-of": gettext_noop(
        "Offline · the sheet as of %(time)s. Deals entered now wait on this phone and are sent "
        "once it is back online."
    ),
    "kept": gettext_noop(
        "Deal %(number)s kept on this phone: it is sent once the phone is back online."
    ),
    "waiting": gettext_noop("waiting to be sent"),
    "not-sent": gettext_noop("not sent"),
    "provisional": gettext_noop("provisional"),
    "refused": gettext_noop(
        "Deal %(number)s, entered on this phone, was not saved: %(words)s Correct it in the "
        "form and save it, or discard it."
    ),
    "refused-closed": gettext_noop(
        "Deal %(number)s, entered on this phone, was not saved: %(words)s Discard it to go on."
    ),
    # After the server's words: "Deal 1 was just entered on another phone. Anna 6, Bruno 5."
    "conflict": gettext_noop("Yours, entered on this phone, was not saved: %(yours)s."),
    "add": gettext_noop("Add mine as deal %(number)s"),
    "discard": gettext_noop("Discard mine"),
    "deal": gettext_noop("Deal %(number)s"),
    "dealer": gettext_noop("Deal %(number)s: <strong>%(dealer)s</strong> deals."),
    "at-line": gettext_noop("at the line"),
    "won": gettext_noop("match won"),
    "tie": gettext_noop(
        "Both sides have reached the line: by the agreed tie rule, play another deal."
    ),
    "level": gettext_noop("The highest balances are level: play another deal."),
    "lowest": gettext_noop("The lowest totals are level: play another deal."),
    "swept": gettext_noop("took every point"),
    "missing": gettext_noop("Type %(player)s's card points: 0 if none."),
    "decided": gettext_noop(
        "Deal %(number)s decides the match. Once this phone is back online its deals are sent, "
        "and End match appears."
    ),
}
# The checks of a played-out deal or a sweep a phone makes offline, in the rules' own words
# (a claim waits for the server's).
_OFFLINE_CHECKS = (
    "sweep_side_required",
    "sweep_player_required",
    "card_points_missing",
    "card_points_too_high",
    "card_points_sum",
    "card_points_sweep",
    *(f"{kind}_{said}card_points" for kind in rules.SWEEPS for said in ("sweeper_", "")),
    "declaration_impossible",
    "declarations_exceed_deck",
    "terziglio_soloist_required",
    "terziglio_bid_required",
    "terziglio_card_points_required",
    "terziglio_card_points_too_high",
    "a_perdere_player_out",
    "a_perdere_total",
    "a_perdere_total_exact",
    "a_perdere_sweep_unmarked",
)


@cache
def offline_words(language: str) -> str:
    """offline.js's words and what the rules derived, the same for every match (a sheet
    carries only where it stands: Sheet.offline), in `language`."""
    with translation.override(language):
        words = {name: gettext(text) for name, text in _OFFLINE_WORDS.items()}
        words["out"] = pgettext("a perdere: reached the line", "out")
        checks = {code: gettext(rules.MESSAGES[code]) for code in _OFFLINE_CHECKS}
        kinds = selectors.kind_labels()
        bids = {str(bid): str(label) for bid, label in BIDS}
    sizes = (1, 2)  # players a side
    data = {
        "words": words,
        "checks": checks,
        "kinds": kinds,
        "bids": bids,
        # Whom each sweep names: "side", or "player" for one who swept alone.
        "sweeps": {kind: by for kind in rules.DealKind if (by := rules.sweeper_named(kind))},
        "sweep_cards": {kind: _sweep_card_points(kind) for kind in rules.SWEEPS},
        "cards": rules.CARD_POINTS_PER_DEAL,
        "declared": {n: sorted(rules.declaration_totals_for_side(n)) for n in sizes},
        "pairs": {n: sorted(rules.declaration_pairs(n)) for n in sizes},
        "needs": _plurals(language, "needs %(n)s more"),
        "to_line": _plurals(language, "%(n)s to the line"),  # a perdere's
    }
    return f"window.offlineWords = {json.dumps(data, ensure_ascii=False)};\n"


def _sweep_card_points(kind: rules.DealKind) -> dict:
    """A sweep's card points as the rules check them, its sweepers being the first side: the
    least theirs may be and the most the others' may, both sides when neither is typed (a
    cappotto's) and a blank side filled in from the other's 0 … 11 (offline.js: read)."""
    least, most = rules.sweep_card_point_bounds(kind)
    typed = range(rules.CARD_POINTS_PER_DEAL + 1)
    implied = rules.card_points_implied(kind)
    return {
        "least": least,
        "most": most,
        "blank": rules.complete_card_points(None, None, kind=kind, side=0) if implied else None,
        "others": [rules.complete_card_points(n, None, kind=kind, side=0)[1] for n in typed],
        "sweepers": [rules.complete_card_points(None, n, kind=kind, side=0)[0] for n in typed],
    }


def _plurals(language: str, text: str) -> dict:
    """For each number up to the highest line, which of the language's plural forms of `text`
    ("needs 5 more") it takes, and those forms' texts: offline.js counts no plurals."""
    with translation.override(language):
        said = [ngettext(text, text, n) for n in range(rules.MAX_LINE + 1)]
    forms = list(dict.fromkeys(said))
    return {"forms": forms, "of": "".join(str(forms.index(text)) for text in said)}


@cache
def offline_words_url(language: str) -> str:
    """Named by what it holds: a phone may keep it for good."""
    digest = hashlib.blake2s(offline_words(language).encode(), digest_size=6).hexdigest()
    return f"{reverse('offline_words', args=[language])}?v={digest}"


@require_safe
def offline_words_script(request: HttpRequest, language: str) -> HttpResponse:
    response = HttpResponse(offline_words(language), content_type="text/javascript")
    response["Content-Language"] = language
    patch_cache_control(response, public=True, max_age=365 * 24 * 3600, immutable=True)
    return response


_PRECACHED = (
    "css/app.css",
    "icons/icon.svg",
    "js/app.js",
    "js/sheet.js",
    "js/offline.js",
    "django_htmx/htmx-2.min.js",
)


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """Served from the root so that it may answer for every page."""
    # What the offline page and a sheet kept for offline need: kept at once, even those a
    # page fetches only once it has loaded (offline.js).
    urls = [static(name) for name in _PRECACHED]
    urls += [offline_words_url(code) for code, _name in settings.LANGUAGES]
    context = {
        "static_urls": urls,
        "static_prefix": settings.STATIC_URL,
        "version": hashlib.blake2s("".join(urls).encode(), digest_size=6).hexdigest(),
    }
    response = render(request, "sw.js", context, content_type="text/javascript")
    patch_cache_control(response, no_cache=True)
    return response


@require_safe
def floor(request: HttpRequest) -> HttpResponse:
    """A constant answer through the whole middleware stack: the benchmark's floor."""
    return HttpResponse("floor\n", content_type="text/plain")


@never_cache
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """200 when the database answers with the app's tables, 503 when it does not."""
    try:
        Table.objects.exists()
    except DatabaseError:
        return HttpResponse(
            "database unavailable or not migrated\n", status=503, content_type="text/plain"
        )
    return HttpResponse("ok\n", content_type="text/plain")
