/* Checked exercises: the reader's answer, judged by culpa in this page.
   Loaded by Run's script (assets/run/run.js, its last lines) on the reader's first focus, press or submit
   inside an exercise, never before; what the reader submitted before this script was there is in
   window.culpaExercisesPending, replayed here.
   Check sends the field's text as typed to a Web Worker running Pyodide (assets/run/worker.js, started from a
   blob: bootstrap as Run and the explorers start theirs, culpa's wheel from the page's run-config), message
   "check"; the worker runs sitebuild/exercises.check_json, whose verdict (right, wrong with the element that
   differs and the mistake by name, or what is malformed) is worded by Python, numbers included, in the page's
   language (sitebuild/strings/, served with the checkers): this script only shows it, in the exercise's status
   line (role=status, announced). Python's loading and failure are said in Run's words (the run-config), the
   hint button's on the exercise's root.
   Hint reveals the exercise's next hidden hint and moves the focus to it; after the last, the button says so.
   A code exercise (data-kind="code") sends its text area's code the same way; Python stops the reader's code
   after its own time limit (sitebuild/exercises.py, SECONDS), and this script ends the worker if no verdict
   comes CODE_LIMIT_MS after Python is ready (what a trace cannot stop), saying so in the root's words; the
   next Check starts a fresh Python. Ctrl+Enter in the text area checks.
   A right verdict is kept as solved (window.culpaProgress, assets/exercises/progress.js). */
(function () {
  "use strict";
  var BASE = document.currentScript.src;
  var LOAD_TIMEOUT_MS = 120000;  /* as Run: a busy phone takes about 20 s to load Python */
  var CODE_LIMIT_MS = 15000;  /* the reader's code and its cases, each stopped by Python after 3 s */
  var python = { worker: null, ready: false, waiting: {}, next: 0 };

  function words(root) {  /* data-t-next-hint="..." is t.nextHint */
    var t = {};
    Object.keys(root.dataset).forEach(function (k) {
      if (k.indexOf("t") === 0 && k.length > 1) t[k.charAt(1).toLowerCase() + k.slice(2)] = root.dataset[k];
    });
    return t;
  }
  function language() {
    return (document.documentElement.getAttribute("lang") || "en").slice(0, 2) === "pt" ? "pt" : "en";
  }
  var run = JSON.parse(document.getElementById("run-config").textContent);  /* the page's Run: wheel, words */

  function giveUp(message) {
    var waiting = python.waiting;
    if (python.worker) python.worker.terminate();
    python.worker = null;
    python.ready = false;
    python.waiting = {};
    Object.keys(waiting).forEach(function (id) { clearTimeout(waiting[id].timer); waiting[id].reject(new Error(message)); });
  }

  function worker() {
    if (python.worker) return python.worker;
    var url = new URL("../run/worker.js", BASE);
    url.searchParams.set("wheel", run.wheel);
    var boot = "self.culpaWorkerURL = " + JSON.stringify(url.href) + ";\nimportScripts(self.culpaWorkerURL);\n";
    var w = python.worker = new Worker(URL.createObjectURL(new Blob([boot], { type: "text/javascript" })));
    w.onerror = function (event) {
      event.preventDefault();
      if (python.worker === w) giveUp(event.message || "worker.js");
    };
    w.onmessage = function (event) {
      var m = event.data, waiting = python.waiting[m.id];
      if (python.worker !== w) return;
      if (m.type === "ready") {
        python.ready = true;
        Object.keys(python.waiting).forEach(function (id) { limit(python.waiting[id]); });
      }
      else if (m.type === "failed") giveUp(m.error);
      else if (m.type === "checked" && waiting) {
        delete python.waiting[m.id];
        clearTimeout(waiting.timer);
        if (m.error) {
          console.error("exercise's Python: " + m.error);  /* the whole traceback, for whoever debugs */
          var broke = new Error(m.error.trim().split("\n").pop());
          broke.checker = true;  /* Python ran, and the checker raised: not the reader's fault, nor the loading's */
          waiting.reject(broke);
        } else waiting.resolve(JSON.parse(m.answer));
      }
    };
    return w;
  }

  /* A code check: once Python is ready, CODE_LIMIT_MS for a verdict, or the worker is ended. */
  function limit(waiting) {
    if (!waiting.code || waiting.limited) return;
    waiting.limited = true;
    clearTimeout(waiting.timer);
    waiting.timer = setTimeout(function () { giveUp("stopped"); }, CODE_LIMIT_MS);
  }

  function ask(root, text) {
    return new Promise(function (resolve, reject) {
      var w = worker(), id = ++python.next;
      var timer = setTimeout(function () { giveUp("timeout"); }, LOAD_TIMEOUT_MS);
      var waiting = python.waiting[id] = { resolve: resolve, reject: reject, timer: timer,
                                           code: root.dataset.kind === "code" };
      if (python.ready) limit(waiting);
      w.postMessage({ type: "check", id: id, exercise: root.dataset.exercise, answer: text, lang: language() });
    });
  }

  var saying = new WeakMap();  /* each exercise's words about to be said */
  function say(root, text, verdict) {
    var status = root.querySelector(".ex-verdict");
    clearTimeout(saying.get(root));
    root.dataset.verdict = verdict;
    status.textContent = "";  /* emptied first: the same verdict twice is announced twice */
    saying.set(root, setTimeout(function () { status.textContent = text; }, 50));
  }

  /* A check is about the answer in the field when culpa's verdict comes back: if the reader changed it while
     Python loaded or the check ran (and pressed Check again or not), that verdict is about an answer no longer
     there, so it is dropped and the field's answer is checked instead. */
  function submit(form) {
    var root = form.closest(".exercise"), field = form.querySelector(".ex-answer");
    if (root.dataset.checking) return;
    root.dataset.checking = "true";
    var t = words(root), asked = field.value;
    say(root, python.ready ? (t.running || "") : run.strings.loading, "checking");
    ask(root, asked).then(function (answer) {
      if (field.value !== asked) return;
      say(root, answer.message, answer.verdict);
      if (answer.verdict === "malformed") field.setAttribute("aria-invalid", "true");
      else field.removeAttribute("aria-invalid");
      if (answer.verdict === "right" && window.culpaProgress) window.culpaProgress.solve(root.dataset.exercise);
    }, function (error) {
      if (field.value === asked) field.removeAttribute("aria-invalid");  /* not judged: no longer called invalid */
      if (error.message === "stopped" && t.codeStopped)
        say(root, t.codeStopped.replace("{seconds}", String(CODE_LIMIT_MS / 1000)), "failed");
      else if (error.checker) say(root, run.strings.checkFailed.replace("{error}", error.message), "failed");
      else say(root, run.strings.failedToLoad.replace("{error}", error.message), "failed");
    }).then(function () {
      delete root.dataset.checking;
      if (field.value !== asked && root.dataset.verdict === "checking") submit(form);
    });
  }

  function hint(button) {
    var root = button.closest(".exercise"), t = words(root);
    if (button.getAttribute("aria-disabled") === "true") return;
    var next = root.querySelector(".ex-hints > li[hidden]");
    if (next) {
      next.hidden = false;
      next.setAttribute("tabindex", "-1");
      next.focus();
    }
    var left = root.querySelector(".ex-hints > li[hidden]");
    button.textContent = left ? t.nextHint : t.noMoreHints;
    if (!left) button.setAttribute("aria-disabled", "true");
    /* the hint pushed the button down: both stay on the screen, the next hint a key away */
    if (button.getBoundingClientRect().bottom > innerHeight) button.scrollIntoView({ block: "nearest" });
  }

  /* A reader typing an answer is about to check it: Python starts at the first keystroke in an exercise (focus
     alone loads nothing), so less of its start is left when Check is pressed. */
  document.addEventListener("input", function typing(event) {
    if (!event.target.closest || !event.target.closest(".exercise")) return;
    document.removeEventListener("input", typing);
    worker();
  });
  document.addEventListener("submit", function (event) {
    if (!event.target.closest(".exercise")) return;
    event.preventDefault();
    submit(event.target);
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".exercise .ex-hint");
    if (button) hint(button);
  });
  document.addEventListener("keydown", function (event) {
    var field = event.target.closest && event.target.closest(".exercise .ex-code");
    if (field && event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      submit(field.form);
    }
  });
  window.culpaExercises = { ask: ask };
  (window.culpaExercisesPending || []).splice(0).forEach(function (target) {
    if (target.classList.contains("ex-hint")) hint(target);
    else submit(target);
  });
})();
