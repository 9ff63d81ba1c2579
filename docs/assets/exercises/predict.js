/* Predict ("Prever"): the reader predicts a key output, then reveals what culpa computed. Loaded by
   progress.js on the first touch of a Predict (a Show pressed before is replayed: culpaPredictPending).
   It computes no number a reader sees: it compares the reader's number with the bands the build wrote on
   the root (data-exact, data-close around data-value), says the sentence that fits (role=status) with the
   reader's text and the page's own number (data-answer-text) in it, and reveals the page's paragraphs.
   A pick says the right option (data-answer, its index). sitebuild/steps/exercises.py says more. */
(function () {
  "use strict";

  function words(root) {  /* data-t-predict-exact="..." is t.predictExact */
    var t = {};
    Object.keys(root.dataset).forEach(function (k) {
      if (k.indexOf("t") === 0 && k.length > 1) t[k.charAt(1).toLowerCase() + k.slice(2)] = root.dataset[k];
    });
    return t;
  }
  var fill = function (text, values) { return text.replace(/\{(\w+)\}/g, function (_, k) { return values[k]; }); };

  /* The reader's number, as typed in either language: 0,5 or 0.5, a true minus, 1e-3. NaN if it is none. */
  function read(text) {
    var s = text.trim().replace(/\u2212/g, "-").replace(/\s/g, "");
    if (!/^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$/.test(s)) return NaN;
    return Number(s.replace(",", "."));
  }

  function say(root, text, state) {
    var status = root.querySelector(".pr-said");
    root.dataset.state = state;
    status.textContent = "";  /* emptied first: the same sentence twice is announced twice */
    setTimeout(function () { status.textContent = text; }, 50);
  }

  function reveal(root) {
    root.querySelector(".pr-reveal").hidden = false;
    if (window.culpaPredictRelease) window.culpaPredictRelease(root);  /* the output it held (progress.js) */
  }

  function show(root) {
    var t = words(root), d = root.dataset;
    if (d.kind === "pick") {
      var options = [].slice.call(root.querySelectorAll(".pr-option input"));
      var right = options[Number(d.answer)], picked = options.filter(function (o) { return o.checked; })[0];
      var answer = right.dataset.label;
      if (!picked) say(root, fill(t.pickNone, { answer: answer }), "skipped");
      else if (picked === right) say(root, fill(t.pickRight, { answer: answer }), "right");
      else say(root, fill(t.pickWrong, { guess: picked.dataset.label, answer: answer }), "wrong");
      options.forEach(function (o) { o.closest(".pr-option").dataset.right = String(o === right); });
      reveal(root);
      return;
    }
    var field = root.querySelector(".pr-guess"), typed = field.value.trim();
    var values = { guess: typed, answer: d.answerText, example: d.example };
    if (!typed) {
      field.removeAttribute("aria-invalid");
      say(root, fill(t.predictSkip, values), "skipped");
      reveal(root);
      return;
    }
    var guess = read(typed);
    if (isNaN(guess)) {
      field.setAttribute("aria-invalid", "true");
      say(root, fill(t.predictNotNumber, values), "malformed");
      return;
    }
    field.removeAttribute("aria-invalid");
    var value = Number(d.value), off = Math.abs(guess - value);
    var sentence = off <= Number(d.exact) ? "predictExact"
      : off <= Number(d.close) ? "predictClose"
        : guess * value < 0 ? "predictSign" : "predictFar";
    say(root, fill(t[sentence], values), sentence);
    reveal(root);
  }

  document.addEventListener("submit", function (event) {
    var root = event.target.closest && event.target.closest(".predict");
    if (!root) return;
    event.preventDefault();
    show(root);
  });
  window.culpaPredict = true;
  (window.culpaPredictPending || []).splice(0).forEach(show);
})();
