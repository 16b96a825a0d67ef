"""The views, by what the person is doing: tables, the sheet, history and stats, moving a
table's history out and in, and the site around them."""
