"""Imports a stranger may send: a hostile file must cost the server little, and a large valid
one must not hold up the saves of the tables playing meanwhile.

- hostile: 2 MB of `"matches": [0, 0, …]`, the file that took 8.7 s a megabyte; timed from
  the upload to the answer in words.
- large: the archive table's JSON export, its matches repeated to just under the 20 MB cap,
  imported while one phone saves deals on another table, one after the other, as fast as the
  server answers; every save's time is kept until the import is answered.
"""

import json
import threading
import time
import uuid

from client import Answer, Phone

CAP_BYTES = 20 * 1024 * 1024
BOUNDARY = "bench-import-boundary"


def upload(phone: Phone, content: bytes, timeout: float = 300) -> Answer:
    """POST /tables/import with the file, as the home page's form sends it."""
    phone.request("GET", "/")  # its import form's CSRF token
    token = phone.token
    body = (
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="csrfmiddlewaretoken"\r\n\r\n'
            f'{token}\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; '
            'filename="export.json"\r\nContent-Type: application/json\r\n\r\n'
        ).encode()
        + content
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )
    headers = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
    return phone.request("POST", "/tables/import", headers=headers, body=body, timeout=timeout)


def hostile(size: int) -> bytes:
    head = b'{"format":"tressette-scoresheet","version":1,"table":{"name":"x"},"players":[],'
    zeros = b"0," * ((size - len(head) - 20) // 2)
    return head + b'"matches":[' + zeros + b"0]}"


def large(export: dict) -> bytes:
    """The export's matches, repeated (rematch links dropped) to just under the cap."""
    matches = [{**match, "rematch": None} for match in export["matches"]]
    per_match = len(json.dumps(matches).encode()) / len(matches)
    count = int((CAP_BYTES - 64 * 1024) / per_match)
    document = {**export, "matches": (matches * (count // len(matches) + 1))[:count]}
    content = json.dumps(document).encode()
    while len(content) > CAP_BYTES - 16 * 1024:
        document["matches"] = document["matches"][:-10]
        content = json.dumps(document).encode()
    return content


def saves_meanwhile(port: int, neighbour: dict, done: threading.Event) -> list[float]:
    """Deal 18 saved in one match after another of the neighbour table until `done`."""
    phone = Phone(port, language="")
    phone.join(neighbour["scorer"])
    seconds = []
    for match in neighbour["matches"]:
        if done.is_set():
            break
        form = {
            "number": neighbour["number"],
            "key": f"import-{uuid.uuid4().hex}",
            "kind": "normal",
            "card_points_0": 6,
            "card_points_1": 5,
            "typing": "0",
            "drawn_blank": "1",
        }
        path = f"/t/{neighbour['viewer']}/m/{match}/deals"
        answer = phone.request("POST", path, headers={"HX-Request": "true"}, form=form)
        if answer.status != 302 or "saved=" not in answer.headers.get("location", ""):
            raise RuntimeError(f"a save during the import answered {answer.status}")
        seconds.append(answer.seconds)
    return seconds


def run(port: int, seeded: dict) -> dict:
    phone = Phone(port)
    content = hostile(2 * 1024 * 1024)
    refused = upload(phone, content)
    words = "The file holds" in refused.text and "a table imports at most" in refused.text
    hostile_run = {"bytes": len(content), "seconds": refused.seconds, "status": refused.status}
    result = {"hostile": {**hostile_run, "in_words": words}}
    archive = seeded["archive"]["viewer"]
    export = json.loads(Phone(port).request("GET", f"/t/{archive}/export.json", timeout=300).body)
    content = large(export)
    done = threading.Event()
    saves: list[float] = []
    saver = threading.Thread(
        target=lambda: saves.extend(saves_meanwhile(port, seeded["neighbour"], done))
    )
    importer = Phone(port)
    saver.start()
    time.sleep(0.5)  # the saves run before the import begins
    imported = upload(importer, content)
    done.set()
    saver.join(60)
    result["large"] = {
        "bytes": len(content),
        "matches": content.count(b'"started_at"'),
        "seconds": imported.seconds,
        "status": imported.status,
        "saves": saves,
    }
    return result
