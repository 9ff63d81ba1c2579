/* The blame explorer (page 04): forward stores each layer's activations, backward carries δ layer by layer
   toward the input, and a picked weight shows its slope, δ × the input it multiplied. Once backward has
   reached a layer, every edge into it shows its weight's slope: its colour the sign, its width the size
   (data.edges, written by the exporter as page 04's figure draws them).

   Every number comes from data/blame.json, computed by culpa at build time (snippets/sitebuild/explorers/blame.py)
   and written for both languages; this script lays the network out, reveals and announces. Every word
   comes from the page (the root's data-t-* attributes). One state object, one render(state).

   The reader's numbers: the input x and the activation (sigmoid, tanh, ReLU), in fields above the network
   (start.js's reader, as the worked example's): culpa computes the whole explorer again in this page with
   them (the same exporter, page 04's own code, in Pyodide), and the size of δ under each layer shows how much
   blame survives the way back. "Back to the book's numbers" puts the build's data back. */
(function () {
  "use strict";
  var NAME = "blame";
  var X = window.culpaExplorers;  /* assets/explorers/start.js: the helpers every explorer builds with */
  var el = X.el, fill = X.fill, language = X.language, strings = X.strings;

  function build(root, data) {
    var lang = language(root), t = strings(root);
    var book = data;  /* the build's data; data becomes the reader's when culpa computes theirs */
    data = Object.assign({}, book, { steps: book.steps.slice(), layers: book.layers.slice() });
    var steps = data.steps, layers = data.layers;  /* replaced in place: the controls and the drawing keep them */
    var depth = layers.length - 1;
    var state = { step: 0, weight: data.knob.slice(), playing: false, announce: false, said: "step" };
    var figure = root.querySelector("figure");
    var fallback = figure ? figure.querySelector("img, picture, p") : null;

    var controls = X.stepper(root, t, steps, state, render, {
      every: 1800,
      onStep: function () { state.said = "step"; },
      ownKeys: function (event) { return event.target === select; },  /* the list's own arrow keys pick a weight */
    });
    var bar = controls.bar;

    /* the network: one column per layer, the input on the side data.sides.input says (left), a circle per unit
       with its activation, its δ under it (rows far enough apart that a δ never touches the next circle) */
    var W = 400, NET_H = 430, H = NET_H + 24, R = 26, X0 = 36, DX = (W - 2 * X0) / depth;
    var ux0 = function (l) { return X0 + DX * l; };
    var ux = data.sides.input === "left" ? ux0 : function (l) { return ux0(depth - l); };
    var svg = el("svg:svg", { viewBox: "0 0 " + W + " " + H, class: "xp-net", role: "img", "aria-label": t.graph || "" });
    var uy = function (l, i) { var n = layers[l].size; return 40 + (NET_H - 70) * (i + 0.5) / n; };
    var wires = {};
    for (var l = 1; l <= depth; l++) {
      for (var i = 0; i < layers[l].size; i++) {
        for (var j = 0; j < layers[l - 1].size; j++) {
          var side = data.sides.input === "left" ? R : -R;
          var wire = el("svg:line", { x1: ux(l - 1) + side, y1: uy(l - 1, j), x2: ux(l) - side, y2: uy(l, i), class: "xp-wire" });
          wires[l + "-" + i + "-" + j] = wire;
          svg.append(wire);
        }
      }
    }
    var picked = el("svg:line", { class: "xp-wire-picked" });  /* the picked weight, drawn over its edge */
    svg.append(picked);
    var units = layers.map(function (layer, l) {
      svg.append(el("svg:text", { x: ux(l), y: 16, "text-anchor": "middle", class: "xp-layer" }, [data.layer_names[l]]));
      var list = [];
      for (var i = 0; i < layer.size; i++) {
        var circle = el("svg:circle", { cx: ux(l), cy: uy(l, i), r: R, class: "xp-unit" });
        var act = el("svg:text", { x: ux(l), y: uy(l, i) + 3.5, "text-anchor": "middle", class: "xp-act", "data-num": "a" });
        var delta = el("svg:text", { x: ux(l), y: uy(l, i) + R + 12, "text-anchor": "middle", class: "xp-delta", "data-num": "delta" });
        svg.append(circle, act, delta);
        list.push({ circle: circle, act: act, delta: delta });
      }
      /* under the layer, once backward reaches it: the size of its δ, how much blame is left there */
      list.size = null;
      if (l >= 1) {
        list.size = el("svg:tspan", { "data-num": "delta_size" });
        list.sizeRow = el("svg:text", { x: ux(l), y: H - 8, "text-anchor": "middle", class: "xp-size" },
                          [el("svg:tspan", {}, [fill(t.size || "|δ| = ", { layer: data.z_names[l] })]), list.size]);
        svg.append(list.sizeRow);
      }
      return list;
    });

    /* the rule of the step, the weight picker and its slope */
    var rule = el("div", { class: "xp-rule" });
    var select = el("select", { id: "xp-" + NAME + "-pick" });
    Object.keys(data.weight_names).forEach(function (layer) {
      var group = el("optgroup", { label: data.weight_names[layer][0][0].split("[")[0] });
      data.weight_names[layer].forEach(function (row, i) {
        row.forEach(function (name, j) {
          group.append(el("option", { value: layer + "," + i + "," + j }, [name]));
        });
      });
      select.append(group);
    });
    var pick = el("div", { class: "xp-pick" }, [el("label", { for: select.id }, [t.pick || ""]), select]);
    var slope = el("div", { class: "xp-slope" });
    var say = el("p", { class: "xp-say", "aria-live": "polite" });
    var swatch = function (sign) { return el("span", { class: "xp-swatch xp-swatch--" + sign, "aria-hidden": "true" }); };
    var key = function (sign, word) { return el("span", { class: "xp-key" }, [swatch(sign), " ", word || ""]); };
    var legend = el("p", { class: "xp-legend" }, [t.legend || "", " ", key("neg", t.legendNegative), " ",
                                                  key("pos", t.legendPositive), "; ", t.legendWidth || ""]);
    var stage = el("div", { class: "xp-stage", tabindex: "0", role: "group", "aria-label": t.label || "" }, [svg, legend]);
    var side = el("div", { class: "xp-rule" }, [rule, pick, slope]);
    var inputs = yourNumbers();
    var ui = el("div", { class: "xp-ui" }, [inputs.form, bar, el("div", { class: "xp-panel" }, [stage, side]), say]);
    if (fallback) { fallback.hidden = true; fallback.after(ui); } else root.prepend(ui);
    X.caption(root, t, {});
    root.classList.add("xp-ready");

    /* ---- the reader's numbers (start.js's reader: the same form in every explorer) ---- */
    function yourNumbers() {
      var SUB = ["₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"];
      var fields = book.inputs.x.map(function (value, k) {
        return { name: "x" + k, label: fill(t.input || "x{k}", { k: SUB[k] }), value: value[lang] };
      });
      var named = { sigmoid: t.activationSigmoid, tanh: t.activationTanh, relu: t.activationRelu };
      fields.push({ name: "activation", label: t.activation || "activation", value: book.inputs.activation,
                    choices: book.activations.map(function (a) { return { value: a, label: named[a] || a }; }) });
      return X.reader(root, NAME, t, lang, book, {
        fields: fields,
        show: function (next) {
          steps.splice.apply(steps, [0, steps.length].concat(next.steps));
          layers.splice.apply(layers, [0, layers.length].concat(next.layers));
          Object.keys(next).forEach(function (k) { if (k !== "steps" && k !== "layers") data[k] = next[k]; });
          state.announce = say.textContent !== "";  /* a step's sentence already shown is said with the new numbers */
          state.said = "step";
          render();
        },
        bookValues: function () {
          var back = { activation: book.inputs.activation };
          book.inputs.x.forEach(function (v, k) { back["x" + k] = v[lang]; });
          return back;
        },
        bookShown: function () {
          return fill(t.bookShown || "", { x: book.layers[0].a.map(function (v) { return v[lang]; }).join(t.sep || ", "),
                                           activation: named[book.inputs.activation] || book.inputs.activation });
        },
      });
    }

    function math(f, values, cls) { return X.formula(data, f, lang, values, cls); }
    function reached(layer) { /* has backward computed δ of this layer by the current step? */
      return steps.slice(0, state.step + 1).some(function (s) { return s.phase === "backward" && s.layer === layer; });
    }
    function slopeText() {
      var w = state.weight, l = w[0], i = w[1], j = w[2];
      return { _i: i, _j: j, weight: data.weight_names[l][i][j], delta: layers[l].delta[i][lang],
               input: layers[l - 1].a[j][lang], slope: data.weights[l][i][j][lang], layer: data.layer_names[l - 1] };
    }
    function announcement(step) {
      var where = fill(t.step, { n: step.n, total: step.total }) + ". ";
      if (step.phase === "forward") {
        return where + fill(t.sayForward, { layer: data.layer_names[step.layer],
          values: layers[step.layer].a.map(function (v) { return v[lang]; }).join(t.sep || ", ") });
      }
      if (step.phase === "loss") return where + fill(t.sayLoss, { loss: step.loss[lang], p: step.p[lang], y: step.y[lang] });
      var layer = layers[step.layer];
      if (step.layer === depth) return where + fill(t.sayOutput, { delta: layer.delta_all[lang], size: layer.delta_size[lang] });
      return where + fill(t.sayBackward, { layer: data.z_names[step.layer], message: layer.message[lang],
                                           derivative: data.derivative, slope: layer.slope[lang],
                                           delta: layer.delta_all[lang], size: layer.delta_size[lang] });
    }

    function render() {
      var step = steps[state.step], w = state.weight;
      var shownForward = steps.slice(0, state.step + 1).filter(function (s) { return s.phase === "forward"; })
                                .map(function (s) { return s.layer; });
      units.forEach(function (list, l) {
        list.forEach(function (u, i) {
          u.act.textContent = shownForward.indexOf(l) >= 0 ? layers[l].a[i][lang] : "";
          u.delta.textContent = l >= 1 && reached(l) ? layers[l].delta[i][lang] : "";
          u.circle.classList.toggle("is-lit", step.phase === "forward" && step.layer === l);
          u.circle.classList.toggle("is-blamed", step.phase === "backward" && step.layer === l);
        });
        if (list.size) {
          list.size.textContent = reached(l) ? layers[l].delta_size[lang] : "";
          list.sizeRow.style.display = reached(l) ? "" : "none";
        }
      });
      Object.keys(wires).forEach(function (k) {
        var parts = k.split("-").map(Number), wire = wires[k], look = data.edges[parts[0]][parts[1]][parts[2]];
        var sloped = reached(parts[0]);
        wire.classList.toggle("is-lit", step.phase === "forward" && step.layer === parts[0]);
        ["neg", "pos", "zero"].forEach(function (sign) { wire.classList.toggle("is-" + sign, sloped && look.sign === sign); });
        if (sloped) wire.style.strokeWidth = look.width; else wire.style.removeProperty("stroke-width");
        if (parts[0] === w[0] && parts[1] === w[1] && parts[2] === w[2]) {
          ["x1", "y1", "x2", "y2"].forEach(function (a) { picked.setAttribute(a, wire.getAttribute(a)); });
        }
      });
      rule.replaceChildren();
      var title = el("p", { class: "xp-rule__title" });
      rule.append(title);
      if (step.phase === "forward") {
        title.append(step.layer === 0 ? t.inputTitle : step.layer === depth ? t.outputTitle : fill(t.forwardTitle, { layer: data.layer_names[step.layer] }));
        rule.append(math(step.math));
        if (t.guideNote) rule.append(el("p", { class: "xp-note" }, [t.guideNote]));
      } else if (step.phase === "loss") {
        title.append(t.lossTitle || "");
        rule.append(math(step.math), math(step.loss_math));
      } else {
        title.append(fill(t.backwardTitle, { layer: data.z_names[step.layer] }));
        if (step.rule) rule.append(math(step.rule, null, "xp-term__sym"));
        rule.append(math(step.math));
      }
      select.value = w.join(",");
      var s = slopeText();
      if (reached(w[0])) {
        slope.replaceChildren(math(data.picks[w[0]], s, "xp-total"));
      } else {
        slope.replaceChildren(el("p", {}, [fill(t.pickWait, { weight: s.weight })]));
      }
      if (state.announce) {
        say.textContent = state.said === "pick"
          ? (reached(w[0]) ? fill(t.sayPick, s) : fill(t.pickWait, s))
          : announcement(step);
      }
      controls.show();
    }

    select.addEventListener("change", function () {
      state.weight = select.value.split(",").map(Number);
      state.announce = true;
      state.said = "pick";
      render();
      X.changed(root);
    });
    /* the picked weight, for a link and the browser to keep (start.js's keep); an unknown one is not picked */
    X.keep(root, "view", {
      get: function () { return state.weight.join(",") === data.knob.join(",") ? null : { weight: state.weight.join(",") }; },
      set: function (kept) {
        var weight = kept && typeof kept.weight === "string" ? kept.weight : data.knob.join(",");
        if (!select.querySelector('option[value="' + weight.replace(/[^0-9,]/g, "") + '"]')) return;
        state.weight = weight.split(",").map(Number);
        render();
      },
    });
    render();
  }

  X.start(NAME, build);
})();
