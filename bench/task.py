"""One step inside Django, with the environment of the server under test (run by bench/run.py).

    python bench/task.py seed|settle|queries|acknowledged IN.json OUT.json

IN holds the step's arguments as JSON; OUT receives its result as JSON.
"""

import json
import os
import sys

import django


def main(step: str, given: str, out: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scoresheet.settings")
    django.setup()
    # Imported once Django is set up: both modules use the models.
    import probe
    import seed

    steps = {
        "seed": seed.seed,
        "settle": seed.settle,
        "queries": probe.query_counts,
        "acknowledged": probe.acknowledged,
    }
    with open(given) as file:
        arguments = json.load(file)
    result = steps[step](**arguments)
    with open(out, "w") as file:
        json.dump(result, file)


if __name__ == "__main__":
    main(*sys.argv[1:])
