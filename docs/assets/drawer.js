// Keyboard access to Material's navigation where it is a drawer over the page (phones, tablets); assets/a11y.js
// loads this file only there. Material's drawer button is a label that no key reaches, and the closed drawer's
// links, off the screen, still take Tab. Here the label becomes a button (Enter or Space opens the drawer onto
// its first link the reader sees, Escape closes it and comes back), and what is closed is inert.
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

  function sync() {
    button.hidden = !OVERLAY.matches;
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
  sidebar.addEventListener("change", function () { setTimeout(panels, 300); });  // a panel opened, after its slide
  toggle.addEventListener("change", sync);  // a click or a tap on the label
  OVERLAY.addEventListener("change", sync);
  sync();
})();
