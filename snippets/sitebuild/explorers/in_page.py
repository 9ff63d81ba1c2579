"""What an explorer's script asks of culpa in the reader's browser: its data for the reader's numbers.

assets/explorers/start.js starts a Web Worker with Pyodide (assets/run/worker.js, as Run does) the first time
a reader changes an explorer's numbers, writes this package and the lessons it runs into the worker's Python
(sitebuild/steps/explorers.py serves them under assets/explorers/py/ with a manifest), and calls

    explore(name, fields, typeset)  # JSON texts in, a JSON text out

`fields` are the reader's fields as typed; `typeset` maps each formula's TeX to the index of its HTML in the
book's data (the formulas were typeset at build time, with a slot for each number, so the reader's numbers
need no typesetting: an exporter whose TeX for the reader's numbers differs from the book's is an error).
The answer is {"ok": true, "data": ...}, the same data the build exports for the book's numbers, made by the
same exporter from the same lesson code, or {"ok": false, "problems": [...]}: what is wrong with which field,
for the page's words to say (nothing changes).
"""

from __future__ import annotations

import json

from sitebuild import explorers


def explore(name: str, fields: str, typeset: str) -> str:
    module = explorers.module(name)
    arguments, problems = module.read(json.loads(fields))
    if problems:
        return explorers.to_json({"ok": False, "problems": problems})
    data = module.export(**arguments)
    index = json.loads(typeset)
    for entry in explorers.formulas(data):
        if entry["tex"] not in index:
            raise ValueError(f"explorer {name}: a formula for the reader's numbers was not typeset at build "
                             f"time: {entry['tex']!r} (its numbers must be slots, not TeX)")
        entry["typeset"] = index[entry["tex"]]
    return explorers.to_json({"ok": True, "data": data})
