"""A table's history out and back in: CSV and JSON downloads, and a JSON export imported as
a new table."""

import itertools

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_POST

from matches import exports, imports, services
from matches.forms import ImportForm, too_large_upload
from matches.views.access import done, join, table_page, viewer_match, viewer_table
from matches.views.tables import home_page, too_many_tables

# An import is checked at length before anything is written: refused files count too.
TOO_MANY_IMPORTS = _(
    "Too many new tables or files to import from this address (refused files count too): "
    "try again in an hour."
)
CSV = "text/csv; charset=utf-8"


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
    """The whole history: JSON (lossless, re-importable) or CSV, streamed."""
    table = viewer_table(token)
    if fmt == "json":
        chunks = exports.table_json_chunks(table)
        return _download(chunks, exports.export_filename(table, "json"), "application/json")
    chunks = _with_bom(exports.table_csv_rows(table))
    return _download(chunks, exports.export_filename(table, "csv"), CSV)


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
