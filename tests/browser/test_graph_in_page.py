"""The graph of a reader's own code, in Chromium, against CPython culpa (#26 §2).

In each language, with the keyboard, as a reader, on page 03 with every host but the site's unreachable: a
block of this test's own code (not one of the page's) is typed into the page's first block and run; nothing
of the drawing (graph.js, graph.css, its Python) was fetched before. "Show the graph" draws the graph culpa
recorded in the page (Pyodide) for the block's last scalar tensor: its nodes, in order, carry the names the
code assigned, their ops and lines; stepping through every step with the arrow keys, each forward step shows
the node's value and each backward step its gradient exactly as this process writes them, computed here
with CPython culpa by another path (backward(retain_graph=True) and culpa.graph.export), pt with a decimal
comma; the node used three times says so, with its sum. Choosing a node (the up and down arrows, then a
click) highlights the line of the block that made it. The block's own backward() released the graph: the
page says it drew from its record. Another tensor of the block can be picked by name.

Then the other kinds of block, on a phone (390 × 844) with reduced motion asked for: a chapter block run as
the page wrote it (page 03's first, pt) and a lab cell (the build-check-train lab's first, en, with this
test's code typed in: a notebook's cell is laid out otherwise): the graph is culpa's (its ops in CPython's
order), a node chosen highlights its line inside that block, nothing scrolls sideways, Play is not offered,
and axe finds nothing serious in the graph, light or dark.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from visiting import ADOPT_CSS, axe_source, find_chromium, in_ci, wait_until

import culpa
from sitebuild import strings
from sitebuild.explorers import code_graph

if find_chromium() is None and not in_ci():
    pytest.skip("browser tests skipped: no Chromium", allow_module_level=True)

PAGES = {"pt": "03-worked-example/", "en": "en/03-worked-example/"}
LOAD_MS = 240_000  # a cold Pyodide on a busy 2-core machine
# the drawing's own files: graph.js, graph.css and its Python (not the page's figure of the worked example's
# graph, worked-example-graph.svg, an image the page loads lazily, whenever it nears the screen)
DRAWING_FILES = re.compile(r"/graph\.(?:js|css)\b|code_graph")
CODE = """\
import culpa
knob = culpa.Tensor([0.75, -1.25], requires_grad=True)
scale = culpa.Tensor(1.5, requires_grad=True)
h = (knob * scale).tanh()
loss = (h * h + h).sum() / 2
loss.backward()
"""
LINES = CODE.splitlines()
HIGHLIGHTED = """() => { const h = CSS.highlights.get('culpa-graph-line');
  if (!h) return null;
  const r = [...h][0];
  const code = document.querySelector('[data-run-block="0"] [role="textbox"]');  // a chapter's or a cell's
  return {text: r.toString(), inside: code.contains(r.startContainer) && code.contains(r.endContainer)}; }"""


def expected(lang: str) -> list[dict]:
    """Each node of the block's graph as CPython culpa computes it, by another path than the page's: the
    same code with backward(retain_graph=True), exported by culpa.graph.export (no recorder, no sweep)."""
    namespace = {"__name__": "__main__"}
    exec(CODE.replace("loss.backward()", "loss.backward(retain_graph=True)"), namespace)
    nodes = culpa.graph.export(namespace["loss"])["nodes"]
    def shown(values) -> dict:  # the panel's text, and the two a row may show (the wide one if it fits)
        array = np.asarray(values)
        return {"full": code_graph.written(array, lang),
                "row": {code_graph.brief(array, lang), code_graph.wide(array, lang)}}

    return [{"op": n["op"], "value": shown(n["value"]),
             "grad": None if n["grad"] is None else shown(n["grad"])} for n in nodes]


def step_text(tab) -> dict:
    return tab.evaluate("""() => { const box = document.querySelector('.run-graph');
      const rule = box.querySelector('.cg-rule');
      return {node: Number(box.dataset.node), counter: box.querySelector('.cg-counter').textContent,
              math: [...rule.querySelectorAll('.cg-math:not(.cg-total):not(.cg-given):not(.cg-calc)')]
                      .map((e) => e.textContent),
              total: [...rule.querySelectorAll('.cg-total')].map((e) => e.textContent),
              notes: [...rule.querySelectorAll('.cg-note')].map((e) => e.textContent),
              terms: rule.querySelectorAll('.cg-term').length,
              say: box.querySelector('.cg-say').textContent}; }""")


def type_and_run(tab, code: str | None) -> None:
    """Block 0 of the page open in `tab`, with `code` typed over it (if given), run from its Run button."""
    # the block's editable code (a chapter's <code>, not an annotation's; a notebook cell's <pre>)
    block = tab.locator('[data-run-block="0"] code[role="textbox"], [data-run-block="0"] pre[role="textbox"]')
    block.first.scroll_into_view_if_needed()  # a block becomes editable once drawn (assets/run/run.js)
    if code is not None:
        wait_until(tab, "() => document.querySelector('[data-run-block=\"0\"] [role=\"textbox\"]')"
                        ".isContentEditable")
        block.first.click()
        tab.keyboard.press("ControlOrMeta+a")
        tab.keyboard.press("Delete")
        tab.keyboard.insert_text(code)
    press(tab, '[data-run-bar="0"] [data-run="run"]',
          "() => ['ok', 'error'].includes(document.querySelector('[data-run-output=\"0\"]').dataset.state)")


def press(tab, selector: str, until: str) -> None:
    """Enter pressed on `selector`'s element, then a wait until `until` (Python may be loading)."""
    tab.locator(selector).focus()
    tab.keyboard.press("Enter")
    wait_until(tab, until, timeout=LOAD_MS)


GRAPH_DONE = "() => ['ready', 'failed'].includes(document.querySelector('.run-graph').dataset.graphState)"


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_graph_of_the_readers_own_code_is_culpas(browser, served_site, lang):
    words = strings.of(lang)["graph"]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    foreign, requested = [], []
    # recorded, not routed (a route turns the cache off): no other host resolves (the fixture's ISOLATED)
    local = (served_site.origin + "/", "blob:", "data:")
    context.on("request", lambda r: None if r.url.startswith(local) else foreign.append(r.url))
    tab = context.new_page()
    tab.on("request", lambda request: requested.append(request.url))
    seen: dict = {}
    try:
        tab.goto(served_site.base + PAGES[lang], wait_until="load")
        type_and_run(tab, CODE)
        seen["output"] = tab.locator('[data-run-output="0"]').text_content()
        seen["before"] = [u for u in requested if DRAWING_FILES.search(u)]
        show = tab.locator(".run-graph > .run-button")
        seen["show"] = (show.text_content(), show.get_attribute("aria-label"))
        press(tab, ".run-graph > .run-button", GRAPH_DONE)
        box = tab.locator(".run-graph")
        seen["state"] = box.get_attribute("data-graph-state")
        seen["status"] = box.locator(".cg-status").text_content()
        seen["labels"] = box.locator(".cg-label").all_text_contents()
        seen["subs"] = box.locator(".cg-sub").all_text_contents()
        seen["notes"] = box.locator(".cg-ui > .cg-note").all_text_contents()
        seen["expanded"] = show.get_attribute("aria-expanded")
        # every step, with the keyboard on the graph
        box.locator(".cg-stage").focus()
        steps = []
        total = len(seen["labels"]) * 2
        for _ in range(total + 2):  # past the last step: the last one stays
            steps.append(step_text(tab))
            tab.keyboard.press("ArrowRight")
        seen["steps"] = steps
        seen["rows"] = tab.evaluate("""() => [...document.querySelectorAll('.run-graph .cg-graph')]
          .flatMap((svg) => [...svg.querySelectorAll('.cg-value')].map((v, i) =>
            [v.textContent, svg.querySelectorAll('.cg-grad')[i].textContent]))""")
        # choosing a node: down from the last backward step (knob, at the top) to scale, its line highlighted
        tab.keyboard.press("ArrowDown")
        seen["chosen_up"] = (step_text(tab), tab.evaluate(HIGHLIGHTED))
        # a click on h's box
        box.locator('.cg-node[data-node="3"]').click()
        seen["chosen_click"] = (step_text(tab), tab.evaluate(HIGHLIGHTED))
        # another tensor, by name
        box.locator(".cg-pick select").focus()
        tab.keyboard.press("ArrowUp")  # from loss, the last of knob, scale, h, loss
        wait_until(tab, "() => document.querySelectorAll('.run-graph .cg-label').length === 4",
                        timeout=60_000)
        seen["h_labels"] = box.locator(".cg-label").all_text_contents()
        seen["focus_after_pick"] = tab.evaluate("() => document.activeElement.tagName")
        seen["h_notes"] = box.locator(".cg-ui > .cg-note").all_text_contents()
    finally:
        context.close()
    assert seen["output"].strip() in ("", strings.of(lang)["run"]["noOutput"]), seen["output"]
    assert seen["before"] == [], f"fetched before the reader asked: {seen['before']}"
    assert seen["show"] == (words["show"], words["showN"].format(n=1))
    assert seen["state"] == "ready", seen["status"]
    assert seen["expanded"] == "true"
    # the nodes: names by assignment, ops, lines
    want = expected(lang)
    line = lambda n: words["line"].format(line=n)  # noqa: E731
    assert seen["labels"] == ["knob", "scale", "mul₁", "h", "mul₂", "add", "sum", "2", "loss"], seen["labels"]
    assert seen["subs"] == [f"leaf · {line(2)}", f"leaf · {line(3)}", f"mul · {line(4)}", f"tanh · {line(4)}",
                            f"mul · {line(5)}", f"add · {line(5)}", f"sum · {line(5)}", f"leaf · {line(5)}",
                            f"div · {line(5)}"]
    assert [s.split(" · ")[0] for s in seen["subs"]] == [n["op"] for n in want]
    assert words["released"] in seen["notes"]
    # forward: each node's value, as CPython culpa computes it; backward: each gradient
    steps = seen["steps"]
    forward = steps[:9]
    for k, step in enumerate(forward):
        assert step["node"] == k
        assert step["counter"] == words["stepForward"].format(n=k + 1, total=9)
        value = want[k]["value"]["full"]
        # a constant 2 is labelled with its value
        shown = any(m.endswith(f"= {value}") for m in step["math"]) or seen["labels"][k] == value
        assert shown, (k, step["math"], value)
        assert k == 0 or value in step["say"]  # the first step is said once a key moves to it
    backward = steps[9:17]  # the constant 2 gets no gradient: 8 backward steps
    assert [s["node"] for s in backward] == [8, 6, 5, 4, 3, 2, 1, 0]
    for k, step in enumerate(backward):
        assert step["counter"] == words["stepBackward"].format(n=k + 1, total=8)
        grad = want[step["node"]]["grad"]["full"]
        assert step["total"] and step["total"][-1].endswith(f"= {grad}"), (step["node"], step["total"], grad)
        assert grad in step["say"]
    assert steps[-1] == steps[-2] == steps[-3]  # ArrowRight at the last step stays there
    h = backward[4]
    assert h["terms"] == 3 and words["sumNote"].format(node="h", count=3) in h["notes"]
    assert h["total"][-1].count(" + ") == 2
    if lang == "pt":  # a decimal comma: culpa's 1.5 is written 1,5
        assert "1,5" in forward[1]["say"] and "1.5" not in forward[1]["say"]
    for (shown_value, shown_grad), node in zip(seen["rows"], want, strict=True):  # at the last step
        assert shown_value in node["value"]["row"], (shown_value, node)
        assert shown_grad in (node["grad"]["row"] if node["grad"] else {""}), (shown_grad, node)
    # choosing a node highlights the line of code that made it
    up, highlighted = seen["chosen_up"]
    assert up["node"] == 1 and highlighted == {"text": LINES[2], "inside": True}, (up["node"], highlighted)
    assert LINES[2] in up["say"]
    clicked, highlighted = seen["chosen_click"]
    assert clicked["node"] == 3 and highlighted == {"text": LINES[3], "inside": True}, highlighted
    assert seen["h_labels"] == ["knob", "scale", "mul", "h"]
    assert seen["focus_after_pick"] == "SELECT"  # redrawn, and the focus still on the picker
    assert foreign == [], f"requests to other hosts: {foreign}"


PHONE = {"width": 390, "height": 844}
OTHER_BLOCKS = {"pt": ("03-worked-example/", None), "en": ("en/labs/build-check-train/", CODE)}


def run_and_show(tab, code: str | None) -> None:
    """Block 0 of the page open in `tab` (with `code` typed over it, if given) run, then its graph shown."""
    type_and_run(tab, code)
    press(tab, ".run-graph > .run-button", GRAPH_DONE)


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_an_unedited_block_and_a_lab_cell_graph_on_a_phone_with_reduced_motion(browser, served_site, lang):
    path, typed = OTHER_BLOCKS[lang]
    context = browser.new_context(viewport=PHONE, reduced_motion="reduce", is_mobile=True, has_touch=True)
    tab = context.new_page()
    seen: dict = {}
    try:
        tab.goto(served_site.base + path, wait_until="load")
        config = json.loads(tab.locator("#run-config").text_content())
        seen["code"] = typed if typed is not None else config["blocks"][0]["code"]
        run_and_show(tab, typed)
        box = tab.locator(".run-graph")
        seen["state"] = (box.get_attribute("data-graph-state"), box.locator(".cg-status").text_content())
        seen["subs"] = box.locator(".cg-sub").all_text_contents()
        seen["labels"] = box.locator(".cg-label").all_text_contents()
        seen["play"] = tab.evaluate("(name) => [...document.querySelectorAll('.run-graph button')]"
                                    ".filter((b) => b.getAttribute('aria-label') === name)"
                                    ".map((b) => b.getClientRects().length > 0)",
                                    strings.of(lang)["graph"]["play"])
        seen["widths"] = tab.evaluate("""() => ({page: document.documentElement.scrollWidth,
          screen: innerWidth, graph: document.querySelector('.run-graph').getBoundingClientRect().right})""")
        # the last node chosen with a tap: the line that made it, inside this block
        last = box.locator(".cg-node").last
        last.scroll_into_view_if_needed()
        last.tap()
        seen["highlighted"] = tab.evaluate(HIGHLIGHTED)
        tab.evaluate(axe_source())  # as DevTools does: the page's policy refuses an inline script
        tab.evaluate(ADOPT_CSS, "*, *::before, *::after { transition: none !important; }")
        seen["axe"] = []
        for palette in ("default", "slate"):
            tab.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", palette)
            tab.wait_for_timeout(50)
            only = {"runOnly": ["color-contrast"]} if palette == "slate" else {}
            result = tab.evaluate("([only]) => axe.run(document.querySelector('.run-graph'),"
                                  " {resultTypes: ['violations'], ...only})", [only])
            seen["axe"] += [f"{palette}: {v['id']} ({v['impact']}): {v['help']} at "
                            f"{[n['target'] for n in v['nodes']][:3]}"
                            for v in result["violations"] if v["impact"] in ("serious", "critical")]
    finally:
        context.close()
    assert seen["state"][0] == "ready", seen["state"]
    # culpa's graph of the block: its last scalar tensor's nodes, in CPython's order, by op
    namespace = {"__name__": "__main__"}
    exec(seen["code"].replace("loss.backward()", "loss.backward(retain_graph=True)"), namespace)
    root = namespace["loss"]
    ops = [n["op"] for n in culpa.graph.export(root)["nodes"]]
    assert [sub.split(" · ")[0] for sub in seen["subs"]] == ops, (seen["subs"], ops)
    assert seen["labels"][-1] == "loss", seen["labels"]
    made = next(line for line in seen["code"].splitlines() if line.startswith("loss ="))
    assert seen["highlighted"] is not None and seen["highlighted"]["inside"], seen["highlighted"]
    shown_line = seen["highlighted"]["text"].split("#")[0].strip()
    assert shown_line == made.split("#")[0].strip(), seen["highlighted"]
    assert seen["play"] == [False], f"Play offered under reduced motion: {seen['play']}"
    widths = seen["widths"]
    assert widths["page"] <= widths["screen"] and widths["graph"] <= widths["screen"] + 0.5, widths
    assert not seen["axe"], "axe-core finds serious or critical violations:\n" + "\n".join(seen["axe"])
