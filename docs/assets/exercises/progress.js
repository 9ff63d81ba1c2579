/* Progress: the checked exercises the reader solved, kept in localStorage and nowhere else; read on every
   page (deferred), never with Python. A page with exercises registers their ids under its address and its
   translation's (<link rel="alternate" hreflang>); each navigation link to such a page gets "2 de 3" when
   some are solved; the line after the exercises' heading says this page's count, and its button clears
   all (announced). check.js calls window.culpaProgress.solve(id) on a right verdict. Words: data-t-* on this
   script's tag (sitebuild/steps/exercises.py, which says more). One state, one render(). */
(function () {
  "use strict";
  var KEY = "culpa-exercises";
  var script = document.currentScript;
  var t = {};
  Object.keys(script.dataset).forEach(function (k) {  /* data-t-progress-nav is t.progressNav */
    if (k.indexOf("t") === 0 && k.length > 1) t[k.charAt(1).toLowerCase() + k.slice(2)] = script.dataset[k];
  });
  if (!t.progressNav) return;  /* a page the build did not word (the 404 pages): nothing to mark */

  function load() {
    try {
      var state = JSON.parse(localStorage.getItem(KEY) || "{}");
      return { solved: state.solved || {}, pages: state.pages || {} };
    } catch (error) {
      return { solved: {}, pages: {} };  /* storage refused (private mode) or not ours: no progress */
    }
  }
  function save(state) {
    try { localStorage.setItem(KEY, JSON.stringify(state)); } catch (error) { /* kept for this visit only */ }
  }
  function address(href) {  /* a page's key: its path, "index.html" left out */
    var url = new URL(href, location.href);
    return url.pathname.replace(/index\.html$/, "");
  }
  var fill = function (text, values) { return text.replace(/\{(\w+)\}/g, function (_, k) { return values[k]; }); };

  var state = load();
  var here = address(location.href);
  var roots = [].slice.call(document.querySelectorAll(".exercise[data-exercise]"));
  if (roots.length) {
    var ids = roots.map(function (root) { return root.dataset.exercise; });
    var addresses = [here].concat([].slice.call(document.querySelectorAll('link[rel="alternate"][hreflang]'))
      .map(function (link) { return address(link.href); }));
    var changed = false;
    addresses.forEach(function (key) {
      if (JSON.stringify(state.pages[key]) !== JSON.stringify(ids)) { state.pages[key] = ids; changed = true; }
    });
    if (changed) save(state);
  }

  function count(key) {
    var ids = state.pages[key] || [];
    return { solved: ids.filter(function (id) { return state.solved[id]; }).length, total: ids.length };
  }

  function render() {
    /* a link to a page (not to a section of one), and the phone's label of this page (its contents' toggle) */
    document.querySelectorAll('.md-nav__link[href], label.md-nav__link[for="__toc"]').forEach(function (link) {
      var href = link.getAttribute("href") || "./";
      if (href.indexOf("#") !== -1) return;
      var c = count(address(href));
      var mark = link.querySelector(".ex-mark");
      if (!c.solved) { if (mark) mark.remove(); return; }
      if (!mark) {
        mark = document.createElement("span");
        mark.className = "ex-mark";
        (link.querySelector(".md-ellipsis") || link).append(mark);
      }
      mark.textContent = fill(t.progressNav, c);
      mark.setAttribute("aria-label", fill(t.progressNavLabel, c));
      mark.setAttribute("role", "img");  /* named as a whole: "exercises solved: 2 of 3" */
    });
    roots.forEach(function (root) {  /* the root's state, and the prompt's mark (site.css) */
      [root, root.querySelector(".ex-prompt")].forEach(function (node) {
        if (state.solved[root.dataset.exercise]) node.dataset.solved = t.solved;
        else delete node.dataset.solved;
      });
    });
    var line = document.querySelector(".ex-progress");
    if (line) {
      var c = count(here);
      line.hidden = false;
      line.querySelector(".ex-progress-clear").hidden = !Object.keys(state.solved).length;
      var said = line.querySelector(".ex-progress-said");
      said.textContent = fill(c.solved ? t.progressLine : t.progressNone, c);
      said.setAttribute("role", "status");  /* after the first sentence: changes are announced, the load is not */
    }
  }

  function clear(button) {
    if (!Object.keys(state.solved).length) return;  /* nothing to clear (the button is not offered then) */
    state = { solved: {}, pages: state.pages };
    save(state);
    render();
    var said = button.closest(".ex-progress").querySelector(".ex-progress-said");
    said.textContent = "";
    setTimeout(function () { said.textContent = t.progressCleared; }, 50);  /* announced, even if repeated */
    said.setAttribute("tabindex", "-1");
    said.focus();  /* the button hides itself: the focus goes to what it did */
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".ex-progress-clear");
    if (button) clear(button);
  });
  window.addEventListener("storage", function (event) {  /* another tab solved or cleared */
    if (event.key === KEY || event.key === null) { state = load(); render(); }
  });
  window.culpaProgress = {
    solve: function (id) {
      state = load();
      state.solved[id] = 1;
      save(state);
      render();
    },
  };
  render();

  /* Predict (predict.js) loads on the reader's first touch of one, never with the page; a Show pressed before
     it is there is replayed by it (window.culpaPredictPending). */
  if (!document.querySelector(".predict")) return;

  /* What gives a Predict's answer away stays held until the reader shows it (predict.js calls
     culpaPredictRelease on Show, a prediction or none): the printed output of the first block after the
     Predict, and the paragraphs right after that output that state the answer's number (data-answer-text,
     as the page writes it). A note stands in their place. Without JavaScript nothing is held. */
  var holds = [];
  [].slice.call(document.querySelectorAll(".predict")).forEach(function (root) {
    var node = root.nextElementSibling, answer = root.dataset.answerText;
    while (node && !node.matches(".predict, h2, h3, .exercise, .run-expected")) node = node.nextElementSibling;
    if (!node || !node.matches(".run-expected")) return;
    var held = [node];
    for (var next = node.nextElementSibling; next; next = next.nextElementSibling) {
      var states = next.matches("p") && answer && next.textContent.indexOf(answer) !== -1;
      if (!next.matches(".run-expected") && !states) break;
      held.push(next);
    }
    var note = document.createElement("p");
    note.className = "pr-held-note";
    note.textContent = root.dataset.tPredictHeld || "";
    node.before(note);
    held.forEach(function (el) { el.classList.add("pr-held"); el.hidden = true; });
    holds.push({ root: root, held: held, note: note });
  });
  window.culpaPredictRelease = function (root) {
    holds.forEach(function (h) {
      if (h.root !== root) return;
      h.held.forEach(function (el) { el.hidden = false; });
      h.note.remove();
    });
  };
  var pending = (window.culpaPredictPending = []), asked = false;
  function early(event) {
    var root = event.target.closest && event.target.closest(".predict");
    if (!root || window.culpaPredict) return;
    if (event.type === "submit") { event.preventDefault(); pending.push(root); }
    if (asked) return;
    asked = true;
    document.head.append(Object.assign(document.createElement("script"), { src: new URL("predict.js", script.src).href }));
  }
  ["focusin", "pointerdown", "submit"].forEach(function (type) { document.addEventListener(type, early, true); });
})();
