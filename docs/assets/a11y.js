// Accessible names and keyboard access that the theme and mkdocs-jupyter leave out. The browser tests
// run axe-core on every page; these are the rules this file satisfies:
// - aria-dialog-name: Material's search overlay is a role="dialog" without a name;
// - link-name: a code annotation's marker is a link whose only content is a number drawn by CSS;
// - scrollable-region-focusable: a notebook cell's code (and a display formula or a figure wider than the
//   screen) scrolls sideways but cannot be reached with the keyboard, unlike Material's own code blocks.
// And one that axe does not see: where the navigation is a drawer over the page (phones and tablets), its
// button is a label that no key reaches, while the closed drawer's links, off the screen, still take Tab.
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
  // On a phone a code block (Run's editable code and its expected output, Material's own) scrolls sideways
  // too; an editable one takes focus already, but axe does not count contenteditable, so it gets a tabindex.
  var WIDE = "div.arithmatex, .jupyter-wrapper .katex-display, figure, .md-typeset pre > code";
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
    if (event.skipped || !event.target.querySelectorAll) return;
    var boxes = Array.prototype.slice.call(event.target.querySelectorAll(WIDE));  // a code block inside it
    var box = event.target.closest(WIDE);
    if (box) boxes.push(box);
    focusableIfScrolling(boxes);
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
  // The drawer's button becomes one (Enter or Space opens the drawer and moves into it, Escape closes it and
  // comes back), and the closed drawer is inert, so Tab skips its hidden links. Above Material's tablet
  // width the navigation is a sidebar on the screen, and nothing changes.
  var OVERLAY = window.matchMedia("(max-width: 76.234375em)");  // Material's break-to-device(tablet)
  function drawer() {
    var toggle = document.getElementById("__drawer");
    var label = document.querySelector('.md-header label[for="__drawer"]');
    var sidebar = document.querySelector(".md-sidebar--primary");
    if (!toggle || !label || !sidebar) return;
    // a real button in the label's place, with its icon (site.css hides it where Material hid the label)
    var button = document.createElement("button");
    button.type = "button";
    button.className = label.className + " culpa-drawer-button";
    button.innerHTML = label.innerHTML;
    if (words.navigation) button.setAttribute("aria-label", words.navigation);
    button.setAttribute("aria-controls", "__drawer");
    label.replaceWith(button);
    button.addEventListener("click", function (event) {
      toggle.click();  // as a tap on the label: the checkbox changes, and Material hears it
      if (toggle.checked && event.detail === 0) arrive();  // from the keyboard (a click has a count)
    });
    function sync() {
      button.setAttribute("aria-expanded", String(toggle.checked));
      if (OVERLAY.matches && !toggle.checked) sidebar.setAttribute("inert", "");
      else sidebar.removeAttribute("inert");
      panels();
    }
    // Inside the drawer, Material's closed panels (a section's, the page's contents) are moved aside and made
    // transparent, and their links would still take Tab: inert too, until the reader opens one.
    function panels() {
      sidebar.querySelectorAll("nav.md-nav").forEach(function (nav) {
        if (OVERLAY.matches && toggle.checked && getComputedStyle(nav).opacity === "0") nav.setAttribute("inert", "");
        else nav.removeAttribute("inert");
      });
    }
    sidebar.addEventListener("change", function () { setTimeout(panels, 300); });  // a panel opened, after its slide
    function arrive() {  // into the drawer, once Material's slide (250 ms) has brought it on the screen
      var frames = 0;
      (function look() {
        if (sidebar.getBoundingClientRect().left < 0 && ++frames < 60) return requestAnimationFrame(look);
        panels();
        // its first link that the reader sees: Material shows the section being read in a panel over the
        // first level's links, which stay in the page behind it
        var links = sidebar.querySelectorAll("a[href]");
        for (var i = 0; i < links.length; i++) {
          var box = links[i].getBoundingClientRect();
          var seen = box.width && document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
          if (seen && links[i].contains(seen)) return links[i].focus();
        }
      })();
    }
    document.addEventListener("keydown", function (event) {
      if (event.key !== "Escape" || !toggle.checked || !OVERLAY.matches) return;
      toggle.click();
      button.focus();
    });
    toggle.addEventListener("change", sync);  // a click or a tap on the label
    OVERLAY.addEventListener("change", sync);
    sync();
  }

  function start() {
    drawer();
    fix();
    if (sizes) document.querySelectorAll(WIDE).forEach(function (el) { sizes.observe(el); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
