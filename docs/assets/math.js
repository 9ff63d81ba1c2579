// Typesets math with the KaTeX copy that the site serves itself (docs/assets/vendor/katex, from npm).
// Arithmatex (generic mode) wraps formulas of the Markdown pages in .arithmatex elements;
// notebook pages (mkdocs-jupyter) leave raw $...$ in their rendered Markdown cells.
(function () {
  function report(message, err) {
    // A formula that KaTeX cannot parse must be loud: the browser tests fail on console errors.
    console.error("KaTeX: " + message, err);
  }
  var mdDelimiters = [
    { left: "\\(", right: "\\)", display: false },
    { left: "\\[", right: "\\]", display: true },
  ];
  var notebookDelimiters = [
    { left: "$$", right: "$$", display: true },
    { left: "$", right: "$", display: false },
    { left: "\\(", right: "\\)", display: false },
    { left: "\\[", right: "\\]", display: true },
  ];
  function typeset(root) {
    root.querySelectorAll(".arithmatex").forEach(function (el) {
      renderMathInElement(el, { delimiters: mdDelimiters, throwOnError: false, errorCallback: report });
    });
    root.querySelectorAll(".jp-RenderedMarkdown, .jp-MarkdownOutput").forEach(function (el) {
      renderMathInElement(el, { delimiters: notebookDelimiters, throwOnError: false, errorCallback: report });
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(function (doc) { typeset(doc.body); });
  } else {
    document.addEventListener("DOMContentLoaded", function () { typeset(document.body); });
  }
})();
