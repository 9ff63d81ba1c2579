// Keyboard access to Material's navigation where it is a drawer over the page (phones, tablets); assets/a11y.js
// loads this file only there. Material's drawer button is a label that no key reaches, and the closed drawer's
// links, off the screen, still take Tab. Here the label becomes a button (Enter or Space opens the drawer onto
// its first link the reader sees, Escape closes it and comes back), and what is closed is inert. Inside it, a
// section opens as a panel over the level above it; the section's title and the panel's back arrow are labels
// no key reaches either: they become buttons too (the panel opens onto its first link, Back returns to the
// section's title), what an open panel covers is inert, and so is the page behind the open drawer.
(function () {
  var words = (document.currentScript && document.currentScript.dataset) || {};  // a11y.js's, in the page's language
  var OVERLAY = window.matchMedia("(max-width: 76.234375em)");  // Material's break-to-device(tablet)
  var toggle = document.getElementById("__drawer");
  var label = document.querySelector('.md-header label[for="__drawer"]');
  var sidebar = document.querySelector(".md-sidebar--primary");
  if (!toggle || !label || !sidebar) return;

  // a real button in the label's place, with its icon, shown where Material showed the label
  var button = document.createElement("button");
  button.type = "button";
  button.className = label.className + " culpa-drawer-button";
  button.style.cssText = "background: none; border: 0; font: inherit";
  button.innerHTML = label.innerHTML;
  if (words.navigation) button.setAttribute("aria-label", words.navigation);
  button.setAttribute("aria-controls", "__drawer");
  label.replaceWith(button);
  button.addEventListener("click", function (event) {
    toggle.click();  // as a tap on the label: the checkbox changes, and Material hears it
    if (toggle.checked && event.detail === 0) arrive();  // from the keyboard (a click has a count)
  });

  // what the open drawer covers, and the labels that open a section's panel or leave it
  var BEHIND = ".md-skip, .md-header, .md-content, .md-sidebar--secondary, .md-top, .md-footer";
  var SECTIONS = 'label.md-nav__link[for^="__nav_"], label.md-nav__link[for="__toc"]';
  var BACKS = 'label.md-nav__title[for^="__nav_"], label.md-nav__title[for="__toc"]';
  var labels = sidebar.querySelectorAll(SECTIONS + ", " + BACKS);

  function sync() {
    var open = OVERLAY.matches && toggle.checked;
    button.hidden = !OVERLAY.matches;
    button.setAttribute("aria-expanded", String(toggle.checked));
    if (OVERLAY.matches && !toggle.checked) sidebar.setAttribute("inert", "");
    else sidebar.removeAttribute("inert");
    document.querySelectorAll(BEHIND).forEach(function (el) { el.inert = open; });  // Tab stays in the drawer
    labels.forEach(function (label) {
      var keyed = OVERLAY.matches, back = label.matches(BACKS);
      label.setAttribute("tabindex", keyed ? "0" : "");  // Material's own value, a title on a desktop
      if (keyed) label.setAttribute("role", "button"); else label.removeAttribute("role");
      if (keyed && back && words.back) label.setAttribute("aria-label", words.back);
      if (keyed && !back) label.setAttribute("aria-expanded", String(document.getElementById(label.htmlFor).checked));
    });
    panels();
  }
  labels.forEach(function (label) {
    label.addEventListener("keydown", function (event) {
      if ((event.key !== "Enter" && event.key !== " ") || !OVERLAY.matches) return;
      event.preventDefault();
      var back = label.matches(BACKS), id = label.htmlFor, box = document.getElementById(id), was = box.checked;
      setTimeout(function () {  // Material clicks a focused label on Enter itself; on Space, or if it did not:
        if (box.checked === was) label.click();  // as a tap: the checkbox changes, and Material slides the panel
      });
      setTimeout(function () {  // once the slide (250 ms) is done
        sync();
        var to = back ? sidebar.querySelector('label.md-nav__link[for="' + id + '"]')
          : first(label.parentElement.querySelector("nav.md-nav"));
        if (to) to.focus();
      }, 300);
    });
  });
  function first(nav) {  // the first link or button of a panel
    return nav && nav.querySelector('a[href], label.md-nav__link[tabindex="0"]');
  }
  // Inside the drawer, Material's closed panels (a section's, the page's contents) are moved aside and made
  // transparent, and their links would still take Tab: inert too, until the reader opens one.
  var covered = [];
  function panels() {
    covered.forEach(function (el) { el.removeAttribute("inert"); });
    covered = [];
    sidebar.querySelectorAll("nav.md-nav").forEach(function (nav) {
      if (OVERLAY.matches && toggle.checked && getComputedStyle(nav).opacity === "0") nav.setAttribute("inert", "");
      else nav.removeAttribute("inert");
    });
    // the open panel on top (the last in the page's order) covers the level under it, and that level the
    // one under it: everything beside its way up to the drawer is out of sight, out of Tab's way
    var top = null;
    if (OVERLAY.matches && toggle.checked) {
      sidebar.querySelectorAll(".md-nav__toggle:checked ~ nav.md-nav").forEach(function (nav) {
        if (!nav.hasAttribute("inert")) top = nav;
      });
    }
    for (var el = top; el && el !== sidebar; el = el.parentElement) {
      Array.prototype.forEach.call(el.parentElement.children, function (other) {
        if (other === el || other.tagName === "INPUT" || other.hasAttribute("inert")) return;  // (a label's
        other.setAttribute("inert", "");  // checkbox stays live: an inert one would not change)
        covered.push(other);
      });
    }
  }
  function arrive() {  // into the drawer, once Material's slide (250 ms) has brought it on the screen
    var frames = 0;
    (function look() {
      if (sidebar.getBoundingClientRect().left < 0 && ++frames < 60) return requestAnimationFrame(look);
      panels();
      // its first link that the reader sees: Material shows the section being read in a panel over the first
      // level's links, which stay in the page behind it
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
  sidebar.addEventListener("change", function () { setTimeout(sync, 300); });  // a panel opened, after its slide
  toggle.addEventListener("change", sync);  // a click or a tap on the label
  OVERLAY.addEventListener("change", sync);
  sync();
})();
