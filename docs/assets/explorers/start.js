/* Starts the explorers of a page: the one copy of what every explorer does before its own drawing.
   docs/hooks/explorers.py loads this script first (deferred, so it runs before the explorers' scripts).
   An explorer's script calls culpaExplorers.start(NAME, build): each root element with
   data-explorer="NAME" fetches data/NAME.json (beside this file) when it scrolls into view, then
   build(root, data) draws it. data-xp-state on the root says loading, ready or failed. */
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
      // what drawing it cost, for tests/bench/explorers_benchmark.py (and a reader's devtools)
      if (performance.measure) performance.measure("explorer " + name, { start: begun, end: performance.now() });
    }).catch(function (error) {
      root.dataset.xpState = "failed";
      console.error("explorer " + name + ": " + error.message);
    });
  }

  function start(name, build) {
    function setup() {
      var roots = document.querySelectorAll('[data-explorer="' + name + '"]');
      var begin = function (root) { load(name, build, root); };
      if (!("IntersectionObserver" in window)) { roots.forEach(begin); return; }
      var seen = new IntersectionObserver(function (entries) {
        entries.forEach(function (e) { if (e.isIntersecting) { seen.unobserve(e.target); begin(e.target); } });
      }, { rootMargin: "200px 0px" });
      roots.forEach(function (root) { seen.observe(root); });
    }
    if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(setup);
    else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
    else setup();
  }

  window.culpaExplorers = { start: start };
})();
