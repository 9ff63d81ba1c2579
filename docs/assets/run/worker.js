/* Run in the page, the interpreter: a Web Worker that runs a page's Python blocks with Pyodide.
 *
 * Started by run.js on the first Run (never on page load), as new Worker("worker.js?wheel=PATH"), PATH the
 * wheel's place from the site's root (the run-config's "wheel": sitebuild/project.py's WHEEL_FOLDER/NAME).
 * It loads Pyodide from this site (../vendor/pyodide/), then numpy (Pyodide's own wheel, checked against
 * pyodide-lock.json's sha256) and culpa's wheel (built from the repository by sitebuild/steps/wheel.py, served at
 * <site>/culpa/). Every block of the page runs in one namespace, as in one interpreter.
 *
 * Messages in:  {type: "run", id, code, name, lab}
 * Messages out: {type: "status", text}          loading steps
 *               {type: "ready"}                  Python, numpy and culpa are loaded
 *               {type: "out", id, stream, text}  printed text, "stdout" or "stderr", as it is written
 *               {type: "cut", id, shown}         output reached the cap; the rest is counted, not sent
 *               {type: "done", id, ok, dropped, error}
 * Stop is run.js terminating this worker and starting a fresh one: nothing here needs to cooperate.
 */
"use strict";

const MAX_LINES = 2000; // per run: a million-line print leaves the tab alive
const MAX_CHARS = 200000;
const here = new URL(self.location.href);
const wheel = here.searchParams.get("wheel");
const pyodideURL = new URL("../vendor/pyodide/", here).href;
const wheelURL = new URL(`../../${wheel}`, here).href; // this script is <site>/assets/run/worker.js

let current = null; // the run being printed: {id, lines, chars, cut, dropped}

function write(stream) {
  const decoder = new TextDecoder();
  return {
    isatty: true, // line-buffered: output arrives while the block still runs
    write(bytes) {
      const run = current;
      if (!run) return bytes.length;
      const text = decoder.decode(bytes, { stream: true });
      if (run.cut) {
        run.dropped += (text.match(/\n/g) || []).length;
        return bytes.length;
      }
      let keep = text;
      const lines = (text.match(/\n/g) || []).length;
      if (run.lines + lines > MAX_LINES || run.chars + text.length > MAX_CHARS) {
        // keep whole lines up to the cap, count the rest
        const room = Math.max(0, MAX_LINES - run.lines);
        const parts = text.split("\n");
        keep = parts.slice(0, room).join("\n") + (room > 0 ? "\n" : "");
        keep = keep.slice(0, Math.max(0, MAX_CHARS - run.chars));
        run.dropped += lines - (keep.match(/\n/g) || []).length;
        run.cut = true;
      }
      run.lines += (keep.match(/\n/g) || []).length;
      run.chars += keep.length;
      if (keep) self.postMessage({ type: "out", id: run.id, stream, text: keep });
      if (run.cut) self.postMessage({ type: "cut", id: run.id, shown: run.lines });
      return bytes.length;
    },
  };
}

// The runner keeps its own names out of the reader's namespace. A traceback starts at the block's code,
// with its lines shown (the source is registered in linecache under the block's name).
// time.process_time ticks in whole milliseconds here: the labs time sub-millisecond steps with it, so it is
// replaced by perf_counter (one thread in this worker: both count the same time). The page says so under each
// block that uses it (sitebuild/steps/run_blocks.py, BROWSER_LIMITS).
const RUNNER = `
import linecache, sys, time, traceback
time.process_time = time.perf_counter
namespace = {"__name__": "__main__"}

def run(code, name):
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    try:
        compiled = compile(code, name, "exec")
    except SyntaxError as error:
        traceback.print_exception(type(error), error, None)
        return False
    try:
        exec(compiled, namespace)
    except BaseException as error:
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)
        return False
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return True
`;

async function start() {
  self.postMessage({ type: "status", text: "pyodide" });
  importScripts(pyodideURL + "pyodide.js");
  const pyodide = await self.loadPyodide({ indexURL: pyodideURL, fullStdLib: false });
  pyodide.setStdout(write("stdout"));
  pyodide.setStderr(write("stderr"));
  self.postMessage({ type: "status", text: "packages" });
  const problems = [];
  await pyodide.loadPackage(["numpy", wheelURL], {
    messageCallback: () => {},
    errorCallback: (message) => problems.push(message),
  });
  // loadPackage does not throw for a wheel it refused (a wrong sha256): check that both import.
  const runner = pyodide.runPython(
    RUNNER + "\nimport numpy, culpa\nrun\n",
    { globals: pyodide.toPy({}) },
  );
  return { pyodide, runner, problems };
}

const ready = start().then(
  (state) => {
    self.postMessage({ type: "ready" });
    return state;
  },
  (error) => {
    self.postMessage({ type: "failed", error: String(error && error.message ? error.message : error) });
    throw error;
  },
);

// IPython's line magics (%pip, %config) in a lab's cell: the browser has culpa and numpy already.
function withoutMagics(code) {
  return code.replace(/^(\s*)%(.*)$/gm, "$1pass  # %$2");
}

let queue = Promise.resolve();
self.onmessage = (event) => {
  const message = event.data;
  if (message.type !== "run") return;
  queue = queue.then(async () => {
    let state;
    try {
      state = await ready;
    } catch (error) {
      return; // "failed" was posted
    }
    current = { id: message.id, lines: 0, chars: 0, cut: false, dropped: 0 };
    const code = message.lab ? withoutMagics(message.code) : message.code;
    let ok = false;
    try {
      ok = state.runner(code, message.name);
    } catch (error) {
      self.postMessage({ type: "out", id: message.id, stream: "stderr", text: String(error) + "\n" });
    }
    const run = current;
    current = null;
    self.postMessage({ type: "done", id: message.id, ok, dropped: run.dropped });
  });
};
