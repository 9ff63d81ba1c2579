// Accessible names and keyboard access that the theme and mkdocs-jupyter leave out. The browser tests
// run axe-core on every page; these are the rules this file satisfies:
// - aria-dialog-name: Material's search overlay is a role="dialog" without a name;
// - link-name: a code annotation's marker is a link whose only content is a number drawn by CSS;
// - scrollable-region-focusable: a notebook cell's code (and a display formula or a figure wider than the
//   screen) scrolls sideways but cannot be reached with the keyboard, unlike Material's own code blocks.
(function () {
  var pt = (document.documentElement.lang || "").slice(0, 2) === "pt";

  function fix() {
    var dialog = document.querySelector('.md-search[role="dialog"]:not([aria-label])');
    var input = document.querySelector(".md-search__input");
    if (dialog && input) {
      dialog.setAttribute("aria-label", input.getAttribute("aria-label") || (pt ? "Buscar" : "Search"));
    }
    document.querySelectorAll(".md-annotation__index:not([aria-label])").forEach(function (link) {
      var number = link.querySelector("[data-md-annotation-id]");
      var id = number ? number.getAttribute("data-md-annotation-id") : "";
      link.setAttribute("aria-label", (pt ? "Nota " : "Note ") + id);
    });
    document.querySelectorAll(".jp-InputArea .highlight-ipynb:not([tabindex])").forEach(function (code) {
      code.setAttribute("tabindex", "0");
    });
  }

  // Which boxes scroll sideways depends on the layout: measured once the page is laid out and again when
  // the window changes size, never on every change to the page (each measure forces a layout, and a
  // chapter page has thousands of KaTeX elements).
  function fixScrollable() {
    var wide = "div.arithmatex:not([tabindex]), .jupyter-wrapper .katex-display:not([tabindex]), figure:not([tabindex])";
    document.querySelectorAll(wide).forEach(function (el) {
      if (el.scrollWidth > el.clientWidth) el.setAttribute("tabindex", "0");
    });
  }

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
  var resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(fixScrollable, 200);
  });
  function start() {
    fix();
    if (window.requestIdleCallback) requestIdleCallback(fixScrollable, { timeout: 500 });
    else setTimeout(fixScrollable, 0);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
