/* Run in the page: Run, Stop and Reset on every Python block, the code editable in place.
 *
 * sitebuild/steps/run_blocks.py marks each Python block (data-run-block="K", in page order), puts its bar (Run,
 * Stop, Reset: data-run-bar="K") and its <output> (data-run-output="K") under it, and writes the page's
 * blocks and strings (its language) into <script id="run-config">. Nothing of Python is fetched until the
 * first Run: then worker.js starts in a Web Worker and loads Pyodide, numpy and culpa from this site.
 * A page's blocks share one interpreter, in page order: Run on block K first runs the earlier blocks that
 * have not run in this interpreter (and says so). Stop ends the worker and starts a fresh one.
 *
 * One state object, one render(): the buttons and notes are redrawn from it.
 */
(function () {
  "use strict";
  const config = document.getElementById("run-config");
  if (!config) return;
  const page = JSON.parse(config.textContent);
  const S = page.strings;
  const workerURL = new URL("worker.js", document.currentScript.src);
  workerURL.searchParams.set("wheel", page.wheel);

  const state = {
    worker: null, // the interpreter, once started
    loading: false,
    busy: null, // block index whose Run is in progress
    ran: new Set(), // blocks that ran without error in this interpreter
    runs: 0,
    generation: 0, // bumped by Stop: a run of an older interpreter stops there
  };
  const blocks = []; // {index, spec, box, code, output, buttons}
  const pending = new Map(); // run id -> {resolve, block}

  const fmt = (text, values) => text.replace(/\{(\w+)\}/g, (_, key) => values[key]);

  function codeOf(block) {
    if (!block.edited) return block.spec.code;
    const copy = block.code.cloneNode(true);
    copy.querySelectorAll(".md-annotation, .md-annotation__index").forEach((node) => node.remove());
    return copy.textContent;
  }

  // ---- the interpreter ------------------------------------------------------------------------------

  function startWorker() {
    state.worker = new Worker(workerURL.href);
    state.loading = true;
    state.worker.onmessage = (event) => {
      const m = event.data;
      if (m.type === "ready") {
        state.loading = false;
        document.querySelectorAll(".run-loading").forEach((node) => node.remove());
        render();
      } else if (m.type === "failed") {
        state.loading = false;
        for (const { block, resolve } of pending.values()) {
          append(block, fmt(S.failedToLoad, { error: m.error }) + "\n", "stderr");
          resolve(false);
        }
        pending.clear();
        state.worker.terminate();
        state.worker = null;
        render();
      } else if (m.type === "out") {
        const run = pending.get(m.id);
        if (run) append(run.block, m.text, m.stream);
      } else if (m.type === "cut") {
        const run = pending.get(m.id);
        if (run) run.cut = m.shown;
      } else if (m.type === "done") {
        const run = pending.get(m.id);
        if (!run) return;
        pending.delete(m.id);
        if (run.cut !== undefined) {
          note(run.block, fmt(S.cut, { shown: run.cut.toLocaleString(page.lang), dropped: m.dropped.toLocaleString(page.lang) }));
        }
        if (!run.block.output.dataset.printed) note(run.block, m.ok ? S.noOutput : "");
        run.resolve(m.ok);
      }
    };
  }

  function execute(block, keepNotes) {
    if (!state.worker) startWorker();
    const id = ++state.runs;
    if (!keepNotes) clearOutput(block);
    block.output.dataset.state = "running";
    return new Promise((resolve) => {
      pending.set(id, { block, resolve });
      state.worker.postMessage({
        type: "run",
        id,
        code: codeOf(block),
        name: `<${fmt(S.blockN, { n: block.index + 1 })}>`,
        lab: Boolean(block.spec.lab),
      });
    }).then((ok) => {
      if (block.output.dataset.state === "running") block.output.dataset.state = ok ? "ok" : "error";
      if (ok) state.ran.add(block.index);
      else state.ran.delete(block.index);
      return ok;
    });
  }

  async function run(block) {
    if (state.busy !== null) return;
    state.busy = block.index;
    const generation = state.generation;
    render();
    const earlier = blocks.filter((b) => b.index < block.index && !b.spec.skip && !state.ran.has(b.index));
    clearOutput(block);
    if (earlier.length) {
      note(block, fmt(S.first, { blocks: earlier.map((b) => fmt(S.blockN, { n: b.index + 1 })).join(", ") }));
    }
    if (!state.worker || state.loading) note(block, S.loading, "run-loading");
    let ok = true;
    for (const before of earlier) {
      ok = await execute(before);
      if (generation !== state.generation) return; // stopped
      if (!ok) {
        note(block, fmt(S.earlierFailed, { n: before.index + 1 }));
        block.output.dataset.state = "error";
        break;
      }
    }
    if (ok) await execute(block, true);
    if (generation !== state.generation) return;
    state.busy = null;
    render();
  }

  function stop() {
    if (!state.worker) return;
    state.worker.terminate();
    state.generation += 1;
    for (const { block, resolve } of pending.values()) {
      note(block, S.stopped);
      block.output.dataset.state = "stopped";
      resolve(false);
    }
    pending.clear();
    state.ran.clear();
    state.busy = null;
    startWorker(); // a fresh interpreter, loading while the reader reads
    render();
  }

  // ---- the page -------------------------------------------------------------------------------------

  function clearOutput(block) {
    block.output.hidden = false;
    block.output.textContent = "";
    delete block.output.dataset.printed;
  }

  function append(block, text, stream) {
    let last = block.output.lastElementChild;
    if (!last || last.dataset.stream !== stream) {
      last = document.createElement("span");
      last.dataset.stream = stream;
      block.output.append(last);
    }
    last.append(document.createTextNode(text)); // a node per chunk: no copy of what is already shown
    block.output.dataset.printed = "1";
  }

  function note(block, text, extraClass) {
    if (!text) return;
    const span = document.createElement("span");
    span.className = "run-note " + (extraClass || "");
    span.textContent = text + "\n";
    block.output.append(span);
  }

  function render() {
    // only what changes is written: a write of the same value still restyles the button
    const set = (el, key, value) => el[key] !== value && (el[key] = value);
    for (const block of blocks) {
      if (!block.buttons) continue;
      const running = state.busy === block.index;
      set(block.buttons.run, "disabled", state.busy !== null);
      set(block.buttons.stop, "hidden", !running);
      set(block.buttons.reset, "disabled", !block.edited);
      if ((block.box.dataset.running || "") !== (running ? "1" : "")) block.box.dataset.running = running ? "1" : "";
    }
  }

  // The bar under each block and its <output> are in the page (sitebuild/steps/run_blocks.py): set up, nothing
  // is added to the article, which would restyle all of it while the page loads. Making a block's code
  // editable restyles every token of it (contenteditable is inherited, and role is in Material's
  // `[role="dialog"] ...` selectors): done a block at a time when the browser is idle, not while
  // Material's script starts, where it was most of the longest task of a chapter page's load on a phone.
  const editable = []; // blocks in page order
  const whenIdle = (f) => (window.requestIdleCallback ? requestIdleCallback(f, { timeout: 1000 }) : setTimeout(f, 50));
  function makeEditable() {
    const block = editable.shift();
    if (!block) return;
    if (block.makeEditable) block.makeEditable();
    whenIdle(makeEditable);
  }

  function setUp(box) {
    const index = Number(box.dataset.runBlock);
    const spec = page.blocks[index];
    const code = box.querySelector("code") || box.querySelector("pre"); // a lab's cell has no <code>
    const block = { index, spec, box, code, edited: false };
    blocks.push(block);
    block.output = document.querySelector(`[data-run-output="${index}"]`);
    if (spec.skip) return;
    const bar = document.querySelector(`[data-run-bar="${index}"]`);
    block.makeEditable = () => {
      block.makeEditable = null;
      code.setAttribute("contenteditable", "plaintext-only");
      code.setAttribute("spellcheck", "false");
      code.setAttribute("role", "textbox");
      code.setAttribute("aria-multiline", "true");
      code.setAttribute("aria-label", `${fmt(S.label, { n: index + 1 })}. ${S.edit}`);
    };
    editable.push(block);
    box.addEventListener("pointerdown", () => block.makeEditable && block.makeEditable()); // a reader who is quicker
    code.addEventListener("beforeinput", () => {
      if (!block.edited) block.original = code.innerHTML;
    });
    code.addEventListener("input", () => {
      block.edited = true;
      render();
    });
    code.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        run(block);
      }
    });
    const button = (what) => bar.querySelector(`[data-run="${what}"]`);
    block.buttons = { run: button("run"), stop: button("stop"), reset: button("reset") };
    block.buttons.run.addEventListener("click", () => run(block));
    block.buttons.stop.addEventListener("click", stop);
    block.buttons.reset.addEventListener("click", () => {
      if (block.edited) code.innerHTML = block.original;
      block.edited = false;
      render();
    });
  }

  document.querySelectorAll("[data-run-block]").forEach(setUp);
  blocks.sort((a, b) => a.index - b.index);
  render();
  whenIdle(makeEditable);
})();
