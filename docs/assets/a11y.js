// Accessible names and keyboard access that the theme and mkdocs-jupyter leave out. The browser tests
// run axe-core on every page; these are the rules this file satisfies:
// - aria-dialog-name: Material's search overlay is a role="dialog" without a name;
// - link-name: a code annotation's marker is a link whose only content is a number drawn by CSS;
// - scrollable-region-focusable: a notebook cell's code (and a display formula or a figure wider than the
//   screen) scrolls sideways but cannot be reached with the keyboard, unlike Material's own code blocks.
// And the phone's drawer button, a label no key reaches: assets/drawer.js, loaded only where it shows.
(function () {
  // The words, in the page's language, on this script's tag (sitebuild/steps/a11y_words.py).
  var words = (document.currentScript && document.currentScript.dataset) || {};

  function fix() {
    var dialog = document.querySelector('.md-search[role="dialog"]:not([aria-label])');
    var input = document.querySelector(".md-search__input");
    if (dialog && input && input.hasAttribute("aria-label")) {
      dialog.setAttribute("aria-label", input.getAttribute("aria-label"));  // Material's, in the page's language
    }
    document.querySelectorAll(".md-annotation__index:not([aria-label])").forEach(function (link) {
      var number = link.querySelector("[data-md-annotation-id]");
      var id = number ? number.getAttribute("data-md-annotation-id") : "";
      if (words.note) link.setAttribute("aria-label", words.note.replace("{n}", id));
    });
    document.querySelectorAll(".jp-InputArea .highlight-ipynb:not([tabindex])").forEach(function (code) {
      code.setAttribute("tabindex", "0");
    });
  }

  // Which boxes scroll sideways depends on the layout. A ResizeObserver reports each box once the browser
  // has laid it out (and again when its size changes): reading its widths then costs no extra layout,
  // where measuring from a script would force one over the page's thousands of KaTeX elements.
  var WIDE = "div.arithmatex, .jupyter-wrapper .katex-display, figure";
  function focusableIfScrolling(boxes) {
    var scrolling = boxes.filter(function (el) {
      return !el.hasAttribute("tabindex") && el.scrollWidth > el.clientWidth;
    });
    scrolling.forEach(function (el) { el.setAttribute("tabindex", "0"); });  // all reads, then all writes
  }
  var sizes = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(function (entries) {
    focusableIfScrolling(entries.map(function (e) { return e.target; }));
  });
  // A formula far from the screen is not laid out yet (sitebuild/steps/offscreen.py): its box has the height it
  // will have, so the ResizeObserver may never report it. Look again when the browser first draws it.
  document.addEventListener("contentvisibilityautostatechange", function (event) {
    var box = !event.skipped && event.target.closest ? event.target.closest(WIDE) : null;
    if (box) focusableIfScrolling([box]);
  }, true);

  // Material adds the annotation markers after the page is shown: fix again when the page changes.
  var pending = false;
  new MutationObserver(function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      fix();
    });
  }).observe(document.documentElement, { childList: true, subtree: true });
  // where the navigation is a drawer (Material's break-to-device(tablet)), keys for it: assets/drawer.js
  var OVERLAY = window.matchMedia("(max-width: 76.234375em)");
  var here = document.currentScript && document.currentScript.src;
  function drawer() {
    if (drawer.loaded || !OVERLAY.matches || !here) return;
    drawer.loaded = true;
    var script = document.createElement("script");
    script.src = new URL("drawer.js", here).href;
    script.dataset.navigation = words.navigation || "";
    script.dataset.back = words.back || "";
    document.head.appendChild(script);
  }
  OVERLAY.addEventListener("change", drawer);  // a window made narrow later

  function start() {
    drawer();
    fix();
    if (sizes) document.querySelectorAll(WIDE).forEach(function (el) { sizes.observe(el); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
