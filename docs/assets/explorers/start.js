/* Starts the explorers of a page: the one copy of what every explorer does besides its own drawing.
   sitebuild/steps/explorers.py loads this script first (deferred, so it runs before the explorers' scripts).
   An explorer's script calls culpaExplorers.start(NAME, build): each root element with
   data-explorer="NAME" fetches data/NAME.json (beside this file) when it scrolls into view (the home
   page's preview, data-compact: when the reader first touches it), then build(root, data) draws it.
   data-xp-state on the root says loading, ready or failed.
   The helpers every explorer builds with are here too: el, fill, language, strings, formula (a formula
   typeset at build time, its numbers put in their slots) and stepper (the step controls, their keys and
   Play, for the explorers that step), and explore: the explorer's data for the reader's numbers, computed by
   culpa in this page (Pyodide in a Web Worker, started at the reader's first keystroke in a field or first
   change, never before); keep and changed: each part of an explorer's state, for assets/run/keep.js to put
   in a link and keep across reloads. */
(function () {
  "use strict";
  var BASE = document.currentScript.src;

  function load(name, build, root) {
    if (root.dataset.xpState) return;
    root.dataset.xpState = "loading";
    var url = new URL("data/" + name + ".json", BASE).href;
    fetch(url).then(function (r) {
      if (!r.ok) throw new Error(url + ": HTTP " + r.status);
      return r.json();
    }).then(function (data) {
      var begun = performance.now();
      build(root, data);
      root.dataset.xpState = "ready";
      root.dispatchEvent(new CustomEvent("xp-ready", { bubbles: true }));  /* for assets/run/keep.js */
      // what drawing it cost, for tests/bench/explorers_benchmark.py (and a reader's devtools)
      if (performance.measure) performance.measure("explorer " + name, { start: begun, end: performance.now() });
    }).catch(function (error) {
      root.dataset.xpState = "failed";
      console.error("explorer " + name + ": " + error.message);
    });
  }

  /* Until an explorer is built (it is, once it scrolls near), its root is one stop of the keyboard's Tab
     order, named as the explorer: a reader tabbing faster than the build would otherwise pass an explorer
     that has no controls yet. Focused, it starts the build, and once built, focus goes to its first control. */
  function holdPlace(root, begin) {
    var t = root.dataset;
    root.setAttribute("tabindex", "0");
    root.setAttribute("role", "group");
    root.setAttribute("aria-label", t.tName || "");
    root.addEventListener("focus", function () { begin(root); });
    root.addEventListener("xp-ready", function () {
      var had = document.activeElement === root;
      ["tabindex", "role", "aria-label"].forEach(function (a) { root.removeAttribute(a); });
      var first = root.querySelector("input, button, select, textarea, [tabindex='0']");
      if (had && first) first.focus();
    }, { once: true });
  }

  function start(name, build) {
    function setup() {
      var roots = document.querySelectorAll('[data-explorer="' + name + '"]');
      var begin = function (root) { load(name, build, root); };
      roots.forEach(function (root) {
        if (!root.dataset.xpState) { holdPlace(root, begin); root.xpBegin = begin; }
      });
      /* The home page's preview (data-compact) is on the first screen, where building it would be most of
         the page's work at load on a phone (tests/bench/README.md, "Site speed"): its static figure is the
         preview until the reader touches it (a click or a tap focuses the root, as Tab does: holdPlace),
         or until assets/run/keep.js has a state to put back in it (wake). */
      var near = Array.prototype.filter.call(roots, function (root) {
        return !root.hasAttribute("data-compact") || root.xpWoken;
      });
      if (!("IntersectionObserver" in window)) { near.forEach(begin); return; }
      var seen = new IntersectionObserver(function (entries) {
        entries.forEach(function (e) { if (e.isIntersecting) { seen.unobserve(e.target); begin(e.target); } });
      }, { rootMargin: "200px 0px" });
      near.forEach(function (root) { seen.observe(root); });
    }
    if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(setup);
    else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
    else setup();
  }

  /* ---- what every explorer builds with ---- */
  var SVG = "http://www.w3.org/2000/svg";
  var reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  /* Back and Next are chevrons (a step), Play a solid triangle: the two never look alike. */
  var ICONS = { start: "M5 4h2.5v16H5zM19 4 9 12l10 8z", back: "M15.4 4 17 5.6 10.6 12l6.4 6.4-1.6 1.6-8-8z",
                next: "M8.6 4 7 5.6l6.4 6.4L7 18.4 8.6 20l8-8z",
                end: "M16.5 4H19v16h-2.5zM5 4l10 8-10 8z", play: "M8 4l12 8-12 8z", pause: "M6 4h4v16H6zM14 4h4v16h-4z" };

  function el(tag, attrs, children) {  /* "svg:circle" makes an SVG element */
    var node = tag.indexOf("svg:") === 0 ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { node.append(c); });
    return node;
  }
  function fill(template, values) {
    return (template || "").replace(/\{(\w+)\}/g, function (_, key) { return key in values ? values[key] : ""; });
  }
  function language(root) {
    var lang = (root.closest("[lang]") || document.documentElement).getAttribute("lang") || "en";
    return lang.slice(0, 2) === "pt" ? "pt" : "en";
  }
  function strings(root) {  /* the page's words: data-t-step-title="..." is t.stepTitle */
    var t = {};
    Object.keys(root.dataset).forEach(function (k) {
      if (k.indexOf("t") === 0 && k.length > 1) t[k.charAt(1).toLowerCase() + k.slice(2)] = root.dataset[k];
    });
    return t;
  }
  function icon(name) {
    return el("svg:svg", { viewBox: "0 0 24 24", width: "20", height: "20", "aria-hidden": "true", focusable: "false" },
              [el("svg:path", { d: ICONS[name], fill: "currentColor" })]);
  }

  /* A formula typeset at build time (sitebuild/steps/explorers.py): KaTeX's HTML from data.typeset, each number
     put in its slot, from the formula's own slots (culpa's numbers, in the page's language) or from
     values (what the reader picked: a weight's indices and numbers). A number gets data-num, its slot's
     name; a slot named "_i" (an index) is plain text. KaTeX's drawing is hidden from screen readers
     (aria-hidden): the formula's label reads it, its "say" text with values filled in. */
  function formula(data, f, lang, values, cls) {
    values = values || {};
    var box = el("p", { class: "xp-math" + (cls ? " " + cls : ""), role: "img",
                        "aria-label": fill(f.say[lang], values) });
    box.innerHTML = data.typeset[f.typeset];
    box.querySelectorAll("[data-slot]").forEach(function (slot) {
      var name = slot.getAttribute("data-slot");
      var text = name in values ? values[name] : f.slots[name] ? f.slots[name][lang] : null;
      if (text === null) throw new Error("formula " + f.tex + ": nothing for slot " + name);
      var leaf = slot.querySelector(".mord") || slot;
      leaf.replaceChildren(name.charAt(0) === "_" ? String(text)
        : el("span", { class: "xp-num", "data-num": name.split(".")[0] }, [text]));
    });
    return box;
  }

  /* The controls of an explorer that steps: Start, Back, Next, End, Play and a counter (controls.bar, for
     the explorer to place); ArrowRight/ArrowLeft, Home and End with focus inside the root; Play advances
     every options.every ms and never runs under prefers-reduced-motion. They move state.step (and set
     state.announce, state.playing) and call render(); render() calls controls.show() to bring the controls
     up to date. options.onStep() runs when a control moves the step, options.ownKeys(event) keeps a key for
     the element it happened in (a list's own arrow keys), options.counter(step) writes the counter (else
     t.step with the step's n and total). */
  function stepper(root, t, steps, state, render, options) {
    options = options || {};
    var timer = null;
    function button(key) {
      var b = el("button", { type: "button", class: "xp-button", "aria-label": t[key] || key, title: t[key] || key });
      b.append(icon(key));
      return b;
    }
    var first = button("start"), back = button("back"), next = button("next"), last = button("end");
    var play = button("play");
    play.setAttribute("aria-pressed", "false");
    var counter = el("span", { class: "xp-counter" });
    var bar = el("div", { class: "xp-bar", role: "group", "aria-label": t.controls || "" },
                 [first, back, next, last, play, counter]);

    function go(index, fromPlay) {
      state.step = Math.max(0, Math.min(steps.length - 1, index));
      state.announce = true;
      if (options.onStep) options.onStep();
      if (!fromPlay) stop();
      render();
      changed(root);
    }
    keep(root, "step", {
      get: function () { return state.step || null; },
      set: function (step) {
        stop();
        state.step = Math.max(0, Math.min(steps.length - 1, Number(step) || 0));
        if (options.onStep) options.onStep();
        render();
      },
    });
    function stop() {
      if (timer) clearInterval(timer);
      timer = null;
      state.playing = false;
    }
    function toggle() {
      if (state.playing || reduceMotion.matches) { stop(); render(); return; }
      state.playing = true;
      if (state.step === steps.length - 1) state.step = 0;
      timer = setInterval(function () {
        if (state.step >= steps.length - 1) { stop(); render(); return; }
        go(state.step + 1, true);
      }, options.every || 1600);
      render();
    }
    /* A button that cannot act (Next at the last step) is aria-disabled, not disabled: a disabled button
       drops the keyboard's focus to the page's <body>, and the reader loses their place. */
    function when(button, action) {
      button.addEventListener("click", function () {
        if (button.getAttribute("aria-disabled") !== "true") action();
      });
    }
    when(first, function () { go(0); });
    when(back, function () { go(state.step - 1); });
    when(next, function () { go(state.step + 1); });
    when(last, function () { go(steps.length - 1); });
    play.addEventListener("click", toggle);
    reduceMotion.addEventListener("change", function () { stop(); render(); });
    root.addEventListener("keydown", function (event) {
      if (options.ownKeys && options.ownKeys(event)) return;
      var keys = { ArrowRight: state.step + 1, ArrowLeft: state.step - 1, Home: 0, End: steps.length - 1 };
      if (!(event.key in keys) || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      go(keys[event.key]);
    });

    function show() {
      var step = steps[state.step];
      counter.textContent = options.counter ? options.counter(step)
        : fill(t.step || "{n}/{total}", { n: step.n, total: step.total });
      var atStart = String(state.step === 0), atEnd = String(state.step === steps.length - 1);
      [first, back].forEach(function (b) { if (b.getAttribute("aria-disabled") !== atStart) b.setAttribute("aria-disabled", atStart); });
      [next, last].forEach(function (b) { if (b.getAttribute("aria-disabled") !== atEnd) b.setAttribute("aria-disabled", atEnd); });
      play.hidden = reduceMotion.matches;
      play.setAttribute("aria-pressed", String(state.playing));
      play.setAttribute("aria-label", state.playing ? t.pause : t.play);
      play.title = state.playing ? t.pause : t.play;
      play.replaceChildren(icon(state.playing ? "pause" : "play"));
      root.dataset.step = String(state.step + 1);
    }
    return { bar: bar, show: show };
  }

  /* The explorer's own caption (t.caption, its {slots} filled from values: numbers from the data). The figure
     keeps one <figcaption>: the static figure's words go in a span that shows in print (with the static
     figure), the explorer's in a span that shows on screen (explorers.css). */
  function caption(root, t, values) {
    var box = root.querySelector("figure > figcaption");
    if (!box || !t.caption || box.querySelector(".xp-caption-live")) return;
    var still = el("span", { class: "xp-caption-static" });
    still.append.apply(still, Array.prototype.slice.call(box.childNodes));
    box.replaceChildren(still, el("span", { class: "xp-caption-live" }, [fill(t.caption, values || {})]));
  }

  /* ---- the reader's numbers: culpa in this page ----
     One worker for the page's explorers, started from a blob: bootstrap of assets/run/worker.js (as Run starts
     its own: the page's Content-Security-Policy holds in it), with culpa's wheel from the root's data-wheel.
     explore(root, name, fields) sends the reader's fields as typed; the worker runs the explorer's exporter
     (sitebuild/explorers/in_page.py) and answers {ok, data} or {ok: false, problems}. The data's formulas
     point at the book's typeset HTML (the reader's numbers go in the same slots), so the answer keeps the
     book's data.typeset. onLoading(true) while Python loads (the first time), false once it is there. */
  var LOAD_TIMEOUT_MS = 120000;  /* as Run: a busy phone takes about 20 s */
  var python = { worker: null, ready: false, waiting: {}, next: 0 };

  function giveUp(message) {
    var waiting = python.waiting;
    if (python.worker) python.worker.terminate();
    python.worker = null;
    python.ready = false;
    python.waiting = {};
    Object.keys(waiting).forEach(function (id) { waiting[id].reject(new Error(message)); });
  }

  function pythonWorker(root) {
    if (python.worker) return python.worker;
    var url = new URL("../run/worker.js", BASE);
    url.searchParams.set("wheel", root.dataset.wheel || "");
    var boot = URL.createObjectURL(new Blob(
      ["self.culpaWorkerURL = " + JSON.stringify(url.href) + ";\nimportScripts(self.culpaWorkerURL);\n"],
      { type: "text/javascript" }));
    var worker = new Worker(boot);
    python.worker = worker;
    worker.onerror = function (event) {
      event.preventDefault();
      if (python.worker === worker) giveUp(event.message || "worker.js");
    };
    worker.onmessage = function (event) {
      var m = event.data;
      if (python.worker !== worker) return;
      if (m.type === "ready") python.ready = true;
      else if (m.type === "failed") giveUp(m.error);
      else if (m.type === "explored") {
        var waiting = python.waiting[m.id];
        delete python.waiting[m.id];
        if (!waiting) return;
        clearTimeout(waiting.timer);
        if (m.error) {
          console.error("explorer's Python: " + m.error);  /* the whole traceback, for whoever debugs */
          waiting.reject(new Error(m.error.trim().split("\n").pop()));  /* the reader gets its last line */
        }
        else waiting.resolve(JSON.parse(m.answer));
      }
    };
    return worker;
  }

  function explore(root, name, fields, book, onLoading) {
    var typeset = {};  /* each formula's TeX -> its HTML in book.typeset */
    (function walk(value) {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === "object") {
        if (typeof value.tex === "string") typeset[value.tex] = value.typeset;
        else Object.keys(value).forEach(function (k) { walk(value[k]); });
      }
    })(book);
    return new Promise(function (resolve, reject) {
      var worker = pythonWorker(root);
      var id = ++python.next;
      if (onLoading && !python.ready) onLoading(true);
      var timer = setTimeout(function () { giveUp("timeout"); }, LOAD_TIMEOUT_MS);
      python.waiting[id] = { resolve: resolve, reject: reject, timer: timer };
      worker.postMessage({ type: "explore", id: id, name: name, fields: JSON.stringify(fields),
                           typeset: JSON.stringify(typeset) });
    }).then(function (answer) {
      if (onLoading) onLoading(false);
      if (answer.ok) answer.data.typeset = book.typeset;
      return answer;
    }, function (error) {
      if (onLoading) onLoading(false);
      throw error;
    });
  }

  /* The reader's fields, the same in every explorer that takes them: a <form> with a field per input (a text
     field for a number, a <select> for a choice), "Compute with culpa" (Enter in a field), "Back to the
     book's numbers", and a status line (role=status). options:
       fields: [{name, label, value (the book's, as the page writes it), choices: [{value, label}] or none}]
       show(data, yours): put the data in place of the explorer's and render (yours: the reader's numbers)
       bookValues(): the book's value of each field, by name; bookShown(): what the status says then
       extra(): more fields to send, not typed (nudge's chosen knob)
     A choice computes as soon as it changes. A field culpa cannot read gets culpa's message (t.problemEmpty,
     t.problemNumber, t.problemRange, or t.problem + the problem's name capitalized: t.problemClass), is
     marked aria-invalid and takes the focus; nothing changes. Returns {form, compute(): as pressing Compute,
     mine(): are the reader's numbers shown}. */
  function reader(root, name, t, lang, book, options) {
    var id = "xp-" + name + "-" + Math.random().toString(36).slice(2, 8);
    var fields = {}, labels = {};
    var row = el("div", { class: "xp-fields" });
    options.fields.forEach(function (f) {
      labels[f.name] = f.label;
      var field;
      if (f.choices) {
        field = el("select", { id: id + "-" + f.name, name: f.name });
        f.choices.forEach(function (c) { field.append(el("option", { value: c.value }, [c.label])); });
        field.value = f.value;
        field.addEventListener("change", function () { form.requestSubmit ? form.requestSubmit() : compute.click(); });
      } else {
        field = el("input", { type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false",
                              id: id + "-" + f.name, name: f.name, size: "6", value: f.value });
      }
      fields[f.name] = field;
      row.append(el("label", { class: "xp-field", for: id + "-" + f.name }, [f.label, field]));
    });
    var compute = el("button", { type: "submit", class: "md-button md-button--primary xp-compute" }, [t.compute || "Compute"]);
    var reset = el("button", { type: "button", class: "md-button xp-book", "aria-disabled": "true" }, [t.book || "Book"]);
    var status = el("p", { class: "xp-status", role: "status" });
    var form = el("form", { class: "xp-inputs", novalidate: "" }, [
      el("fieldset", {}, [el("legend", {}, [t.inputs || ""]), row, el("div", { class: "xp-actions" }, [compute, reset])]),
      status]);
    var busy = false, mine = false;
    function said(text) { status.textContent = text; }
    function values() {
      var out = options.extra ? options.extra() : {};
      Object.keys(fields).forEach(function (k) { out[k] = fields[k].value; });
      return out;
    }
    function mark(problems) {
      Object.keys(fields).forEach(function (k) { fields[k].removeAttribute("aria-invalid"); });
      problems.forEach(function (p) { if (fields[p.field]) fields[p.field].setAttribute("aria-invalid", "true"); });
    }
    function show(next, yours) {
      mine = yours;
      root.dataset.numbers = yours ? "reader" : "book";
      reset.setAttribute("aria-disabled", String(!yours));
      options.show(next, yours);
      changed(root);
    }
    function problemText(p) {
      var key = "problem" + p.problem.charAt(0).toUpperCase() + p.problem.slice(1);
      var values = { field: labels[p.field] || p.field };
      Object.keys(p).forEach(function (k) {
        var v = p[k];
        if (k !== "field") values[k] = v && typeof v === "object" ? v[lang] : v;
      });
      return fill(t[key] || p.problem, values);
    }
    /* A reader typing a number is about to ask culpa: Python starts loading at the first keystroke in a field
       (not at focus: Tab passing by loads nothing), so less of its start is left when Compute is pressed. */
    form.addEventListener("input", function typing(event) {
      if (event.target.tagName !== "INPUT") return;  /* a choice computes at once anyway */
      form.removeEventListener("input", typing);
      pythonWorker(root);
    });
    var running = null;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      run();
    });
    function run() {  /* settles once culpa's answer is shown (or refused) */
      if (busy) return running;
      busy = true;
      var begun = performance.now();
      compute.setAttribute("aria-disabled", "true");
      said(t.computing || "…");
      root.dataset.computing = "1";
      running = explore(root, name, values(), book, function (loading) { if (loading) said(t.loading || "…"); })
        .then(function (answer) {
          if (!answer.ok) {
            mark(answer.problems);
            said(answer.problems.map(problemText).join(" ") + " " + (t.unchanged || ""));
            var first = fields[answer.problems[0].field];
            if (first) first.focus();
            return;
          }
          mark([]);
          var drawing = performance.now();
          show(answer.data, true);
          said(t.computed || "");
          /* a field at the screen's bottom edge (where Tab leaves it): what Enter did is shown, not only said */
          if (status.getBoundingClientRect().bottom > innerHeight) status.scrollIntoView({ block: "nearest" });
          /* what it cost, for tests/bench/reader_numbers_benchmark.py (and a reader's devtools) */
          if (performance.measure) {
            performance.measure("reader's numbers: " + name, { start: begun, end: performance.now() });
            performance.measure("reader's numbers drawn: " + name, { start: drawing, end: performance.now() });
          }
        }, function (error) {
          said(fill(t.failed || "{error}", { error: error.message }));
        }).then(function () {
          busy = false;
          compute.setAttribute("aria-disabled", "false");
          delete root.dataset.computing;
        });
      return running;
    }
    function backToBook() {
      var back = options.bookValues();
      Object.keys(fields).forEach(function (k) { fields[k].value = back[k]; });
      mark([]);
      show(book, false);
      said(options.bookShown());
    }
    reset.addEventListener("click", function () {
      if (!mine || busy) return;
      backToBook();
      compute.focus();  /* Back cannot act any more: the focus goes to the control beside it */
    });
    keep(root, "fields", {
      get: function () { return mine ? values() : null; },
      set: function (kept) {
        if (!kept) { if (mine) backToBook(); return null; }
        Object.keys(fields).forEach(function (k) { if (typeof kept[k] === "string") fields[k].value = kept[k]; });
        return run();
      },
    });
    root.dataset.numbers = "book";
    return { form: form, fields: fields, compute: function () { form.requestSubmit ? form.requestSubmit() : compute.click(); },
             mine: function () { return mine; } };
  }

  /* The home page's preview, which waits for the reader's touch, started now (by keep.js, to put a kept
     state back in it). Any other explorer starts when it scrolls into view, kept state or not. */
  function wake(root) {
    if (!root.hasAttribute("data-compact")) return;
    root.xpWoken = true;
    if (root.xpBegin && !root.dataset.xpState) root.xpBegin(root);
  }

  /* What assets/run/keep.js keeps of an explorer (its header says how): each part of its state, {get, set},
     get() null at the book's start: "fields" (the reader's, while culpa's answer shows), "step", "view". */
  function keep(root, part, handle) { (root.xpKeep = root.xpKeep || {})[part] = handle; }
  function changed(root) { root.dispatchEvent(new CustomEvent("xp-change", { bubbles: true })); }

  window.culpaExplorers = { start: start, wake: wake, keep: keep, changed: changed, el: el, fill: fill, language: language, strings: strings,
                            stepper: stepper, formula: formula, caption: caption, explore: explore, reader: reader };
})();
