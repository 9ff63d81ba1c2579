"""sitebuild/steps/katex_render.py keeps one V8 context for the whole process, whoever first asks for it.

mini-racer adopts the caller's running asyncio loop when there is one and dies with it: a first formula
typeset inside a running loop (Playwright's, in the browser tests) left every later formula of the process
failing with "Event loop is closed". The renderer makes and uses its context on a thread of its own, and
closes it there at exit (a context made on one thread and left open crashed the interpreter at exit).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_a_formula_typeset_inside_a_running_loop_does_not_break_the_next_one():
    script = textwrap.dedent("""
        import asyncio
        from sitebuild.steps import katex_render

        async def first():
            return katex_render.render("a^2", False)

        loop = asyncio.new_event_loop()
        assert 'class="katex"' in loop.run_until_complete(first())
        loop.close()
        assert 'class="katex"' in katex_render.render("b^2", False)
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
