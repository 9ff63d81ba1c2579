// Blocks far from the screen carry class="offscreen" (sitebuild/steps/offscreen.py): content-visibility: auto,
// so the browser neither styles nor lays them out until the reader comes near. The first time the browser
// draws one, the class comes off and the block stays an ordinary block: what Material adds inside it later
// (a code annotation's tooltip, which reaches outside the block) is never clipped by its containment.
(function () {
  function drawn(block) {
    block.classList.remove("offscreen");
  }
  document.addEventListener("contentvisibilityautostatechange", function (event) {
    if (!event.skipped && event.target.classList) drawn(event.target);
  }, true);
  // The blocks on the first screen were drawn before this script ran, and their event is gone: once the
  // page has loaded, take the class off those whose content the browser shows (a skipped block hides it).
  window.addEventListener("load", function () {
    requestAnimationFrame(function () {
      var shown = Array.prototype.filter.call(document.querySelectorAll(".offscreen"), function (block) {
        var inner = block.firstElementChild;
        return inner && inner.checkVisibility && inner.checkVisibility({ contentVisibilityAuto: true });
      });
      shown.forEach(drawn);  // all reads, then all writes
    });
  });
})();
