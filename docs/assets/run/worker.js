/* Run in the page, the interpreter: a Web Worker that runs a page's Python blocks with Pyodide.
 *
 * Started by run.js on the first Run (never on page load), from a blob: bootstrap (so that the page's
 * Content-Security-Policy holds here too) that sets self.culpaWorkerURL to "worker.js?wheel=PATH" and loads
 * this script, PATH the wheel's place from the site's root (the run-config's "wheel": sitebuild/project.py's
 * WHEEL_FOLDER/NAME).
 * It loads Pyodide from this site (../vendor/pyodide/), then numpy (Pyodide's own wheel, checked against
 * pyodide-lock.json's sha256) and culpa's wheel (built from the repository by sitebuild/steps/wheel.py, served at
 * <site>/culpa/). Every block of the page runs in one namespace, as in one interpreter.
 *
 * A block that names matplotlib first gets the page's stand-in for it (assets/run/matplotlib/: Python that draws
 * SVG), fetched the first time one does, so a page that never plots loads nothing more.
 *
 * An explorer's script (assets/explorers/start.js) starts a worker of its own from this script to recompute
 * the explorer with the reader's numbers: the first "explore" writes the explorers' exporters and the lessons
 * they run (assets/explorers/py/, listed in its manifest.json) into this Python's site-packages, then calls
 * sitebuild.explorers.in_page.explore, which answers with the explorer's data as JSON.
 *
 * The graph of a block's own code (#26): every run records, for each tensor culpa makes, the line and the
 * variable of the block that made it (culpa.graph.Recorder, on only around a run), and keeps the tensors the
 * block assigned; "done" lists them. "graph" (assets/run/graph.js) then asks for one: the explorers' files are
 * written in as for "explore", and sitebuild.explorers.code_graph.answer draws it as JSON.
 *
 * Messages in:  {type: "run", id, code, name, lab, words: {noInput, noClose, plotSubset}}
 *               {type: "graph", id, block, name, lang}  (the graph of what block's last run assigned to name)
 *               {type: "explore", id, name, fields, typeset}  (JSON texts: the reader's fields, TeX -> index)
 *               {type: "check", id, exercise, answer, lang}  (a checked exercise: the reader's text as typed)
 * Messages out: {type: "status", text, files}   loading steps: the stage, and the files it still waits for
 *               {type: "ready"}                  Python, numpy and culpa are loaded
 *               {type: "out", id, stream, text}  printed text, "stdout" or "stderr", as it is written
 *               {type: "cut", id, stream}        that stream reached its cap; the rest is counted, not sent
 *               {type: "figure", id, url, texts, phone}  a figure the block drew: SVG data: URLs (phone: the drawing
 *                                                 for a narrow screen) and its words
 *               {type: "done", id, ok, cancelled, dropped: {stdout, stderr: {chars, lines}}, graph}  graph: JSON
 *                                                 {names: [{name, scalar}], choice}, the tensors it assigned
 *               {type: "graphed", id, answer}    code_graph.answer's JSON text; or {type: "graphed", id, error}
 *               {type: "explored", id, answer}   explore()'s JSON text; or {type: "explored", id, error}
 *               {type: "checked", id, answer}    the verdict, JSON text; or {type: "checked", id, error}
 *               {type: "failed", error, file, detail, reason}  Python could not be loaded; file: the one that
 *                                                 failed, detail: "HTTP 404" or the error, reason: "cut" (its
 *                                                 download failed) or "checked" (that, or a wrong sha256)
 * Stop is run.js terminating this worker and starting a fresh one: nothing here needs to cooperate.
 */
"use strict";

// Per run and per stream: a million-line print leaves the tab alive, and a traceback (stderr) printed after
// it is still shown, since printed output (stdout) and errors have a budget each.
const MAX_LINES = 2000;
const MAX_CHARS = 200000;
const here = new URL(self.culpaWorkerURL || self.location.href); // run.js's blob: bootstrap says where this is
const wheel = here.searchParams.get("wheel");
const pyodideURL = new URL("../vendor/pyodide/", here).href;
const wheelURL = new URL(`../../${wheel}`, here).href; // this script is <site>/assets/run/worker.js
const standinURL = new URL("matplotlib/", here).href; // the page's stand-in for matplotlib
const explorersURL = new URL("../explorers/py/", here).href; // the explorers' exporters, for "explore"

let current = null; // the run being printed: {id, stdout: budget, stderr: budget}
let words = { noInput: "input()", noClose: "close()" }; // the page's sentences, sent with each run

const budget = () => ({ lines: 0, chars: 0, cut: false, droppedChars: 0, droppedBreaks: 0, endsLine: true });
const breaks = (text) => (text.match(/\n/g) || []).length;

function write(stream) {
  const decoder = new TextDecoder();
  return {
    isatty: true, // line-buffered: output arrives while the block still runs
    write(bytes) {
      const run = current;
      if (!run) return bytes.length;
      const text = decoder.decode(bytes, { stream: true });
      const b = run[stream];
      let keep = text;
      if (!b.cut && (b.lines + breaks(text) > MAX_LINES || b.chars + text.length > MAX_CHARS)) {
        // keep whole lines up to the cap (and at most MAX_CHARS), count the rest
        const room = Math.max(0, MAX_LINES - b.lines);
        const parts = text.split("\n");
        keep = parts.length > room ? parts.slice(0, room).join("\n") + (room > 0 ? "\n" : "") : text;
        keep = keep.slice(0, Math.max(0, MAX_CHARS - b.chars));
        b.cut = true;
        self.postMessage({ type: "cut", id: run.id, stream });
      } else if (b.cut) {
        keep = "";
      }
      const dropped = text.slice(keep.length);
      if (dropped) {
        b.droppedChars += dropped.length;
        b.droppedBreaks += breaks(dropped);
        b.endsLine = dropped.endsWith("\n");
      }
      b.lines += breaks(keep);
      b.chars += keep.length;
      if (keep) self.postMessage({ type: "out", id: run.id, stream, text: keep });
      return bytes.length;
    },
  };
}

// What a cut stream left out: its characters, and the lines they were on (a partial last line counts).
function droppedOf(b) {
  return { chars: b.droppedChars, lines: b.droppedBreaks + (b.droppedChars && !b.endsLine ? 1 : 0) };
}

// The runner keeps its own names out of the reader's namespace. A traceback starts at the block's code,
// with its lines shown (the source is registered in linecache under the block's name).
// time.process_time ticks in whole milliseconds here: the labs time sub-millisecond steps with it, so it is
// replaced by perf_counter (one thread in this worker: both count the same time). The page says so under each
// block that uses it (sitebuild/steps/run_blocks.py, BROWSER_LIMITS).
// input() has no keyboard to read in a worker: it says so in the page's language instead of Errno 29.
// asyncio tasks a block leaves pending are cancelled at its end, so that they never print into the next
// block's output.
const RUNNER = `
import asyncio, builtins, json, linecache, sys, time, traceback
from culpa.graph import Recorder
time.process_time = time.perf_counter
namespace = {"__name__": "__main__"}
recorder = Recorder()

def run(code, name, no_input):
    def input(prompt=""):
        raise RuntimeError(no_input)
    builtins.input = input
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    try:
        compiled = compile(code, name, "exec")
    except SyntaxError as error:
        traceback.print_exception(type(error), error, None)
        return False
    try:
        with recorder.recording(name, code):
            exec(compiled, namespace)
    except BaseException as error:
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)
        return False
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return True

def graphs(code, name):
    try:
        names = recorder.keep(name, code, namespace)
    except Exception:  # no graph to offer is no reason to fail the run
        return None
    scalars = [n["name"] for n in names if n["scalar"]] or [n["name"] for n in names]
    return json.dumps({"names": names, "choice": scalars[-1] if scalars else None})

def leftovers():
    try:
        pending = [task for task in asyncio.all_tasks(asyncio.get_event_loop()) if not task.done()]
    except Exception:
        return 0
    for task in pending:
        task.cancel()
    return len(pending)
`;

// js.close() from a block would end this worker without a word, and the next Run would wait forever: it
// does nothing but say so (an error thrown from here reaches Python as a bare SystemError).
self.close = () => {
  if (current) self.postMessage({ type: "out", id: current.id, stream: "stderr", text: words.noClose + "\n" });
};

// While Python loads, every file it asks for is followed (fetch, importScripts, and the wasm's compilation):
// Pyodide's loader waits forever when its .wasm answers with an error page or its download is cut (it only
// logs the error), so a file that answers with an error, or whose download fails (the request or its body),
// fails the load at once, named; and the page's watchdog (run.js) names the files still loading if the
// load goes silent. Once Python is loaded (or not), fetch and the rest are themselves again.
const fileOf = (url) => decodeURIComponent(new URL(String(url), here).pathname.split("/").pop());
let stage = { text: "", files: [] };
function tell() {
  self.postMessage({ type: "status", text: stage.text, files: stage.files.slice() });
}
function step(text) {
  stage = { text, files: [] };
  tell();
}
function asked(file) {
  if (!stage.files.includes(file)) stage.files.push(file);
  tell();
}
function arrived(file) {
  const k = stage.files.indexOf(file);
  if (k >= 0) stage.files.splice(k, 1);
  tell();
}

class LoadError extends Error {
  constructor(file, { status, reason, error }) {
    const detail = status ? `HTTP ${status}` : String((error && error.message) || error);
    super(`${file}: ${detail}`);
    Object.assign(this, { file, detail, reason });
  }
}

const native = {
  fetch: self.fetch,
  importScripts: self.importScripts,
  instantiateStreaming: WebAssembly.instantiateStreaming,
};

function followLoading() {
  self.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const file = fileOf(url);
    const reason = init && init.integrity ? "checked" : "cut"; // a wrong sha256 also rejects the fetch
    asked(file);
    return native.fetch.call(self, input, init).then(
      (response) => {
        if (!response.ok) failed(new LoadError(file, { status: response.status }));
        // its body, read in full (or not): Pyodide reads a file with one of these
        for (const read of ["arrayBuffer", "json", "text"]) {
          const whole = response[read];
          response[read] = function () {
            return whole.call(this).then(
              (body) => (arrived(file), body),
              (error) => {
                failed(new LoadError(file, { reason, error }));
                throw error;
              },
            );
          };
        }
        return response;
      },
      (error) => {
        failed(new LoadError(file, { reason, error }));
        throw error;
      },
    );
  };
  self.importScripts = (...urls) => {
    urls.forEach((url) => asked(fileOf(url)));
    native.importScripts.apply(self, urls);
    urls.forEach((url) => arrived(fileOf(url)));
  };
  // the wasm streams into its compilation, which fails if its download is cut halfway
  WebAssembly.instantiateStreaming = (source, imports) =>
    Promise.resolve(source).then((response) =>
      native.instantiateStreaming.call(WebAssembly, response, imports).then(
        (result) => (arrived(fileOf(response.url)), result),
        (error) => {
          const compiled = error instanceof WebAssembly.CompileError || error instanceof WebAssembly.LinkError;
          failed(new LoadError(fileOf(response.url), compiled ? { error } : { reason: "cut", error }));
          throw error;
        },
      ),
    );
}

function loaded() {
  self.fetch = native.fetch;
  self.importScripts = native.importScripts;
  WebAssembly.instantiateStreaming = native.instantiateStreaming;
}

async function start() {
  followLoading();
  step("Pyodide");
  importScripts(pyodideURL + "pyodide.js");
  const pyodide = await self.loadPyodide({ indexURL: pyodideURL, fullStdLib: false });
  pyodide.setStdout(write("stdout"));
  pyodide.setStderr(write("stderr"));
  step("numpy, culpa");
  const problems = [];
  await pyodide.loadPackage(["numpy", wheelURL], {
    messageCallback: () => {},
    errorCallback: (message) => problems.push(message),
  });
  // loadPackage does not throw for a package it could not install: say which (a file that could not be
  // fetched was named above), rather than the "No module named ..." that the import would give; its
  // messages name files by their whole addresses, and announce each error in a line of its own
  if (problems.length) {
    const said = problems.filter((message) => !message.startsWith("The following error occurred"));
    const text = (said.length ? said : problems).join(" ");
    throw new Error(text.replace(/'?[a-z]+:\/\/[^\s']*\/([^\s'/]+)'?/g, "$1")); // an address -> its file's name
  }
  const api = pyodide.runPython(RUNNER + "\nimport numpy, culpa\n(run, leftovers, graphs, recorder)\n", {
    globals: pyodide.toPy({}),
  });
  return { pyodide, runner: api.get(0), leftovers: api.get(1), graphs: api.get(2), recorder: api.get(3) };
}

let settled = false;
function failed(error) {
  if (settled) return;
  settled = true;
  const { file, detail, reason } = error instanceof LoadError ? error : {};
  const text = String(error && error.message ? error.message : error);
  self.postMessage({ type: "failed", error: text, file, detail, reason });
}
// A failure that start() does not see (an abort inside Pyodide's loader, a wasm that cannot compile).
self.addEventListener("unhandledrejection", (event) => failed(event.reason));
self.addEventListener("error", (event) => failed(event.message || event.error));

const ready = start().then(
  (state) => {
    loaded();
    settled = true;
    self.postMessage({ type: "ready" });
    return state;
  },
  (error) => {
    loaded();
    failed(error);
    throw error;
  },
);

// The stand-in for matplotlib, written into the page's Python as the package `matplotlib` (its files as they
// are in assets/run/matplotlib/), in site-packages as the explorers' files are, so that it imports by name as
// an installed package does (the real matplotlib is never loaded here). Its show() hands each figure to
// display(), which posts it to the page.
const STANDIN_FILES = ["__init__.py", "pyplot.py"];
const sitePackages = (pyodide) => pyodide.runPython("import sysconfig\nsysconfig.get_paths()['purelib']");
async function installStandin(pyodide) {
  const sources = await Promise.all(
    STANDIN_FILES.map(async (name) => {
      const response = await fetch(standinURL + name);
      if (!response.ok) throw new Error(`matplotlib/${name}: HTTP ${response.status}`);
      return response.text();
    }),
  );
  const folder = `${sitePackages(pyodide)}/matplotlib`;
  pyodide.FS.mkdirTree(folder);
  STANDIN_FILES.forEach((name, k) => pyodide.FS.writeFile(`${folder}/${name}`, sources[k]));
  // written after Python started: the import system's cached listing of site-packages must be read afresh
  const pyplot = pyodide.runPython("import importlib\nimportlib.invalidate_caches()\nimport matplotlib.pyplot\nmatplotlib.pyplot");
  pyplot.display = (url, texts, phone) => {
    if (current) self.postMessage({ type: "figure", id: current.id, url, texts, phone });
  };
  return pyplot;
}

// IPython's line magics (%pip, %config) in a lab's cell: the browser has culpa and numpy already.
function withoutMagics(code) {
  return code.replace(/^(\s*)%(.*)$/gm, "$1pass  # %$2");
}

// The explorers' exporters and the lessons they run, written into site-packages as files of their own
// (sitebuild/ and lessons/, as in the repository's snippets/), so that they import as in the build. Their
// download starts with the first message that needs them, while Python may still be loading (the first
// explore of a cold page is sent at once): it is not one of Python's files, so it is not followed as one.
let explorerFiles = null;
function explorerSources() {
  if (explorerFiles) return explorerFiles;
  const get = (path, read) =>
    native.fetch.call(self, explorersURL + path).then((response) => {
      if (!response.ok) throw new Error(`explorers/py/${path}: HTTP ${response.status}`);
      return response[read]();
    });
  explorerFiles = get("manifest.json", "json").then(async (manifest) => ({
    manifest,
    sources: await Promise.all(manifest.files.map((path) => get(path, "text"))),
  }));
  // awaited by the message that needs it, which says what failed (not a failed load of Python); the next
  // message asks again: a reader's network may be back
  explorerFiles.catch(() => (explorerFiles = null));
  return explorerFiles;
}

async function installExplorers(pyodide) {
  const { manifest, sources } = await explorerSources();
  const root = sitePackages(pyodide);
  manifest.files.forEach((path, k) => {
    const file = `${root}/${path}`;
    pyodide.FS.mkdirTree(file.slice(0, file.lastIndexOf("/")));
    pyodide.FS.writeFile(file, sources[k]);
  });
  return pyodide.runPython("from sitebuild.explorers.in_page import explore\nexplore");
}

function explore(message) {
  queued(async (state) => {
    try {
      if (!state.explore) state.explore = await installExplorers(state.pyodide);
      const answer = state.explore(message.name, message.fields, message.typeset);
      self.postMessage({ type: "explored", id: message.id, answer });
    } catch (error) {
      self.postMessage({ type: "explored", id: message.id, error: String(error && error.message ? error.message : error) });
    }
  });
}

// A checked exercise (assets/exercises/check.js): its checker is served with the explorers' files, so the
// first "check" writes them in as "explore" does, then sitebuild.exercises.check_json answers with the verdict.
function check(message) {
  queued(async (state) => {
    try {
      if (!state.explore) state.explore = await installExplorers(state.pyodide);
      if (!state.check) state.check = state.pyodide.runPython("from sitebuild.exercises import check_json\ncheck_json");
      const answer = state.check(message.exercise, message.answer, message.lang);
      self.postMessage({ type: "checked", id: message.id, answer });
    } catch (error) {
      self.postMessage({ type: "checked", id: message.id, error: String(error && error.message ? error.message : error) });
    }
  });
}

// The graph of what a block assigned (assets/run/graph.js): drawn by sitebuild/explorers/code_graph.py, served
// with the explorers' files.
function graph(message) {
  queued(async (state) => {
    try {
      if (!state.explore) state.explore = await installExplorers(state.pyodide);
      if (!state.graph) state.graph = state.pyodide.runPython("from sitebuild.explorers.code_graph import answer\nanswer");
      const answer = state.graph(state.recorder, message.block, message.name, message.lang);
      self.postMessage({ type: "graphed", id: message.id, answer });
    } catch (error) {
      self.postMessage({ type: "graphed", id: message.id, error: String(error && error.message ? error.message : error) });
    }
  });
}

// One message at a time, in order, once Python is loaded (if it could not be, "failed" was posted).
let queue = Promise.resolve();
function queued(task) {
  queue = queue.then(() => ready.then(task, () => {}));
}

self.onmessage = (event) => {
  const message = event.data;
  if (message.type === "explore" || message.type === "check" || message.type === "graph") explorerSources();
  if (message.type === "explore") return explore(message);
  if (message.type === "check") return check(message);
  if (message.type === "graph") return graph(message);
  if (message.type !== "run") return;
  if (message.words) words = message.words;
  queued(async (state) => {
    current = { id: message.id, stdout: budget(), stderr: budget() };
    const code = message.lab ? withoutMagics(message.code) : message.code;
    let ok = false;
    let cancelled = 0;
    let graph = null;
    try {
      if (!state.pyplot && /\bmatplotlib\b/.test(code)) state.pyplot = await installStandin(state.pyodide);
      if (state.pyplot) state.pyplot.LIMIT = words.plotSubset || "{call}";
      ok = state.runner(code, message.name, words.noInput);
      if (ok) graph = state.graphs(code, message.name);
      if (state.pyplot) state.pyplot.show(); // figures left open, as Jupyter shows them at a cell's end
      cancelled = state.leftovers();
    } catch (error) {
      self.postMessage({ type: "out", id: message.id, stream: "stderr", text: String(error) + "\n" });
    }
    const run = current;
    current = null;
    self.postMessage({
      type: "done",
      id: message.id,
      ok,
      cancelled,
      dropped: { stdout: droppedOf(run.stdout), stderr: droppedOf(run.stderr) },
      graph,
    });
  });
};
