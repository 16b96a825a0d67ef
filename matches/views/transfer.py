"""A table's history out and back in: CSV and JSON downloads, and a JSON export imported as
a new table."""

import itertools
import secrets
from collections.abc import Iterable, Iterator
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_POST

from matches import exports, imports, selectors, services
from matches.forms import ImportForm, too_large_upload
from matches.limits import allow, refused
from matches.views.access import done, join, table_page, viewer_match
from matches.views.tables import home_page, too_many_tables

# An import is checked at length before anything is written: refused files count too.
TOO_MANY_IMPORTS = _(
    "Too many new tables or files to import from this address (refused files count too): "
    "try again in an hour."
)
CSV = "text/csv; charset=utf-8"
_CONTENT_TYPES = {"csv": CSV, "json": "application/json"}
TOO_MANY_EXPORTS = _(
    "Too many downloads of whole tables from this address: try again in an hour (a table "
    "downloaded once, and unchanged since, can be downloaded again at any time)."
)


def _download(chunks, filename: str, content_type: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(chunks, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _with_bom(chunks):
    """A byte-order mark first, so that spreadsheets read accents and emoji as UTF-8."""
    return itertools.chain(["\ufeff"], chunks)


@table_page
@require_GET  # not HEAD: it would read the whole export to send none of it
def export_table(request: HttpRequest, token: str, fmt: str) -> HttpResponse:
    """The whole history: JSON (lossless, re-importable) or CSV. Drawn once for the table
    as it stands (and, for CSV, the language), streamed as it is kept in a file; asked again,
    the file is sent. Drawing one is limited per address."""
    table = selectors.table_seen(token)
    if table is None:
        raise Http404
    name, content_type = exports.export_filename(table, fmt), _CONTENT_TYPES[fmt]
    language = get_language() if fmt == "csv" else "any"
    revision, matches_revision = table.version
    stored = settings.EXPORTS_DIR / f"{table.pk}-{revision}-{matches_revision}-{language}.{fmt}"
    if stored.exists():
        return FileResponse(stored.open("rb"), as_attachment=True, filename=name,
                            content_type=content_type)  # fmt: skip
    window = settings.EXPORTS_WINDOW
    if not allow(request, "export", limit=settings.EXPORTS_PER_HOUR, window=window):
        return refused(request, window, TOO_MANY_EXPORTS)
    if fmt == "json":
        chunks = exports.table_json_chunks(table)
    else:
        chunks = _with_bom(exports.table_csv_rows(table))
    return _download(_kept_as(stored, chunks), name, content_type)


def _kept_as(path: Path, chunks: Iterable[str]) -> Iterator[bytes]:
    """The export's bytes as they are sent, kept in `path` once whole; the table's exports
    of earlier versions go. A download broken off keeps nothing."""
    version = path.name.rsplit("-", 1)[0]  # "<table>-<revision>-<matches' revision>"
    table_id = version.split("-", 1)[0]
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f"{path.name}.{secrets.token_hex(4)}.part")
    try:
        with part.open("wb") as file:
            for chunk in chunks:
                data = chunk.encode()
                file.write(data)
                yield data
        for older in path.parent.glob(f"{table_id}-*"):
            if not older.name.startswith(f"{version}-") and not older.name.endswith(".part"):
                older.unlink(missing_ok=True)
        part.rename(path)
    finally:
        part.unlink(missing_ok=True)


@table_page
@require_GET
def export_match(request: HttpRequest, token: str, match_id: int) -> HttpResponse:
    match = viewer_match(token, match_id)
    chunks = _with_bom(exports.match_csv_rows(match))
    return _download(chunks, exports.export_filename(match.table, "csv", match), CSV)


@csrf_exempt  # checked below, once a body too large is refused: the check reads the body
@require_POST
def import_table(request: HttpRequest) -> HttpResponse:
    """A JSON export becomes a new table, joined by this phone; all or nothing.

    A body larger than any import is refused by its length, before it is read (the CSRF
    check would read it). Only a request that passes the CSRF check counts against the
    address's new tables: a forged one from another site must not use them up.
    """
    too_large = too_large_upload(request.META.get("CONTENT_LENGTH"))
    if too_large:
        return home_page(request, import_form=ImportForm.refused(too_large), status=413)
    return _import(request)


@csrf_protect
def _import(request: HttpRequest) -> HttpResponse:
    if too_many_tables(request):
        return home_page(request, import_form=ImportForm.refused(TOO_MANY_IMPORTS), status=429)
    form = ImportForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            # Read and checked whole before the write transaction: on SQLite every other
            # writer would wait for the check.
            document = imports.read(form.cleaned_data["file"].read())
        except imports.ImportInvalid as invalid:
            for message in invalid.messages:
                form.add_error("file", message)
        else:
            table = services.import_table(document=document)
            join(request, table)
            return done(request, reverse("table", args=[table.viewer_token]) + "?imported=1")
    return home_page(request, import_form=form)
