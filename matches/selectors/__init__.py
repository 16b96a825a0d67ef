"""What the pages show, read in a fixed number of queries and scored by `matches.rules`,
one module a page: `sheet` (a match as it is played, and what its polls compare),
`history`, `result` (a match's result, to share), `tables` (a table's version and its list
of matches), `evening` (tonight's tally) and `stats`.

Each reader returns a frozen plain object the template draws, in the language active when it
was read: no form, no request, no cache inside. Writes live in `matches.services`.
"""

from matches.selectors.evening import Tonight, load_tonight, tonight_of, tonight_picture
from matches.selectors.history import Logged, match_changes, match_names
from matches.selectors.result import Result, load_result, result_picture
from matches.selectors.sheet import (
    Sheet,
    State,
    as_typed,
    kind_labels,
    load_sheet,
    match_state,
    match_states,
    points_said,
)
from matches.selectors.stats import Record, Stats, table_stats
from matches.selectors.tables import MatchLine, table_matches, table_seen

__all__ = [
    "Logged",
    "MatchLine",
    "Record",
    "Result",
    "Sheet",
    "State",
    "Stats",
    "Tonight",
    "as_typed",
    "kind_labels",
    "load_result",
    "load_sheet",
    "load_tonight",
    "match_changes",
    "match_names",
    "match_state",
    "match_states",
    "points_said",
    "result_picture",
    "table_matches",
    "table_seen",
    "table_stats",
    "tonight_of",
    "tonight_picture",
]
