/* The nudge explorer (page 08): move one knob and the step ε, pick float64 or float32, and read the one-sided
   and central differences against the exact slope of one backward pass.

   Every number, and every point of the two plots, comes from data/nudge.json, precomputed by culpa at build
   time on a grid (snippets/sitebuild/explorers/nudge.py) and written for both languages; this script only picks the
   grid cell the sliders (and the precision) point at and shows it; a cell whose step vanished in the
   precision is empty, and says so. Every word comes from the page (the root's data-t-*).
   One state object, one render(state). Starts when the explorer scrolls into view.

   Two knobs: the smooth one (data's top level) and one at a ReLU's kink (data.kink), each with its own grid;
   a pair of buttons picks one. The reader's numbers: a value θ for the knob picked, in a field above the
   sliders (start.js's reader, as the worked example's): culpa computes that knob at that θ in this page (the
   same exporter, in Pyodide), for every ε and both precisions; the knob slider then holds that θ alone.
   Picking the other knob computes it at the same θ. "Back to the book's numbers" puts the build's grids back. */
(function () {
  "use strict";
  var NAME = "nudge";
  var X = window.culpaExplorers;  /* assets/explorers/start.js: the helpers every explorer builds with */
  var el = X.el, fill = X.fill, language = X.language, strings = X.strings;

  function points(list) { return list.map(function (p) { return p[0] + "," + p[1]; }).join(" "); }

  function build(root, data) {
    var lang = language(root), t = strings(root), uid = NAME + "-" + Math.random().toString(36).slice(2, 8);
    var book = data;  /* the build's data; data becomes the reader's when culpa computes theirs */
    var state = { knob: data.default_knob, eps: data.default_eps, precision: data.precisions[0], kind: data.kind,
                  announce: false };
    function view() { return state.kind === data.kind ? data : data[state.kind]; }  /* the knob picked */
    function grid() { return state.precision === data.precisions[0] ? view().knobs : view()["knobs_" + state.precision]; }
    function knobLabel() { return fill(state.kind === "kink" ? t.knobKink : t.knob, { knob: view().knob_name }); }
    var figure = root.querySelector("figure");
    var fallback = figure ? figure.querySelector("img, picture, p") : null;

    function slider(id, label, max, value) {
      var input = el("input", { type: "range", id: uid + "-" + id, min: "0", max: String(max), step: "1", value: String(value) });
      var text = el("label", { for: uid + "-" + id }, [label]);
      var out = el("output", { for: uid + "-" + id, class: "xp-num", "data-num": id });
      return { input: input, out: out, row: el("div", { class: "xp-slider" }, [text, input, out]) };
    }
    var knob = slider("knob", knobLabel(), data.knobs.length - 1, state.knob);
    var eps = slider("eps", t.eps || "ε", data.epsilons.length - 1, state.eps);
    /* the precision: a button per precision the data holds, the chosen one pressed */
    var choices = data.precisions.map(function (name) {
      var b = el("button", { type: "button", class: "xp-button xp-choice", "aria-pressed": "false" }, [el("code", {}, [name])]);
      b.addEventListener("click", function () { state.precision = name; state.announce = true; render(); X.changed(root); });
      return b;
    });
    var precision = el("div", { class: "xp-precision", role: "group", "aria-label": t.precision || "" },
                       [el("span", { "aria-hidden": "true" }, [t.precision || ""])].concat(choices));
    /* the knob: the smooth one or the one at a kink; with the reader's θ, picking the other computes it there */
    var kindNames = { smooth: t.kindSmooth, kink: t.kindKink };
    var kinds = book.kinds.map(function (name) {
      var b = el("button", { type: "button", class: "xp-button xp-kind", "data-kind": name, "aria-pressed": "false" },
                 [kindNames[name] || name]);
      b.addEventListener("click", function () {
        if (state.kind === name) return;
        if (inputs.mine()) {  /* the reader's θ on the other knob: culpa computes it (the knob changes with its answer) */
          state.asked = name;
          inputs.compute();  /* the form reads its fields now (extra), before culpa answers */
          state.asked = null;
          return;
        }
        state.kind = name;
        inputs.fields.theta.value = view().theta[lang];
        state.knob = view().default_knob;
        state.announce = true;
        render();
        X.changed(root);
      });
      return b;
    });
    var kind = el("div", { class: "xp-precision xp-kinds", role: "group", "aria-label": t.kind || "" },
                  [el("span", { "aria-hidden": "true" }, [t.kind || ""])].concat(kinds));

    var cells = {};
    function row(key, label, cls) {  /* a row's name, and what it computes (typeset at build time) */
      var value = el("td", { class: "xp-num", "data-num": key });
      cells[key] = value;
      var head = el("th", { scope: "row", class: cls || "" }, [label]);
      if (data.row_math[key]) head.append(X.formula(data, data.row_math[key], lang, null, "xp-row-math"));
      return el("tr", {}, [head, value]);
    }
    var table = el("table", { class: "xp-readout" }, [el("tbody", {}, [
      row("loss", t.loss), row("exact", t.exact),
      row("forward", t.forward, "xp-key-forward"), row("error_forward", t.errorForward, "xp-key-forward"),
      row("central", t.central, "xp-key-central"), row("error_central", t.errorCentral, "xp-key-central"),
    ])]);

    /* the loss against the knob, with the tangent (exact slope) and the central secant */
    var L = data.plot_l, E = data.plot_e;
    var plotL = el("svg:svg", { viewBox: "0 0 " + L.width + " " + L.height, class: "xp-plot", role: "img", "aria-label": t.plotLoss || "" });
    var curve = el("svg:polyline", { points: points(data.curve), class: "xp-curve" });
    var knobAxis = el("svg:text", { x: L.width - L.pad, y: L.height - 4, "text-anchor": "end" }, [data.knob_name]);
    var tangent = el("svg:line", { class: "xp-tangent" });
    var secant = el("svg:line", { class: "xp-secant" });
    var dot = el("svg:circle", { r: "4", class: "xp-dot" });
    plotL.append(el("svg:rect", { x: "0.5", y: "0.5", width: L.width - 1, height: L.height - 1, class: "xp-frame" }),
                 curve, tangent, secant, dot,
                 el("svg:text", { x: L.pad, y: L.pad + 4 }, [t.lossAxis || "L"]), knobAxis);

    /* the error of each estimate against ε, for this knob */
    var plotE = el("svg:svg", { viewBox: "0 0 " + E.width + " " + E.height, class: "xp-plot", role: "img", "aria-label": t.plotError || "" });
    var f = data.frame_e;
    plotE.append(el("svg:rect", { x: f[0], y: f[1], width: f[2] - f[0], height: f[3] - f[1], class: "xp-frame" }));
    data.levels_e.forEach(function (lv) {
      plotE.append(el("svg:text", { x: f[0] + 3, y: lv.at - 2, class: "xp-tick" }, [lv.label[lang]]));
    });
    data.ticks_e.forEach(function (tk) {
      plotE.append(el("svg:text", { x: tk.at, y: E.height - 1, "text-anchor": "middle", class: "xp-tick" }, [tk.label[lang]]));
    });
    var fwdLine = el("svg:polyline", { class: "xp-forward" }), ctrLine = el("svg:polyline", { class: "xp-central" });
    var cursor = el("svg:line", { class: "xp-cursor" });
    var fwdDot = el("svg:circle", { r: "4.5", class: "xp-dot xp-dot--forward" });
    var ctrDot = el("svg:circle", { r: "4.5", class: "xp-dot xp-dot--central" });
    plotE.append(cursor, fwdLine, ctrLine, fwdDot, ctrDot,
                 el("svg:text", { x: f[2], y: f[1] - 3, "text-anchor": "end" }, [t.errorAxis || ""]));

    var say = el("p", { class: "xp-say", "aria-live": "polite" });
    var note = el("p", { class: "xp-note", hidden: "" });
    var inputs = yourNumbers();
    var ui = el("div", { class: "xp-ui" }, [inputs.form,
      el("div", { class: "xp-sliders" }, [kind, knob.row, eps.row, precision]), table, note,
      el("div", { class: "xp-plots" }, [plotL, plotE]), say]);
    if (fallback) { fallback.hidden = true; fallback.after(ui); } else root.prepend(ui);
    X.caption(root, t, { knob: data.knob_name });
    root.classList.add("xp-ready");

    /* ---- the reader's numbers (start.js's reader: the same form in every explorer) ---- */
    function yourNumbers() {
      return X.reader(root, NAME, t, lang, book, {
        fields: [{ name: "theta", label: t.theta || "θ", value: view().theta[lang] }],
        extra: function () { return { kind: state.asked || state.kind }; },
        show: function (next, yours) {
          data = next;
          state.kind = yours ? data.kind : state.kind;  /* the reader's: the knob culpa computed; the book's: both */
          state.knob = view().default_knob;
          state.announce = true;
          render();
        },
        bookValues: function () { return { theta: (state.kind === book.kind ? book : book[state.kind]).theta[lang] }; },
        bookShown: function () { return fill(t.bookShown || "", { theta: view().theta[lang] }); },
      });
    }

    function render() {
      var v = view(), k = grid()[state.knob], cell = k.cells[state.eps], e = data.epsilons[state.eps][lang];
      var empty = cell.secant === null;
      knob.input.max = String(v.knobs.length - 1);
      /* the reader's θ: one position, nothing to slide; a thumb at the track's end would say another θ */
      knob.input.disabled = knob.input.hidden = v.knobs.length < 2;
      knob.row.querySelector("label").textContent = knobLabel();
      curve.setAttribute("points", points(v.curve));
      knobAxis.textContent = v.knob_name;
      kinds.forEach(function (b) { b.setAttribute("aria-pressed", String(b.dataset.kind === state.kind)); });
      knob.input.value = String(state.knob);
      eps.input.value = String(state.eps);
      knob.out.textContent = "θ = " + k.theta[lang];
      eps.out.textContent = "ε = " + e;
      /* what a screen reader hears: the value shown, in the page's words (not the slider's index) */
      var spoken = data.epsilons_spoken[state.eps];
      knob.input.setAttribute("aria-valuetext", fill(state.kind === "kink" ? t.knobValueKink : t.knobValue, { theta: k.theta[lang] }));
      eps.input.setAttribute("aria-valuetext", spoken.mantissa === null
        ? fill(t.epsValue, { exponent: spoken.exponent[lang] })
        : fill(t.epsValueTimes, { mantissa: spoken.mantissa[lang], exponent: spoken.exponent[lang] }));
      cells.loss.textContent = k.loss[lang];
      cells.exact.textContent = k.exact[lang];
      cells.forward.textContent = cell.forward[lang];
      cells.central.textContent = cell.central[lang];
      cells.error_forward.textContent = cell.error_forward[lang];
      cells.error_central.textContent = cell.error_central[lang];
      dot.setAttribute("cx", k.point[0]); dot.setAttribute("cy", k.point[1]);
      choices.forEach(function (b, i) { b.setAttribute("aria-pressed", String(data.precisions[i] === state.precision)); });
      note.hidden = !empty;
      note.textContent = empty ? fill(t.noStepNote, { precision: state.precision, eps: e }) : "";
      secant.style.display = fwdDot.style.display = ctrDot.style.display = empty ? "none" : "";
      [[tangent, k.tangent], [secant, cell.secant || k.tangent]].forEach(function (pair) {
        pair[0].setAttribute("x1", pair[1][0][0]); pair[0].setAttribute("y1", pair[1][0][1]);
        pair[0].setAttribute("x2", pair[1][1][0]); pair[0].setAttribute("y2", pair[1][1][1]);
      });
      /* each estimate's curve joins its points of every ε (a step lost to rounding has none) */
      [[fwdLine, 0], [ctrLine, 1]].forEach(function (pair) {
        pair[0].setAttribute("points", points(k.cells.filter(function (c) { return c.at[pair[1]] !== null; })
                                                 .map(function (c) { return c.at[pair[1]]; })));
      });
      var where = data.eps_x[state.eps];
      if (!empty) {
        fwdDot.setAttribute("cx", cell.at[0][0]); fwdDot.setAttribute("cy", cell.at[0][1]);
        ctrDot.setAttribute("cx", cell.at[1][0]); ctrDot.setAttribute("cy", cell.at[1][1]);
      }
      cursor.setAttribute("x1", where); cursor.setAttribute("x2", where);
      cursor.setAttribute("y1", f[1]); cursor.setAttribute("y2", f[3]);
      if (state.announce) {
        say.textContent = fill(empty ? t.sayEmpty : t.say, { precision: state.precision, theta: k.theta[lang], eps: e,
          loss: k.loss[lang], exact: k.exact[lang],
          forward: cell.forward[lang], error_forward: cell.error_forward[lang],
          central: cell.central[lang], error_central: cell.error_central[lang] });
      }
      root.dataset.knob = String(state.knob + 1);
      root.dataset.eps = String(state.eps + 1);
      root.dataset.precision = state.precision;
      root.dataset.kind = state.kind;
    }
    knob.input.addEventListener("input", function () {
      state.knob = Number(knob.input.value);
      state.announce = true;
      render();
      inputs.fields.theta.value = grid()[state.knob].theta[lang];  /* the field says the θ the slider points at */
      X.changed(root);
    });
    eps.input.addEventListener("input", function () { state.eps = Number(eps.input.value); state.announce = true; render(); X.changed(root); });
    /* the knob, ε and precision, for a link and the browser to keep (start.js's keep): indices into the data's
       own grids, never a number computed here; one out of range or unknown is not taken */
    X.keep(root, "view", {
      get: function () {
        var start = { kind: book.kind, knob: book.default_knob, eps: book.default_eps, precision: book.precisions[0] };
        var now = { kind: state.kind, knob: state.knob, eps: state.eps, precision: state.precision };
        return JSON.stringify(now) === JSON.stringify(start) ? null : now;
      },
      set: function (kept) {
        kept = kept || { kind: book.kind, knob: book.default_knob, eps: book.default_eps, precision: book.precisions[0] };
        if (book.kinds.indexOf(kept.kind) >= 0 && !inputs.mine() && kept.kind !== state.kind) {
          state.kind = kept.kind;
          inputs.fields.theta.value = view().theta[lang];
        }
        if (data.precisions.indexOf(kept.precision) >= 0) state.precision = kept.precision;
        var index = function (i, list) { i = Number(i); return Number.isInteger(i) && i >= 0 && i < list.length ? i : null; };
        var e = index(kept.eps, data.epsilons), k = index(kept.knob, view().knobs);
        if (e !== null) state.eps = e;
        if (k !== null) state.knob = k;
        /* the field says the θ the slider points at, as when the reader moves it (the reader's θ stays) */
        if (!inputs.mine()) inputs.fields.theta.value = grid()[state.knob].theta[lang];
        render();
      },
    });
    render();
  }

  X.start(NAME, build);
})();
