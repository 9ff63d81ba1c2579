/* Run in the page: Run, Stop and Reset on every Python block, the code editable in place.
 *
 * sitebuild/steps/run_blocks.py marks each Python block (data-run-block="K", in page order), puts its bar (Run,
 * Stop, Reset: data-run-bar="K") and its <output> (data-run-output="K") under it, and writes the page's
 * blocks and strings (its language) into <script id="run-config">. Nothing of Python is fetched until the
 * first Run: then worker.js starts in a Web Worker and loads Pyodide, numpy and culpa from this site.
 * A page's blocks share one interpreter, in page order: Run on block K first runs the earlier blocks that
 * have not run in this interpreter (and says so). Stop ends the worker and starts a fresh one; Restart
 * Python (shown whenever an interpreter exists and nothing runs) ends it and gives its memory back.
 * If Python cannot be loaded (a file missing, a download cut, nothing heard for LOAD_TIMEOUT_S) the
 * block says what failed, naming the file (or the files still loading, for a load that went silent), and
 * offers Try again. The end of every run is announced to screen readers, and the focus never falls to the
 * page: a button that cannot act is aria-disabled, not disabled.
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
  // The worker starts from a blob: bootstrap that loads worker.js: a blob: worker inherits this page's
  // Content-Security-Policy (sitebuild/steps/content_policy.py), so Python run in it cannot reach another
  // host; a worker started from worker.js's own URL would take its policy from the response's headers,
  // and GitHub Pages sends none. worker.js reads its own address from self.culpaWorkerURL.
  const bootstrapURL = URL.createObjectURL(new Blob(
    [`self.culpaWorkerURL = ${JSON.stringify(workerURL.href)};\nimportScripts(self.culpaWorkerURL);\n`],
    { type: "text/javascript" },
  ));

  const LOAD_TIMEOUT_S = 120; // silence from a loading worker this long: give up (a busy phone takes ~20 s)
  // (a test sets window.culpaLoadTimeoutS, read when an interpreter starts, to see the watchdog at work)
  const state = {
    worker: null, // the interpreter, once started
    loading: false,
    heard: 0, // when the loading worker last said something
    loadingWhat: "", // what it was loading then: the files it waited for, or its stage
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
    // Chrome writes a line break typed or pasted into a lab's cell (a <pre>, styled spans) as <br>, which
    // textContent would drop, joining the lines
    copy.querySelectorAll("br").forEach((br) => br.replaceWith("\n"));
    return copy.textContent;
  }

  // ---- the interpreter ------------------------------------------------------------------------------

  function startWorker() {
    const worker = new Worker(bootstrapURL);
    state.worker = worker;
    state.loading = true;
    state.failed = false;
    state.heard = Date.now();
    state.loadingWhat = "worker.js";
    const limit = Number(window.culpaLoadTimeoutS) || LOAD_TIMEOUT_S;
    const watchdog = setInterval(() => {
      if (state.worker !== worker || !state.loading) clearInterval(watchdog);
      else if (Date.now() - state.heard > limit * 1000) {
        clearInterval(watchdog);
        loadFailed(fmt(S.loadTimedOut, { seconds: limit, what: state.loadingWhat }));
      }
    }, 1000);
    // worker.js itself missing or refused, or an error the worker did not catch
    worker.onerror = (event) => {
      event.preventDefault();
      if (state.worker !== worker) return;
      const said = event.message || "";
      if (!state.loading || (said && !said.includes("importScripts"))) {
        loadFailed(fmt(S.workerFailed, { error: said || "worker.js" }));
        return;
      }
      // worker.js itself did not load (the bootstrap's importScripts failed, which says no more than the
      // address): ask the server why, to name the file as the worker names the files it loads
      const named = (reason) => fmt(S.fileFailed, { file: "worker.js", reason });
      fetch(workerURL, { method: "HEAD", cache: "no-store" }).then(
        (r) => (r.ok ? fmt(S.workerFailed, { error: said }) : named(`HTTP ${r.status}`)),
        () => named(S.downloadCut),
      ).then((text) => { if (state.worker === worker) loadFailed(text); });
    };
    worker.onmessage = (event) => {
      if (state.worker !== worker) return;
      const m = event.data;
      state.heard = Date.now();
      if (m.type === "status") {
        state.loadingWhat = (m.files && m.files.length ? m.files.join(", ") : m.text) || state.loadingWhat;
      } else if (m.type === "ready") {
        state.loading = false;
        document.querySelectorAll(".run-loading").forEach((node) => node.remove());
        render();
      } else if (m.type === "failed") {
        const reason = { cut: S.downloadCut, checked: S.downloadChecked }[m.reason] || m.detail;
        loadFailed(m.file ? fmt(S.fileFailed, { file: m.file, reason }) : m.error);
      } else if (m.type === "out") {
        const run = pending.get(m.id);
        if (run) append(run.block, m.text, m.stream);
      } else if (m.type === "figure") {
        const run = pending.get(m.id);
        if (run) figure(run.block, m.url, m.texts, m.phone);
      } else if (m.type === "graphed") {
        const asked = graphAsks.get(m.id);
        graphAsks.delete(m.id);
        if (asked) asked(m);
      } else if (m.type === "cut") {
        const run = pending.get(m.id);
        if (run) run.cuts[m.stream] = note(run.block, "…"); // where the stream was cut; filled in at "done"
      } else if (m.type === "done") {
        const run = pending.get(m.id);
        if (!run) return;
        pending.delete(m.id);
        for (const [stream, span] of Object.entries(run.cuts)) {
          const d = m.dropped[stream];
          span.textContent = fmt(S.cut, { chars: d.chars.toLocaleString(page.lang), lines: d.lines.toLocaleString(page.lang) }) + "\n";
        }
        if (m.cancelled) note(run.block, fmt(S.cancelledTasks, { count: m.cancelled }));
        if (!run.block.output.dataset.printed) note(run.block, m.ok ? S.noOutput : "");
        if (m.graph) graphButton(run.block, JSON.parse(m.graph));
        run.resolve(m.ok);
      }
    };
  }

  // Python could not be loaded: each waiting block says why and offers to try again.
  function loadFailed(error) {
    const worker = state.worker;
    state.worker = null;
    state.loading = false;
    if (worker) worker.terminate();
    document.querySelectorAll(".run-loading").forEach((node) => node.remove());
    state.failed = true;
    const message = fmt(S.failedToLoad, { error }) + "\n";
    for (const { block, resolve } of pending.values()) {
      append(block, message, "stderr");
      resolve(false);
    }
    // Try again sits under the block whose Run the reader pressed (an earlier block may have been running)
    const pressed = blocks.find((b) => b.index === state.busy);
    if (pressed) {
      if (![...pending.values()].some((p) => p.block === pressed)) append(pressed, message, "stderr");
      const retry = document.createElement("button");
      retry.type = "button";
      retry.className = "md-button run-retry";
      retry.textContent = S.retry;
      retry.addEventListener("click", () => {
        pressed.buttons.run.focus(); // before the output that holds this button is cleared
        run(pressed);
      });
      pressed.output.append(retry);
    }
    pending.clear();
    render();
  }

  const nameOf = (block) => `<${fmt(S.blockN, { n: block.index + 1 })}>`; // the filename its code runs under

  function execute(block, keepNotes) {
    if (!state.worker) startWorker();
    const id = ++state.runs;
    if (!keepNotes) clearOutput(block);
    block.output.dataset.state = "running";
    return new Promise((resolve) => {
      pending.set(id, { block, resolve, cuts: {} });
      state.worker.postMessage({
        type: "run",
        id,
        code: codeOf(block),
        name: nameOf(block),
        lab: Boolean(block.spec.lab),
        words: { noInput: S.noInput, noClose: S.noClose, plotSubset: S.plotSubset },
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
      // the reader asked for this block: its output is read as it comes, not the earlier ones' (they are there
      // to look at), so a screen reader does not read four outputs for one Run
      before.output.setAttribute("aria-live", "off");
      ok = await execute(before);
      before.output.setAttribute("aria-live", "polite");
      if (generation !== state.generation) return; // stopped
      if (!ok) {
        if (!state.failed) note(block, fmt(S.earlierFailed, { n: before.index + 1 }));
        block.output.dataset.state = "error";
        break;
      }
    }
    if (ok) ok = await execute(block, true);
    if (generation !== state.generation) return;
    state.busy = null;
    render();
    announce(ok ? fmt(S.finished, { n: block.index + 1 }) : fmt(S.finishedError, { n: block.index + 1, error: lastError(block) }));
  }

  // The last line of what the block printed to stderr (a traceback's "ValueError: ..."), for the announcement.
  function lastError(block) {
    const errors = [...block.output.querySelectorAll('[data-stream="stderr"]')].map((node) => node.textContent).join("");
    const lines = errors.split("\n").filter((line) => line.trim());
    return lines.length ? lines[lines.length - 1] : "";
  }

  function stop(block) {
    if (!state.worker) return;
    state.worker.terminate();
    state.worker = null;
    state.generation += 1;
    for (const waiting of pending.values()) {
      note(waiting.block, S.stopped);
      waiting.block.output.dataset.state = "stopped";
      waiting.resolve(false);
    }
    pending.clear();
    state.ran.clear();
    state.busy = null;
    startWorker(); // a fresh interpreter, loading while the reader reads
    render();
    block.buttons.run.focus(); // Stop hides itself: the focus goes to Run, not to the page
    announce(fmt(S.stoppedN, { n: block.index + 1 }));
  }

  // End the interpreter and give its memory back; the next Run starts a fresh one.
  function restart(block) {
    if (!state.worker || state.busy !== null) return;
    state.worker.terminate();
    state.worker = null;
    state.loading = false;
    state.generation += 1;
    state.ran.clear();
    clearOutput(block);
    note(block, S.restarted);
    render();
    block.buttons.run.focus(); // Restart hides itself
    announce(S.restarted);
  }

  let live = null; // the page's one announcer, added on the first announcement (outside the article)
  function announce(text) {
    if (!live) {
      live = document.createElement("div");
      live.className = "run-announce";
      live.setAttribute("role", "status");
      live.setAttribute("aria-live", "polite");
      document.body.append(live);
    }
    live.textContent = "";
    setTimeout(() => (live.textContent = text), 50); // a change the screen reader notices, even if repeated
  }

  // ---- the graph of the block's own code (#26): graph.js and graph.css load on the first "Show the graph" ----
  const graphAsks = new Map(); // ask id -> the function its answer goes to
  let graphAsked = 0, graphScript = null;
  function graphButton(block, { names, choice }) { // the tensors the block assigned, the last scalar one
    if (!names.length || !page.graph) return;
    const box = document.createElement("div");
    box.className = "run-graph";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "md-button run-button";
    button.textContent = page.graph.show;
    button.setAttribute("aria-label", fmt(page.graph.showN, { n: block.index + 1 }));
    button.setAttribute("aria-expanded", "false");
    box.append(button);
    block.output.after(box);
    block.graph = box;
    const file = nameOf(block);
    button.addEventListener("click", () => {
      graphScript = graphScript || new Promise((resolve, reject) => {
        const css = Object.assign(document.createElement("link"), { rel: "stylesheet", href: new URL("graph.css", workerURL).href });
        const script = Object.assign(document.createElement("script"), { src: new URL("graph.js", workerURL).href });
        script.onload = resolve;
        script.onerror = () => { graphScript = null; reject(new Error("graph.js")); };
        document.head.append(css, script);
      });
      graphScript.then(() => {
        const shown = window.culpaGraph.open({ box, index: block.index, file, names, choice, lang: page.lang,
                                               S: page.graph, ask: askGraph, code: codeNamed });
        button.setAttribute("aria-expanded", String(shown));
        button.textContent = shown ? page.graph.hide : page.graph.show;
        button.setAttribute("aria-label", shown ? page.graph.hide : fmt(page.graph.showN, { n: block.index + 1 }));
      }, (error) => note(block, fmt(page.graph.failed, { error: error.message })));
    });
  }
  function askGraph(message) {
    if (!state.worker) return Promise.reject(new Error(S.restarted));
    const id = ++graphAsked;
    return new Promise((resolve) => {
      graphAsks.set(id, resolve);
      state.worker.postMessage({ ...message, id });
    });
  }
  function codeNamed(file) {
    const block = blocks.find((b) => nameOf(b) === file);
    return block ? block.code : null;
  }
  function closeGraph(block) {
    if (window.culpaGraph) window.culpaGraph.close(block.graph);
    block.graph.remove();
    block.graph = null;
  }

  // ---- the page -------------------------------------------------------------------------------------

  function clearOutput(block) {
    if (block.graph) closeGraph(block);
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

  // A figure the block drew (Python made the SVG: assets/run/matplotlib/), shown as an image, so that nothing
  // in it can run or reach the page; a narrow screen gets its one-column drawing, as the site's figures do.
  const SVG_URL = "data:image/svg+xml;base64,";
  function figure(block, url, texts, phone) {
    if (typeof url !== "string" || !url.startsWith(SVG_URL)) return;
    const picture = document.createElement("picture");
    if (typeof phone === "string" && phone.startsWith(SVG_URL)) {
      const source = document.createElement("source");
      source.media = "(max-width: 44.9375em)";
      source.type = "image/svg+xml";
      source.srcset = phone;
      picture.append(source);
    }
    const img = document.createElement("img");
    img.className = "run-figure";
    img.src = url;
    img.alt = fmt(S.figureAlt, { texts });
    picture.append(img);
    block.output.append(picture);
    block.output.dataset.printed = "1";
  }

  function note(block, text, extraClass) {
    if (!text) return null;
    const span = document.createElement("span");
    span.className = "run-note " + (extraClass || "");
    span.textContent = text + "\n";
    block.output.append(span);
    return span;
  }

  function render() {
    // only what changes is written: a write of the same value still restyles the button
    const set = (el, key, value) => el[key] !== value && (el[key] = value);
    for (const block of blocks) {
      if (!block.buttons) continue;
      const running = state.busy === block.index;
      // aria-disabled, not disabled: a disabled button drops the focus to the page's <body>
      const ariaDisabled = (el, off) => el.getAttribute("aria-disabled") !== String(off) && el.setAttribute("aria-disabled", String(off));
      ariaDisabled(block.buttons.run, state.busy !== null);
      ariaDisabled(block.buttons.reset, !block.edited);
      set(block.buttons.stop, "hidden", !running);
      set(block.buttons.restart, "hidden", !(state.worker && state.busy === null && !state.loading));
      if ((block.box.dataset.running || "") !== (running ? "1" : "")) block.box.dataset.running = running ? "1" : "";
    }
  }

  // The bar under each block and its <output> are in the page (sitebuild/steps/run_blocks.py): set up, nothing
  // is added to the article, which would restyle all of it while the page loads. Making a block's code
  // editable restyles every token of it inside the very call that sets contenteditable (about 10 µs a
  // token, measured, whether the browser has drawn the block yet or not; contenteditable is inherited): so
  // a block becomes editable when the reader can meet it, one block at a time when the browser is idle and
  // only once the browser draws it (a block far from the screen is skipped until then: content-visibility,
  // sitebuild/steps/offscreen.py), or at once when the reader focuses or presses it. Done for every block
  // after the load, it was most of the longest tasks of a chapter page's first seconds on a phone. Its
  // role, name and place in the keyboard's order (tabindex) come at once: Tab reaches a block not drawn yet.
  const editable = []; // blocks in page order
  const whenIdle = (f) => (window.requestIdleCallback ? requestIdleCallback(f, { timeout: 1000 }) : setTimeout(f, 50));
  function makeEditable() {
    const block = editable.shift();
    if (!block) return;
    if (block.makeEditable) {
      const shell = block.code.closest(".offscreen"); // content-visibility: auto until first drawn
      const inner = shell && shell.firstElementChild;
      const drawn = !inner || !inner.checkVisibility || inner.checkVisibility({ contentVisibilityAuto: true });
      if (drawn) block.makeEditable();
      else shell.addEventListener("contentvisibilityautostatechange", (event) => {
        if (!event.skipped && block.makeEditable) block.makeEditable();
      });
    }
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
    code.setAttribute("spellcheck", "false");
    code.setAttribute("role", "textbox");
    code.setAttribute("aria-multiline", "true");
    code.setAttribute("aria-label", `${fmt(S.label, { n: index + 1 })}. ${S.edit}`);
    code.setAttribute("tabindex", "0");
    block.makeEditable = () => {
      block.makeEditable = null;
      code.setAttribute("contenteditable", "plaintext-only");
    };
    editable.push(block);
    box.addEventListener("pointerdown", () => block.makeEditable && block.makeEditable()); // a reader who is quicker
    code.addEventListener("focus", () => {
      if (!block.makeEditable) return;
      block.makeEditable(); // reached with Tab before the browser drew it: the caret where Tab puts it
      const selection = window.getSelection();
      if (selection && !code.contains(selection.anchorNode)) selection.collapse(code, 0);
    });
    code.addEventListener("beforeinput", () => {
      if (!block.edited) block.original = code.innerHTML;
    });
    code.addEventListener("input", () => {
      block.edited = true;
      render();
      edited(block);
    });
    code.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        run(block);
      }
    });
    const button = (what) => bar.querySelector(`[data-run="${what}"]`);
    block.buttons = { run: button("run"), stop: button("stop"), reset: button("reset"), restart: button("restart") };
    block.buttons.run.addEventListener("click", () => run(block));
    block.buttons.stop.addEventListener("click", () => stop(block));
    block.buttons.restart.addEventListener("click", () => restart(block));
    block.buttons.reset.addEventListener("click", () => {
      if (!block.edited) return;
      code.innerHTML = block.original;
      block.edited = false;
      render();
      edited(block);
      code.focus(); // Reset cannot act any more: the focus goes to the code it put back
    });
  }

  // For assets/run/keep.js: each block's code as it stands; put(k, text) writes text in block k's editor
  // (never runs it), put(k) puts the page's code back.
  const edited = (block) => block.box.dispatchEvent(new CustomEvent("run-edit", { bubbles: true, detail: block.index }));
  window.culpaRun = {
    blocks: () => blocks.filter((b) => b.buttons).map((b) => ({ index: b.index, hash: b.spec.hash, page: b.spec.code, edited: b.edited })),
    code: (k) => codeOf(blocks.find((b) => b.index === k)),
    put(k, text) {
      const block = blocks.find((b) => b.index === k);
      if (text === undefined) {
        if (block.edited) block.code.innerHTML = block.original;
      } else {
        if (block.makeEditable) block.makeEditable();
        if (!block.edited) block.original = block.code.innerHTML;
        block.code.textContent = text;
      }
      block.edited = text !== undefined;
      render();
    },
  };

  document.querySelectorAll("[data-run-block]").forEach(setUp);
  blocks.sort((a, b) => a.index - b.index);
  render();
  whenIdle(makeEditable);
})();

// keep.js (a link to what the reader made, edits kept across reloads) loads only with something to restore
// or keep: a #culpa: address, this page kept in this browser, a change, a press on its bar (steps/keep.py).
(function () {
  const bar = document.querySelector("[data-keep]");
  if (!bar) return;
  const src = new URL("keep.js", document.currentScript.src).href;
  const pending = (window.culpaKeepPending = []); // pressed before keep.js arrived: it presses them again
  const linked = () => location.hash.startsWith("#culpa:");
  let asked = false, kept = null;
  const load = () => asked || (asked = document.head.appendChild(Object.assign(document.createElement("script"), { src })));
  try {
    kept = localStorage.getItem("culpa-keep:" + location.pathname);
  } catch (error) {} // storage refused: keep.js says so
  if (kept || linked()) return load();
  addEventListener("hashchange", () => linked() && load());
  ["run-edit", "xp-change"].forEach((type) => document.addEventListener(type, load));
  bar.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (button && !window.culpaKeep) load(pending.push(button));
  });
})();

// Checked exercises: the first touch loads check.js (sitebuild/steps/exercises.py says how).
(function () {
  const src = new URL("../exercises/check.js", document.currentScript.src).href;
  const pending = (window.culpaExercisesPending = []);
  let asked = false;
  function early(event) {
    const target = event.target;
    if (window.culpaExercises || !target.closest || !target.closest(".exercise")) return;
    const hint = event.type === "click" && target.closest(".ex-hint");
    if (event.type === "submit" || hint) {
      event.preventDefault();
      pending.push(hint || target);
    }
    if (asked) return;
    asked = true;
    document.head.append(Object.assign(document.createElement("script"), { src }));
  }
  if (document.querySelector(".exercise"))
    ["focusin", "pointerdown", "submit", "click"].forEach((type) => document.addEventListener(type, early, true));
})();
