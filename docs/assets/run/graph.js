/* Run in the page: the graph of a block's own code, drawn after it ran (issue #26).
 *
 * run.js loads this script (and graph.css) the first time a reader presses "Show the graph" under a block
 * that ran, and calls culpaGraph.open(options). Every number and sentence comes from culpa in the page's
 * Python (worker.js's "graph": sitebuild/explorers/code_graph.py, which sweeps the graph culpa.graph's
 * Recorder kept for the block, and writes it for the page's language); this script lays it out in the
 * worked-example explorer's visual language (a column of nodes, forward values on the left, gradients on
 * the right after the number of the backward step that reaches each), reveals it step by step and says
 * each step. Choosing a node (a click, or the up and down arrows) moves to its step and highlights the
 * line of the reader's code that made it (the CSS Custom Highlight API: the code is not touched).
 *
 * options: {box: where to draw, index: the block's index, file: the name its code ran under, names:
 *           [{name, scalar}], choice: a name, lang, S: the page's [graph] words (run-config), and run.js's
 *           ask(message) -> Promise of the worker's answer, code(file): the code element of the block that
 *           ran under that name}
 * One state object per graph, one render().
 */
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const HIGHLIGHT = "culpa-graph-line";
  const reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  const ICONS = { start: "M5 4h2.5v16H5zM19 4 9 12l10 8z", back: "M15.4 4 17 5.6 10.6 12l6.4 6.4-1.6 1.6-8-8z",
                  next: "M8.6 4 7 5.6l6.4 6.4L7 18.4 8.6 20l8-8z", end: "M16.5 4H19v16h-2.5zM5 4l10 8-10 8z",
                  play: "M8 4l12 8-12 8z", pause: "M6 4h4v16H6zM14 4h4v16h-4z" };
  const fill = (text, values) => (text || "").replace(/\{(\w+)\}/g, (_, k) => (k in values ? values[k] : ""));

  function el(tag, attrs, children) {
    const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const c of children || []) node.append(c);
    return node;
  }
  function icon(name) {
    return el("svg:svg", { viewBox: "0 0 24 24", width: "20", height: "20", "aria-hidden": "true", focusable: "false" },
              [el("svg:path", { d: ICONS[name], fill: "currentColor" })]);
  }

  // ---- the line of code a node came from ----------------------------------------------------------------

  // The DOM range of line `line` (from 1) of a block's code element: its text nodes in order, a <br> counting
  // as a line break (a lab cell edited in Chrome), Material's annotation markers left out.
  function lineRange(code, line) {
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT, {
      acceptNode: (node) => (node.nodeType === 1 && node.closest(".md-annotation") ? NodeFilter.FILTER_REJECT
        : NodeFilter.FILTER_ACCEPT),
    });
    let current = 1, start = null, last = null;
    const range = document.createRange();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === 1) {
        if (node.tagName === "BR") {
          if (current === line && start) { range.setEndBefore(node); return range; }
          current += 1;
        }
        continue;
      }
      const text = node.data;
      for (let i = 0; i <= text.length; i++) {
        if (current === line && !start && i < text.length && text[i] !== "\n") {
          start = true;
          range.setStart(node, i);
        }
        if (i < text.length && text[i] === "\n") {
          if (current === line && start) { range.setEnd(node, i); return range; }
          current += 1;
        }
      }
      last = node;
    }
    if (start && last) { range.setEnd(last, last.data.length); return range; }
    return null;
  }

  function highlight(range) {
    if (!window.CSS || !CSS.highlights || typeof Highlight !== "function") return;
    if (range) CSS.highlights.set(HIGHLIGHT, new Highlight(range));
    else CSS.highlights.delete(HIGHLIGHT);
  }

  // ---- one drawn graph ------------------------------------------------------------------------------

  const open = new Map(); // box -> its graph's close()

  function start(options) {
    const { box, S } = options;
    if (open.has(box)) return open.get(box).toggle();
    const state = { name: options.choice, data: null, words: {}, step: 0, playing: false, announce: false };
    let timer = null;
    const status = el("p", { class: "cg-status", role: "status" });
    const ui = el("div", { class: "cg-ui" });
    box.append(ui, status);
    const close = {
      toggle() {
        ui.hidden = !ui.hidden;
        if (ui.hidden) { stop(); highlight(null); } else if (state.data) render();
        return !ui.hidden;
      },
      close() { stop(); highlight(null); },
    };
    open.set(box, close);

    function stop() {
      if (timer) clearInterval(timer);
      timer = null;
      state.playing = false;
    }

    function load(name) {
      stop();
      state.name = name;
      status.textContent = S.loading || "…";
      const begun = performance.now();
      const giveUp = new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 60000));
      return Promise.race([options.ask({ type: "graph", block: options.file, name, lang: options.lang }), giveUp])
        .then((message) => {
          if (message.error) throw new Error(message.error.trim().split("\n").pop());
          const answer = JSON.parse(message.answer);
          state.words = answer.words;
          if (!answer.ok) {
            status.textContent = answer.problem;
            ui.replaceChildren();
            return;
          }
          const computed = performance.now();
          state.data = answer.graph;
          state.step = 0;
          state.announce = false;
          status.textContent = "";
          draw();
          // what it cost, for tests/bench/graph_benchmark.py (and a reader's devtools)
          if (performance.measure) {
            performance.measure("graph: " + answer.graph.size + " nodes", { start: begun, end: performance.now() });
            performance.measure("graph drawn: " + answer.graph.size + " nodes", { start: computed, end: performance.now() });
          }
          box.dataset.graphState = "ready";
        })
        .catch((error) => {
          status.textContent = fill(S.failed, { error: error.message });
          box.dataset.graphState = "failed";
        });
    }

    // ---- the layout: a column of nodes, parents first; values left, gradients right ----
    let parts = null; // what render() updates: {rows, edges, svg, rule, say, counter, buttons}

    function draw() {
      const t = state.words, data = state.data;
      const picker = el("div", { class: "cg-pick" });
      if (options.names.length > 1) {
        const id = "cg-pick-" + options.index;
        const select = el("select", { id });
        for (const n of options.names) {
          const option = el("option", { value: n.name }, [n.scalar ? fill(t.scalar, { name: n.name }) : n.name]);
          select.append(option);
        }
        select.value = state.name;
        select.addEventListener("change", () => load(select.value));
        picker.append(el("label", { for: id }, [t.pick]), select);
      }
      const notes = data.notes.map((text) => el("p", { class: "cg-note" }, [text]));
      notes.push(el("p", { class: "cg-note cg-note--how" }, [t.chooseNote]));
      const button = (key) => {
        const b = el("button", { type: "button", class: "cg-button", "aria-label": t[key], title: t[key] }, [icon(key)]);
        b.dataset.key = key;
        return b;
      };
      const buttons = { start: button("start"), back: button("back"), next: button("next"), end: button("end"), play: button("play") };
      buttons.play.setAttribute("aria-pressed", "false");
      const counter = el("span", { class: "cg-counter" });
      const bar = el("div", { class: "cg-bar", role: "group", "aria-label": t.controls }, [...Object.values(buttons), counter]);
      const stage = el("div", { class: "cg-stage", tabindex: "0", role: "group", "aria-label": fill(t.label, { name: data.name }) });
      const rule = el("div", { class: "cg-rule" });
      const say = el("p", { class: "cg-say", "aria-live": "polite" });
      const picking = document.activeElement && document.activeElement.tagName === "SELECT" && ui.contains(document.activeElement);
      ui.replaceChildren(picker, ...notes, bar, say, el("div", { class: "cg-panel" }, [stage, rule]));
      if (picking && picker.querySelector("select")) picker.querySelector("select").focus(); // not lost to the page
      parts = { stage, rule, say, counter, buttons };
      layout();
      const act = { start: () => go(0), back: () => go(state.step - 1), next: () => go(state.step + 1),
                    end: () => go(data.steps.length - 1) };
      for (const [key, b] of Object.entries(buttons)) {
        b.addEventListener("click", () => {
          if (key === "play") return toggle();
          if (b.getAttribute("aria-disabled") !== "true") act[key]();
        });
      }
      ui.onkeydown = (event) => {
        if (event.altKey || event.ctrlKey || event.metaKey || event.target.tagName === "SELECT") return;
        const keys = { ArrowRight: state.step + 1, ArrowLeft: state.step - 1, Home: 0, End: data.steps.length - 1 };
        if (event.key in keys) { event.preventDefault(); go(keys[event.key]); }
        else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
          event.preventDefault();
          const node = data.steps[state.step].node + (event.key === "ArrowDown" ? 1 : -1);
          if (node >= 0 && node < data.nodes.length) choose(node);
        }
      };
      render();
    }

    function layout() {
      const data = state.data, t = state.words;
      const width = Math.max(300, Math.min(620, parts.stage.clientWidth || 340));
      const boxW = width < 420 ? 124 : 160, gutter = 30, badge = 30;
      const side = Math.floor((width - boxW - gutter - badge) / 2);
      const valueX = side, boxL = side + gutter, boxR = boxL + boxW, badgeX = boxR + 14, gradX = boxR + badge;
      const ROW = 48, TOP = 28, n = data.nodes.length;
      const cy = (id) => TOP + ROW * id + ROW / 2;
      const svg = el("svg:svg", { class: "cg-graph", width, height: TOP + ROW * n + 4,
                                  viewBox: `0 0 ${width} ${TOP + ROW * n + 4}`, "aria-hidden": "true" });
      const marker = "cg-arrow-" + options.index;
      svg.append(el("svg:defs", {}, [el("svg:marker", { id: marker, viewBox: "0 0 10 10", refX: "9", refY: "5",
        markerWidth: "7", markerHeight: "7", markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" },
      [el("svg:path", { d: "M0 0 L10 5 L0 10 z", class: "cg-arrowhead" })])]));
      svg.append(el("svg:text", { x: 2, y: 16, "text-anchor": "start", class: "cg-head" }, [t.valueHead]));
      svg.append(el("svg:text", { x: width - 2, y: 16, "text-anchor": "end", class: "cg-head cg-head--back" },
                    [fill(t.gradHead, { root: data.name })]));
      const fits = (text, room) => text.length * 7.2 <= room;
      const edges = {};
      for (const node of data.nodes) {
        for (const parent of node.parents) {
          let d;
          const mid = boxL + boxW / 2;
          if (parent === node.id - 1) d = `M${mid} ${cy(parent) + 17} L${mid} ${cy(node.id) - 18}`;
          else {
            const up = parent < node.id;
            const span = Math.abs(node.id - parent);
            const bulge = Math.min(gutter - 3, 8 + 5 * Math.log2(span));
            const y0 = cy(parent) + (up ? 6 : -6), y1 = cy(node.id) + (up ? -6 : 6);
            d = `M${boxL} ${y0} C${boxL - bulge} ${y0} ${boxL - bulge} ${y1} ${boxL - 2} ${y1}`;
          }
          const path = el("svg:path", { d, class: "cg-edge", "marker-end": `url(#${marker})` });
          edges[parent + "-" + node.id] = path;
          svg.append(path);
        }
      }
      const rows = data.nodes.map((node) => {
        const y = cy(node.id);
        const g = el("svg:g", { class: "cg-node" + (node.constant ? " cg-node--constant" : "") + (node.count > 1 ? " cg-node--group" : ""),
                                "data-node": node.id });
        const rect = el("svg:rect", { x: boxL, y: y - 18, width: boxW, height: 36, rx: 6, class: "cg-box" });
        const label = el("svg:text", { x: boxL + boxW / 2, y: y - 2, "text-anchor": "middle", class: "cg-label" }, [node.label]);
        const sub = el("svg:text", { x: boxL + boxW / 2, y: y + 12, "text-anchor": "middle", class: "cg-sub" }, [node.sub]);
        g.append(rect, label, sub);
        g.addEventListener("click", () => choose(node.id));
        const value = el("svg:text", { x: valueX, y: y + 4, "text-anchor": "end", class: "cg-value", "data-num": "value" });
        const grad = el("svg:text", { x: gradX, y: y + 4, "text-anchor": "start", class: "cg-grad", "data-num": "grad" });
        svg.append(g, value, grad);
        let badgeNode = null;
        if (node.order !== null) {
          badgeNode = el("svg:g", { class: "cg-badge" }, [el("svg:circle", { cx: badgeX, cy: y, r: 10 }),
            el("svg:text", { x: badgeX, y: y + 4, "text-anchor": "middle" }, [String(node.order)])]);
          svg.append(badgeNode);
        }
        const pick = (pair) => (pair ? (fits(pair.wide, side - 4) ? pair.wide : pair.brief) : "");
        return { g, rect, label, sub, value, grad, badge: badgeNode, valueText: pick(node.value), gradText: pick(node.grad) };
      });
      // a label or its line wider than its box is squeezed into it, never cut (all measured first: a change
      // between two measures would lay the page out again for each)
      parts.stage.replaceChildren(svg);
      const texts = rows.flatMap((row) => [row.label, row.sub]);
      const wide = texts.filter((text) => text.getComputedTextLength && text.getComputedTextLength() > boxW - 10);
      for (const text of wide) {
        text.setAttribute("textLength", boxW - 10);
        text.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
      parts.rows = rows;
      parts.edges = edges;
      parts.width = width;
    }

    function go(index, fromPlay, chosen) {
      const steps = state.data.steps;
      state.step = Math.max(0, Math.min(steps.length - 1, index));
      state.announce = true;
      state.chosen = Boolean(chosen);
      if (!fromPlay) stop();
      render();
    }

    // a node chosen: its step in the phase shown (its forward step if backward never reaches it)
    function choose(id) {
      const steps = state.data.steps, phase = steps[state.step].phase;
      let k = steps.findIndex((s) => s.node === id && s.phase === phase);
      if (k < 0) k = steps.findIndex((s) => s.node === id);
      if (k >= 0) go(k, false, true);
    }

    function toggle() {
      const steps = state.data.steps;
      if (state.playing || reduceMotion.matches) { stop(); render(); return; }
      state.playing = true;
      if (state.step === steps.length - 1) state.step = 0;
      timer = setInterval(() => {
        if (state.step >= steps.length - 1) { stop(); render(); return; }
        go(state.step + 1, true);
      }, 1400);
      render();
    }

    function render() {
      const data = state.data, t = state.words, steps = data.steps, step = steps[state.step];
      const backIndex = steps.findIndex((s) => s.phase === "backward");
      const seen = steps.slice(0, state.step + 1);
      const valued = new Set(seen.filter((s) => s.phase === "forward").map((s) => s.node));
      const graded = new Set(seen.filter((s) => s.phase === "backward").map((s) => s.node));
      if (backIndex >= 0 && state.step >= backIndex) data.nodes.forEach((n) => valued.add(n.id));
      const terms = step.phase === "backward" ? step.terms : [];
      parts.rows.forEach((row, id) => {
        row.value.textContent = valued.has(id) ? row.valueText : "";
        row.grad.textContent = graded.has(id) ? row.gradText : "";
        row.rect.classList.toggle("is-current", id === step.node);
        row.rect.classList.toggle("is-source", terms.includes(id));
        if (row.badge) {
          row.badge.classList.toggle("is-reached", graded.has(id));
          row.badge.classList.toggle("is-current", step.phase === "backward" && id === step.node);
        }
      });
      for (const [k, path] of Object.entries(parts.edges)) {
        const [from, to] = k.split("-").map(Number);
        path.classList.toggle("is-active", step.phase === "backward" ? from === step.node && terms.includes(to)
          : to === step.node);
      }
      // the rule of the step
      const rule = parts.rule;
      rule.replaceChildren();
      for (const item of step.panel) {
        if (item.kind === "title") rule.append(el("p", { class: "cg-rule__title" }, [item.text]));
        else if (item.kind === "code") {
          rule.append(el("p", { class: "cg-where" }, [item.where]),
                      el("pre", { class: "cg-code" }, [el("code", {}, [item.text])]));
        } else if (item.kind === "note") rule.append(el("p", { class: "cg-note" }, [item.text]));
        else if (item.kind === "math") rule.append(el("p", { class: "cg-math" }, [item.text]));
        else if (item.kind === "total") rule.append(el("p", { class: "cg-math cg-total" }, [item.text]));
        else if (item.kind === "term") {
          rule.append(el("div", { class: "cg-term" }, [
            el("p", { class: "cg-term__head" }, [item.head]),
            el("p", { class: "cg-math" }, [item.rule]),
            el("p", { class: "cg-math cg-given" }, [item.given]),
            el("p", { class: "cg-math cg-calc" }, [item.calc])]));
        }
      }
      // the line of code the current node came from
      const node = data.nodes[step.node];
      const where = node.where;
      let range = null;
      if (where.line) {
        const code = options.code(where.file);
        range = code ? lineRange(code, where.line) : null;
      }
      highlight(range);
      box.dataset.graphLine = where.line ? `${where.file}:${where.line}` : "";
      if (state.announce) {
        parts.say.textContent = state.chosen && where.line
          ? step.say + " " + fill(t.chosen, { label: node.label, where: where.text, code: where.code })
          : step.say;
      }
      // the controls
      const p = parts.buttons;
      parts.counter.textContent = step.counter;
      const atStart = String(state.step === 0), atEnd = String(state.step === steps.length - 1);
      for (const b of [p.start, p.back]) b.setAttribute("aria-disabled", atStart);
      for (const b of [p.next, p.end]) b.setAttribute("aria-disabled", atEnd);
      p.play.hidden = reduceMotion.matches;
      p.play.setAttribute("aria-pressed", String(state.playing));
      p.play.setAttribute("aria-label", state.playing ? t.pause : t.play);
      p.play.title = state.playing ? t.pause : t.play;
      p.play.replaceChildren(icon(state.playing ? "pause" : "play"));
      box.dataset.step = String(state.step + 1);
      box.dataset.node = String(step.node);
    }

    reduceMotion.addEventListener("change", () => { stop(); if (state.data) render(); });
    if ("ResizeObserver" in window) {
      let width = 0;
      new ResizeObserver(() => {
        if (!state.data || !parts) return;
        const now = Math.max(300, Math.min(620, parts.stage.clientWidth || 340));
        if (now !== width && now !== parts.width) { width = now; layout(); render(); }
      }).observe(box);
    }
    load(options.choice);
    return true;
  }

  window.culpaGraph = {
    open: start,
    close(box) {
      const graph = open.get(box);
      if (graph) graph.close();
      open.delete(box);
    },
  };
})();
