/* The worked-example explorer (page 03): step through the graph culpa recorded, forward then backward.

   Every number comes from data/worked-example.json, written by culpa at build time
   (snippets/sitebuild/explorers/worked_example.py) for both languages; this script only lays it out, reveals it
   step by step and announces each step. Every word comes from the page (the root's data-t-* attributes).
   One state object, one render(state). Starts when the explorer scrolls into view.

   The reader's numbers: three logits and the observed class, in fields above the graph. Compute sends them as
   typed to culpa in this page (start.js's explore: the same exporter, page 03's own code, in Pyodide) and
   shows the data it answers in place of the book's, at the same step; a field culpa cannot read gets the
   message culpa's reader gave (which field, what is wrong) and nothing changes. "Back to the book's numbers"
   puts the build's data back. */
(function () {
  "use strict";
  var NAME = "worked-example";
  var X = window.culpaExplorers;  /* assets/explorers/start.js: the helpers every explorer builds with */
  var el = X.el, fill = X.fill, language = X.language, strings = X.strings;

  /* ---- the explorer ---- */
  function build(root, data) {
    var lang = language(root), t = strings(root), compact = root.hasAttribute("data-compact");
    var book = data;  /* the build's data; data becomes the reader's when culpa computes theirs */
    data = Object.assign({}, book, { steps: book.steps.slice(), nodes: book.nodes.slice() });
    var steps = data.steps, nodes = data.nodes;  /* replaced in place: the controls and the graph keep them */
    var state = { step: 0, playing: false, announce: false };
    var figure = root.querySelector("figure");
    var fallback = figure ? figure.querySelector("img, picture, p") : null;

    /* the counter counts each phase on its own: forward node n of 9, backward step n of 8 (the figure's numbers) */
    function counter(step) {
      return fill(step.phase === "forward" ? t.stepForward : t.stepBackward, { n: step.phase_n, total: step.phase_total });
    }
    var controls = X.stepper(root, t, steps, state, render, { every: 1600, counter: counter });
    var bar = controls.bar;

    /* the graph: a column of nodes, z at the top, as page 03's figure draws it: each node's value on the side
       data.sides.value says (left), its gradient on the side data.sides.grad says (right), after the number of
       the backward step that visits it (data: node.order, 1 at L to 8 at z) */
    var ROW = 44, W = 400, BOX_L = 140, BOX_R = 202, LEFT_X = 124, BADGE_X = 216, RIGHT_X = 230, TOP = 30;
    var at = { left: LEFT_X, right: RIGHT_X }, anchor = { left: "end", right: "start" };
    var svg = el("svg:svg", { viewBox: "0 0 " + W + " " + (TOP + ROW * nodes.length), class: "xp-graph",
                              role: "img", "aria-label": t.graph || "" });
    svg.append(el("svg:text", { x: at[data.sides.value], y: 16, "text-anchor": anchor[data.sides.value],
                                class: "xp-head" }, [t.forwardHead || ""]));
    svg.append(el("svg:text", { x: data.sides.grad === "right" ? BADGE_X - 10 : LEFT_X, y: 16,
                                "text-anchor": anchor[data.sides.grad], class: "xp-head xp-head--back" },
                  [t.backwardHead || ""]));
    var cy = function (id) { return TOP + ROW * id + ROW / 2; };
    /* a constant leaf (y) is no step of the chain: it sits aside, at the left of its row, and feeds its child by a
       short arrow of its own, while the arrow from the node above goes straight past it (as the static figure) */
    var aside = function (node) { return node.constant && node.parents.length === 0; };
    var ASIDE_R = BOX_L + 26;
    var between = function (from, to) {
      return nodes.slice(from + 1, to).every(aside);
    };
    var edges = {};
    nodes.forEach(function (node) {
      node.parents.forEach(function (parent) {
        var mid = (BOX_L + BOX_R) / 2, d;
        if (aside(nodes[parent])) d = "M" + (BOX_L + ASIDE_R) / 2 + " " + (cy(parent) + 14) + " L" + (mid - 10) + " " + (cy(node.id) - 16);
        else if (between(parent, node.id)) d = "M" + mid + " " + (cy(parent) + 14) + " L" + mid + " " + (cy(node.id) - 16);
        else d = "M" + BOX_L + " " + cy(parent) + " C" + (BOX_L - 12) + " " + cy(parent) + " " + (BOX_L - 12) +
                 " " + cy(node.id) + " " + (BOX_L - 3) + " " + cy(node.id);
        var path = el("svg:path", { d: d, class: "xp-edge", "marker-end": "url(#xp-arrow-" + NAME + ")" });
        edges[parent + "-" + node.id] = path;
        svg.append(path);
      });
    });
    var defs = el("svg:defs", {}, [el("svg:marker", { id: "xp-arrow-" + NAME, viewBox: "0 0 10 10", refX: "9", refY: "5",
      markerWidth: "8", markerHeight: "8", markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" }, [el("svg:path", { d: "M0 0 L10 5 L0 10 z", class: "xp-arrowhead" })])]);
    svg.prepend(defs);
    var rows = nodes.map(function (node) {
      var y = cy(node.id);
      var right = aside(node) ? ASIDE_R : BOX_R;
      var box = el("svg:rect", { x: BOX_L, y: y - 14, width: right - BOX_L, height: 28, rx: 6,
                                 class: "xp-node" + (node.constant ? " xp-node--constant" : "") });
      var label = el("svg:text", { x: (BOX_L + right) / 2, y: y + 5, "text-anchor": "middle", class: "xp-name" }, [node.name]);
      var value = el("svg:text", { x: at[data.sides.value], y: y + 5, "text-anchor": anchor[data.sides.value],
                                   class: "xp-value", "data-num": "value" });
      var grad = el("svg:text", { x: at[data.sides.grad], y: y + 5, "text-anchor": anchor[data.sides.grad],
                                  class: "xp-grad", "data-num": "grad" });
      svg.append(box, label, value, grad);
      var badge = null;
      if (node.order !== null) {
        badge = el("svg:g", { class: "xp-badge" }, [
          el("svg:circle", { cx: BADGE_X, cy: y, r: 10 }),
          el("svg:text", { x: BADGE_X, y: y + 4.5, "text-anchor": "middle" }, [node.order])]);
        svg.append(badge);
      }
      return { box: box, value: value, grad: grad, badge: badge };
    });

    /* the rule of the step, and culpa's code */
    var rule = el("div", { class: "xp-rule" });
    var say = el("p", { class: "xp-say", "aria-live": "polite" });
    var stage = el("div", { class: "xp-stage", tabindex: "0", role: "group",
                            "aria-label": t.label || "" }, [svg]);
    var panel = el("div", { class: "xp-panel" }, [stage, rule]);
    var inputs = yourNumbers();
    /* the home page's preview leads with its graph: there the reader's fields come after it */
    var ui = el("div", { class: "xp-ui" + (compact ? " xp-ui--compact" : "") },
                compact ? [bar, panel, say, inputs.form] : [inputs.form, bar, panel, say]);
    if (fallback) { fallback.hidden = true; fallback.after(ui); } else root.prepend(ui);
    if (!compact) X.caption(root, t, data.caption);  /* the home page's preview keeps its own caption */
    root.classList.add("xp-ready");

    /* ---- the reader's numbers (start.js's reader: the same form in every explorer) ---- */
    function yourNumbers() {
      var SUB = ["₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"];
      var fields = book.inputs.z.map(function (value, k) {
        return { name: "z" + k, label: fill(t.logit || "z{k}", { k: SUB[k] }), value: value[lang] };
      });
      fields.push({ name: "observed", label: t.observed || "class", value: book.inputs.observed,
                    choices: book.inputs.z.map(function (_, k) {
                      return { value: String(k), label: fill(t.classOption || "{k}", { k: String(k) }) };
                    }) });
      return X.reader(root, NAME, t, lang, book, {
        fields: fields,
        show: function (next) {
          steps.splice.apply(steps, [0, steps.length].concat(next.steps));
          nodes.splice.apply(nodes, [0, nodes.length].concat(next.nodes));
          ["result", "caption", "inputs", "p_minus_y"].forEach(function (k) { data[k] = next[k]; });
          state.announce = say.textContent !== "";  /* a step's sentence already shown is said with the new numbers */
          render();
        },
        bookValues: function () {
          var back = { observed: book.inputs.observed };
          book.inputs.z.forEach(function (v, k) { back["z" + k] = v[lang]; });
          return back;
        },
        bookShown: function () {
          var z = book.nodes.filter(function (n) { return n.name === "z"; })[0];
          return fill(t.bookShown || "", { z: z.value[lang], observed: book.inputs.observed });
        },
      });
    }

    function math(f, cls) { return X.formula(data, f, lang, null, cls); }
    function term(tm) {
      var child = nodes[tm.child];
      var head = el("p", { class: "xp-term__head" }, [fill(t.from || "{child}", { child: child.formula })]);
      var code = el("pre", { class: "xp-code", "aria-label": fill(t.code || "{section}", { section: tm.code.section }) });
      var inner = el("code");
      tm.code.lines.forEach(function (line, i) {
        var row = el(tm.code.highlight.indexOf(i) >= 0 ? "mark" : "span", { class: "xp-line" }, [line || " "]);
        inner.append(row);
      });
      code.append(inner);
      var where = el("p", { class: "xp-term__code" }, [el("code", {}, [tm.code.section])]);
      return el("div", { class: "xp-term" }, [head, math(tm.rule, "xp-term__sym"), math(tm.math), where, code]);
    }

    function announcement(step) {
      var node = nodes[step.node];
      var where = counter(step) + ". ";
      if (step.phase === "forward") return where + fill(t.sayForward, { formula: node.formula, value: step.value[lang] });
      if (step.seed) return where + fill(t.saySeed, { grad: step.grad[lang] });
      var terms = step.terms.map(function (tm) {
        return fill(t.sayTerm, { child: nodes[tm.child].name, downstream: tm.downstream[lang], local: tm.local[lang],
                                 product: tm.product[lang] });
      }).join(t.and || "; ");
      var text = where + fill(t.sayBackward, { node: node.name, terms: terms, grad: step.grad[lang] });
      return step === steps[steps.length - 1] ? text + " " + (t.sayEnd || "") : text;
    }

    function render() {
      var step = steps[state.step], node = nodes[step.node];
      var backIndex = steps.indexOf(steps.filter(function (s) { return s.phase === "backward"; })[0]);
      rows.forEach(function (row, id) {
        var forwardDone = steps.slice(0, state.step + 1).some(function (s) { return s.phase === "forward" && s.node === id; });
        var gradDone = steps.slice(backIndex, state.step + 1).some(function (s) { return s.phase === "backward" && s.node === id; });
        row.value.textContent = forwardDone ? nodes[id].value[lang] : "";
        row.grad.textContent = gradDone && state.step >= backIndex ? nodes[id].grad[lang] : "";
        row.box.classList.toggle("is-current", id === step.node);
        if (row.badge) {
          row.badge.classList.toggle("is-reached", gradDone && state.step >= backIndex);
          row.badge.classList.toggle("is-current", step.phase === "backward" && id === step.node);
        }
        row.box.classList.toggle("is-source", step.phase === "backward" && (step.terms || []).some(function (tm) { return tm.child === id; }));
      });
      Object.keys(edges).forEach(function (k) {
        var ids = k.split("-").map(Number);
        edges[k].classList.toggle("is-active", step.phase === "backward" ? ids[0] === step.node &&
          (step.terms || []).some(function (tm) { return tm.child === ids[1]; }) : ids[1] === step.node);
      });
      rule.replaceChildren();
      var title = el("p", { class: "xp-rule__title" });
      if (step.phase === "forward") {
        title.append(t.forwardTitle || "");
        rule.append(title, math(step.math));
      } else if (step.seed) {
        title.append(t.backwardTitle || "");
        rule.append(title, math(step.math));
        if (t.seedNote) rule.append(el("p", { class: "xp-note" }, [t.seedNote]));
      } else {
        title.append(fill(t.backwardAt || "{node}", { node: node.name }));
        rule.append(title);
        step.terms.forEach(function (tm) { rule.append(term(tm)); });
        if (step.terms.length > 1) rule.append(el("p", { class: "xp-note" }, [fill(t.twoNote || "", { node: node.name })]));
        rule.append(math(step.math, "xp-total"));
        if (state.step === steps.length - 1) {
          rule.append(math(data.result, "xp-result"));
          if (t.endNote) rule.append(el("p", { class: "xp-note" }, [t.endNote]));
        }
      }
      if (state.announce) say.textContent = announcement(step);
      controls.show();
    }

    render();
  }

  X.start(NAME, build);
})();
