/* What the reader made, kept: a link that carries it, and this browser keeping it across reloads.

   Loaded by run.js only when there is something to keep or restore (sitebuild/steps/keep.py says when); the
   page's bar (Copy link, Reset page, a status line) is in its HTML. Its words, both languages, come from
   keep-words.json beside this file.

   What is kept: each edited block's code with the hash of the page's code it was edited from (run-config's
   `hash`, stamped by the build), and each explorer's state (assets/explorers/start.js: culpaExplorers.state:
   the reader's fields as typed, the step, what it picks). Never a number computed here: an explorer's fields
   go back to culpa in the page (Pyodide), as the reader's own.

   - In this browser: localStorage["culpa-keep:" + the page's path], {v, blocks: {K: {code, hash}},
     explorers: {I: {name, state}}}, written at every change, read at load. A block whose page code changed
     since (its hash differs) is not put back: the block asks the reader (keep my edit / take the new code).
   - In a link: the page's address with #culpa:1z.<base64url of the deflate-raw'd JSON> (1j.: plain JSON,
     for a browser without CompressionStream), {v, b: [[K, hash, code]], x: [[I, name, state]]}, in the
     fragment, which no server sees. A heading's #id never starts with "culpa:", so Material's anchors
     keep working. Opened, the link is read whole before anything changes: too long, cut, of another
     version, or naming a block or an explorer the page does not have, it changes nothing and says why.
     Otherwise its code goes into the blocks' editors and is never run (a notice under each block says so),
     its explorers' states wait for each explorer to start, everything is kept as the reader's own, and the
     fragment leaves the address (a reload then restores from this browser, with the reader's later edits).
   - Reset page: every block back to the page's code, every explorer to the book's numbers and its start,
     nothing of the page left in this browser.
   Nothing here sends anything anywhere: the only requests are this file and its words, from the site. */
(function () {
  "use strict";
  var PREFIX = "#culpa:";
  var VERSION = 1;
  var MAX_LINK = 8000;  /* characters of the fragment: what mail and chat programs carry whole */
  var MAX_JSON = 1 << 20;  /* bytes a link may unpack to */
  var KEY = "culpa-keep:" + location.pathname;
  var bar = document.querySelector("[data-keep]");
  if (!bar || window.culpaKeep) return;
  var status = bar.querySelector(".keep-status");
  var copyButton = bar.querySelector("[data-keep-copy]"), resetButton = bar.querySelector("[data-keep-reset]");
  var lang = (document.documentElement.getAttribute("lang") || "en").slice(0, 2) === "pt" ? "pt" : "en";
  var roots = Array.prototype.slice.call(document.querySelectorAll("[data-explorer]"));
  var waiting = {};  /* explorer index -> state to restore once it starts */
  var W = {};  /* the words of the page's language */
  var storageRefused = false;

  var fill = function (text, values) { return (text || "").replace(/\{(\w+)\}/g, function (_, k) { return k in values ? values[k] : ""; }); };
  var run = function () { return window.culpaRun; };  /* run.js's hook; absent on a page without runnable blocks */
  function say(text) {  /* the bar's status line (role=status): shown, and read by a screen reader */
    status.textContent = "";
    setTimeout(function () { status.textContent = text; }, 50);
  }
  function list(numbers) { return numbers.map(function (k) { return String(k + 1); }).join(", "); }
  function blockInfo(k) {
    var found = run() ? run().blocks().filter(function (b) { return b.index === k; }) : [];
    return found[0] || null;
  }

  /* ---- this browser ---- */
  function empty() { return { v: VERSION, blocks: {}, explorers: {} }; }
  function read() {
    try {
      var kept = JSON.parse(localStorage.getItem(KEY) || "null");
      if (!kept || kept.v !== VERSION || typeof kept.blocks !== "object" || typeof kept.explorers !== "object") return empty();
      return kept;
    } catch (error) {
      return empty();
    }
  }
  function write(kept) {
    try {
      if (!Object.keys(kept.blocks).length && !Object.keys(kept.explorers).length) localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, JSON.stringify(kept));
    } catch (error) {
      if (!storageRefused) say(W.noStorage);
      storageRefused = true;
    }
    showReset();
  }
  function anything(kept) {
    return Object.keys(kept.blocks).length || Object.keys(kept.explorers).length ||
      (run() && run().blocks().some(function (b) { return b.edited; }));
  }
  function showReset() { resetButton.setAttribute("aria-disabled", String(!anything(read()))); }

  function keepBlock(k) {  /* the block's code as it stands: kept if it is not the page's */
    var info = blockInfo(k);
    if (!info) return;
    var kept = read(), code = info.edited ? run().code(k) : null;
    if (code !== null && code !== info.page) kept.blocks[k] = { code: code, hash: info.hash };
    else delete kept.blocks[k];
    if (!info.edited) forget(k);
    write(kept);
  }
  function keepExplorer(i) {
    var root = roots[i];
    if (!root || root.dataset.keepRestoring || root.dataset.xpState !== "ready") return;
    var kept = read(), state = explorerState(root);
    if (Object.keys(state).length) kept.explorers[i] = { name: root.dataset.explorer, state: state };
    else delete kept.explorers[i];
    write(kept);
  }

  /* An explorer's state: its parts (assets/explorers/start.js's keep: "fields", "step", "view"), those away
     from the book's start. Restored: the view, then the fields (culpa computes them in this page, as the
     reader's own), then the view and the step again, over what the new numbers reset. */
  function explorerState(root) {
    var parts = root.xpKeep || {}, out = {};
    Object.keys(parts).sort().forEach(function (k) { var v = parts[k].get(); if (v !== null) out[k] = v; });
    return out;
  }
  function restoreState(root, kept) {
    var parts = root.xpKeep || {};
    function put(k) { return parts[k] ? parts[k].set(k in kept ? kept[k] : null) : null; }
    put("view");
    return Promise.resolve(put("fields")).then(function () {
      put("view");
      put("step");
      window.culpaExplorers.changed(root);
    });
  }

  /* ---- putting it back ---- */
  function runBar(k) { return document.querySelector('[data-run-bar="' + k + '"]'); }
  function forget(k) {  /* a block's notice and question go when it is the page's code again */
    var bar = runBar(k);
    if (bar) bar.querySelectorAll("[data-keep-note]").forEach(function (node) { node.remove(); });
  }
  function note(k, text, children) {
    var box = document.createElement(children ? "div" : "p");
    box.className = "keep-note";
    box.setAttribute("data-keep-note", "");
    var words = document.createElement(children ? "p" : "span");
    words.textContent = text;
    box.append(words);
    (children || []).forEach(function (c) { box.append(c); });
    runBar(k).append(box);
    return box;
  }
  function button(label, action) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "md-button keep-button";
    b.textContent = label;
    b.addEventListener("click", action);
    return b;
  }
  function ask(k) {  /* the page's code changed since the edit: the reader chooses */
    var mine = button(W.keepMine, function () { choose(k, true); });
    var fresh = button(W.takeNew, function () { choose(k, false); });
    var box = note(k, W.changed, [mine, fresh]);
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", W.changed);
    box.setAttribute("data-keep-changed", String(k));
  }
  function choose(k, mine) {
    var kept = read(), edit = kept.blocks[k], info = blockInfo(k);
    forget(k);
    if (mine && edit && info) {
      run().put(k, edit.code);
      kept.blocks[k] = { code: edit.code, hash: info.hash };  /* now an edit of the page's new code */
    } else {
      delete kept.blocks[k];
    }
    write(kept);
    var runButton = runBar(k) && runBar(k).querySelector('[data-run="run"]');
    if (runButton) runButton.focus();  /* the question is gone: the focus goes to the block's Run */
    say(fill(mine ? W.keptMine : W.tookNew, { n: k + 1 }));
  }

  function restoreExplorer(i) {
    var root = roots[i], state = waiting[i];
    if (!state || root.dataset.xpState !== "ready") return;
    delete waiting[i];
    root.dataset.keepRestoring = "1";
    restoreState(root, state).catch(function (error) { console.error("keep: " + error.message); }).then(function () {
      delete root.dataset.keepRestoring;
      keepExplorer(i);
    });
  }

  /* Everything kept for this page, put back; `linked`: the blocks a link just brought. Returns what it said. */
  function restore(kept, linked) {
    var put = [], changed = [];
    Object.keys(kept.blocks).map(Number).sort(function (a, b) { return a - b; }).forEach(function (k) {
      var edit = kept.blocks[k], info = blockInfo(k);
      if (!info || typeof edit.code !== "string") { delete kept.blocks[k]; return; }
      forget(k);
      if (edit.hash !== info.hash) { changed.push(k); ask(k); }
      else { run().put(k, edit.code); put.push(k); }
      if (linked.indexOf(k) >= 0) note(k, W.linkNote);
    });
    Object.keys(kept.explorers).map(Number).forEach(function (i) {
      var entry = kept.explorers[i];
      if (!roots[i] || roots[i].dataset.explorer !== entry.name) { delete kept.explorers[i]; return; }
      waiting[i] = entry.state;
      if (window.culpaExplorers) window.culpaExplorers.wake(roots[i]);  /* the home preview waits for a touch */
      restoreExplorer(i);
    });
    write(kept);
    return { blocks: put.concat(changed).sort(function (a, b) { return a - b; }), changed: changed,
             explorers: Object.keys(kept.explorers).length };
  }
  function what(blocks, explorers) {
    var parts = [];
    if (blocks.length) parts.push(fill(blocks.length > 1 ? W.whatBlocks : W.whatBlock, { blocks: list(blocks) }));
    if (explorers) parts.push(fill(explorers > 1 ? W.whatExplorers : W.whatExplorer, { count: explorers }));
    return parts.join(W.and);
  }

  /* ---- the link ---- */
  function base64url(bytes) {
    var text = "";
    for (var i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function unbase64url(text) {
    var binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  function through(bytes, stream) {  /* bytes through a (de)compression stream, at most MAX_JSON of them out */
    var reader = new Blob([bytes]).stream().pipeThrough(stream).getReader(), chunks = [], size = 0;
    function pump() {
      return reader.read().then(function (r) {
        if (r.done) return;
        size += r.value.length;
        if (size > MAX_JSON) { reader.cancel(); throw new Error("too big"); }
        chunks.push(r.value);
        return pump();
      });
    }
    return pump().then(function () {
      var out = new Uint8Array(size), at = 0;
      chunks.forEach(function (c) { out.set(c, at); at += c.length; });
      return out;
    });
  }
  function encode(payload) {
    var bytes = new TextEncoder().encode(JSON.stringify(payload));
    if (typeof CompressionStream === "undefined") return Promise.resolve(PREFIX + VERSION + "j." + base64url(bytes));
    return through(bytes, new CompressionStream("deflate-raw")).then(function (z) { return PREFIX + VERSION + "z." + base64url(z); });
  }
  function Refused(key, values) { this.key = key; this.values = values || {}; }
  /* The link's payload, checked whole against this page, or a Refused naming why. */
  function decode(fragment) {
    return Promise.resolve().then(function () {
      if (fragment.length > MAX_LINK) throw new Refused("whyLength", { chars: fragment.length.toLocaleString(lang), limit: MAX_LINK.toLocaleString(lang) });
      var m = /^#culpa:(\d+)([zj])\.([A-Za-z0-9_-]+)$/.exec(fragment);
      if (!m) throw new Refused("whyEncoding");
      if (Number(m[1]) !== VERSION) throw new Refused("whyVersion", { version: m[1], expected: VERSION });
      var bytes;
      try { bytes = unbase64url(m[3]); } catch (error) { throw new Refused("whyEncoding"); }
      if (m[2] === "j") return bytes;
      if (typeof DecompressionStream === "undefined") throw new Refused("whyBrowser");
      return through(bytes, new DecompressionStream("deflate-raw")).catch(function () { throw new Refused("whyEncoding"); });
    }).then(function (bytes) {
      var payload;
      try { payload = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)); } catch (error) { throw new Refused("whyEncoding"); }
      if (!payload || typeof payload !== "object" || payload.v !== VERSION) throw new Refused("whyEncoding");
      var b = payload.b || [], x = payload.x || [];
      if (!Array.isArray(b) || !Array.isArray(x)) throw new Refused("whyEncoding");
      b.forEach(function (entry) {
        if (!Array.isArray(entry) || entry.length !== 3 || typeof entry[1] !== "string" || typeof entry[2] !== "string" ||
            !Number.isInteger(entry[0])) throw new Refused("whyEncoding");
        if (!blockInfo(entry[0])) throw new Refused("whyBlock", { n: entry[0] + 1 });
      });
      x.forEach(function (entry) {
        if (!Array.isArray(entry) || entry.length !== 3 || !Number.isInteger(entry[0]) || !plainState(entry[2]))
          throw new Refused("whyEncoding");
        if (!roots[entry[0]] || roots[entry[0]].dataset.explorer !== entry[1]) throw new Refused("whyExplorer");
      });
      return { blocks: b, explorers: x };
    });
  }
  /* an explorer's state as start.js's parts give it: fields as text, a step, a view of short values */
  function plainState(state) {
    if (!state || typeof state !== "object" || Array.isArray(state)) return false;
    return Object.keys(state).every(function (part) {
      var v = state[part];
      if (part === "step") return Number.isInteger(v) && v >= 0;
      if (part !== "fields" && part !== "view") return false;
      return v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).every(function (k) {
        return (typeof v[k] === "string" && v[k].length <= 100) || (typeof v[k] === "number" && isFinite(v[k]));
      });
    });
  }

  function openLink() {
    var fragment = location.hash;
    if (fragment.indexOf(PREFIX) !== 0) return Promise.resolve(false);
    return decode(fragment).then(function (link) {
      var kept = read(), linked = [];
      link.blocks.forEach(function (e) { kept.blocks[e[0]] = { code: e[2], hash: e[1] }; linked.push(e[0]); });
      link.explorers.forEach(function (e) { kept.explorers[e[0]] = { name: e[1], state: e[2] }; });
      history.replaceState(history.state, "", location.pathname + location.search);
      write(kept);
      var done = restore(kept, linked);
      var text = fill(W.opened, { what: what(linked, link.explorers.length) });
      if (done.changed.length) text += " " + fill(W.changedSaid, { blocks: list(done.changed) });
      say(text);
      return true;
    }, function (error) {
      if (!(error instanceof Refused)) throw error;
      restoreKept();  /* the link changes nothing: what this browser kept comes back as without it */
      say(fill(W.badLink, { why: fill(W[error.key], error.values) }));
      return true;
    });
  }
  function restoreKept() {
    var kept = read(), any = Object.keys(kept.blocks).length || Object.keys(kept.explorers).length;
    var done = restore(kept, []);
    if (!any) return;
    var text = fill(W.restored, { what: what(done.blocks, done.explorers) });
    if (done.changed.length) text += " " + fill(W.changedSaid, { blocks: list(done.changed) });
    say(text);
  }

  /* ---- the bar ---- */
  function hideField() {
    var old = bar.querySelector(".keep-field");
    if (old) old.remove();
  }
  function showField(link) {  /* the clipboard refused: the link, selected in a field, for the reader to copy */
    hideField();
    var id = "keep-link-field";
    var label = document.createElement("label");
    label.className = "keep-field";
    label.setAttribute("for", id);
    label.textContent = W.field;
    var input = document.createElement("input");
    input.id = id;
    input.type = "text";
    input.readOnly = true;
    input.value = link;
    input.setAttribute("spellcheck", "false");
    input.addEventListener("focus", function () { input.select(); });
    label.append(input);
    bar.insertBefore(label, status);
    input.focus();
    input.select();
  }
  function copy() {
    var payload = { v: VERSION, b: [], x: [] }, blocks = [], kept = read();
    (run() ? run().blocks() : []).forEach(function (info) {
      if (!info.edited) return;
      var code = run().code(info.index);
      if (code !== info.page) { payload.b.push([info.index, info.hash, code]); blocks.push(info.index); }
    });
    roots.forEach(function (root, i) {
      var state = root.dataset.xpState === "ready" && !waiting[i] ? explorerState(root)
        : waiting[i] || (kept.explorers[i] && kept.explorers[i].state) || {};
      if (Object.keys(state).length) payload.x.push([i, root.dataset.explorer, state]);
    });
    var address = location.origin + location.pathname + location.search;
    var made = payload.b.length || payload.x.length ? encode(payload) : Promise.resolve("");
    return made.then(function (fragment) {
      if (fragment.length > MAX_LINK) {
        hideField();
        say(fill(W.tooLong, { chars: fragment.length.toLocaleString(lang), limit: MAX_LINK.toLocaleString(lang) }));
        return;
      }
      var link = address + fragment;
      var done = fragment ? fill(W.copied, { chars: link.length.toLocaleString(lang), what: what(blocks, payload.x.length) })
        : W.copiedPlain;
      var write = navigator.clipboard && navigator.clipboard.writeText ? navigator.clipboard.writeText(link)
        : Promise.reject(new Error("no clipboard"));
      return write.then(function () {
        hideField();
        bar.dataset.keepLink = link;
        say(done);
      }, function () {
        bar.dataset.keepLink = link;
        showField(link);
        say(W.copyRefused);
      });
    });
  }
  function reset() {
    var kept = read(), had = anything(kept);
    Object.keys(waiting).forEach(function (i) { delete waiting[i]; });
    (run() ? run().blocks() : []).forEach(function (info) {
      run().put(info.index);
      forget(info.index);
    });
    var settling = roots.filter(function (root) { return root.dataset.xpState === "ready"; }).map(function (root) {
      root.dataset.keepRestoring = "1";
      return restoreState(root, {}).then(function () { delete root.dataset.keepRestoring; });
    });
    try { localStorage.removeItem(KEY); } catch (error) { /* nothing was kept */ }
    hideField();
    showReset();
    say(had ? W.resetDone : W.resetNothing);
    return Promise.all(settling).then(function () { try { localStorage.removeItem(KEY); } catch (error) { /* as above */ } });
  }

  /* ---- start ---- */
  var here = document.currentScript.src;
  document.head.append(Object.assign(document.createElement("link"), { rel: "stylesheet", href: new URL("keep.css", here).href }));
  var started = fetch(new URL("keep-words.json", here).href)
    .then(function (r) { if (!r.ok) throw new Error("keep-words.json: HTTP " + r.status); return r.json(); })
    .then(function (words) {
      W = words[lang];
      return openLink();
    }).then(function (fromLink) {
      if (!fromLink) restoreKept();
      /* what the reader changed before this script arrived (the change that loaded it) */
      (run() ? run().blocks() : []).forEach(function (info) { if (info.edited && !read().blocks[info.index]) keepBlock(info.index); });
      roots.forEach(function (root, i) { if (!waiting[i]) keepExplorer(i); });
      showReset();
      window.culpaKeep = { copy: copy, reset: reset };
      (window.culpaKeepPending || []).splice(0).forEach(function (b) { b.click(); });
    });
  started.catch(function (error) { console.error("keep: " + error.message); });

  function later(f) { return function (event) { started.then(function () { f(event); }); }; }
  document.addEventListener("run-edit", later(function (event) { keepBlock(event.detail); }));
  document.addEventListener("xp-change", later(function (event) { keepExplorer(roots.indexOf(event.target)); }));
  document.addEventListener("xp-ready", later(function (event) { restoreExplorer(roots.indexOf(event.target)); }));
  window.addEventListener("hashchange", later(function () { openLink(); }));
  copyButton.addEventListener("click", function () { if (window.culpaKeep) copy(); });
  resetButton.addEventListener("click", function () {
    if (window.culpaKeep && resetButton.getAttribute("aria-disabled") !== "true") reset();
    else if (window.culpaKeep) say(W.resetNothing);
  });
})();
