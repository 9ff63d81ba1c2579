"""Run one page's code blocks in order, in this fresh interpreter, as a reader pasting them would.

Usage: python run_page.py PAYLOAD.json RESULT.json
PAYLOAD holds the page name, its blocks (code + source line) and its number markers (expression + format).
RESULT gets each block's printed output (or the traceback that stopped the page) and each marker's
formatted value. Run in an empty folder with only the project installed: nothing of the repo is importable
but what `pip install` put on the path.
"""

import contextlib
import io
import json
import sys
import traceback


def main(payload_path: str, result_path: str) -> None:
    with open(payload_path, encoding="utf-8") as f:
        payload = json.load(f)
    namespace = {"__name__": "__main__"}
    outputs = []
    failed = False
    for block in payload["blocks"]:
        buffer = io.StringIO()
        error = None
        try:
            code = compile(block["code"], f"{payload['page']}, block at line {block['line']}", "exec")
            with contextlib.redirect_stdout(buffer):
                exec(code, namespace)
        except BaseException:
            error = traceback.format_exc()
            failed = True
        outputs.append({"stdout": buffer.getvalue(), "error": error})
        if failed:
            break
    values = {}
    if not failed:
        for marker in payload["markers"]:
            key = f"{marker['expr']}|{marker['fmt']}"
            try:
                values[key] = {"text": format(eval(marker["expr"], namespace), marker["fmt"])}
            except BaseException as err:
                values[key] = {"error": f"{type(err).__name__}: {err}"}
    with open(result_path, "w", encoding="utf-8") as f:
        json.dump({"outputs": outputs, "values": values}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    sys.exit(0)
