// Typesets math with the KaTeX copy that the site serves itself (docs/assets/vendor/katex, from npm).
// Arithmatex (generic mode) wraps formulas of the Markdown pages in .arithmatex elements;
// notebook pages (mkdocs-jupyter) leave raw $...$ in their rendered Markdown cells.
(function () {
  function report(message, err) {
    // A formula that KaTeX cannot parse must be loud: the browser tests fail on console errors.
    // auto-render calls this only when KaTeX throws (throwOnError, the default), and then leaves the
    // formula's source in the page; with throwOnError: false it would draw a red error silently.
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
      renderMathInElement(el, { delimiters: mdDelimiters, errorCallback: report });
    });
    root.querySelectorAll(".jp-RenderedMarkdown, .jp-MarkdownOutput").forEach(function (el) {
      renderMathInElement(el, { delimiters: notebookDelimiters, errorCallback: report });
    });
  }
  // Search results quote the pages' text, formulas included, as TeX (a notebook's as $...$): typeset them
  // too. Quietly, because a result may cut a formula short or highlight a word inside one; the pages
  // themselves stay loud.
  function typesetResults(list) {
    var observer = new MutationObserver(function () {
      observer.disconnect();
      renderMathInElement(list, { delimiters: notebookDelimiters, throwOnError: false, errorCallback: function () {} });
      observer.observe(list, { childList: true, subtree: true });
    });
    observer.observe(list, { childList: true, subtree: true });
  }
  var results = document.querySelector(".md-search-result__list");
  if (results) typesetResults(results);
  if (typeof document$ !== "undefined") {
    document$.subscribe(function (doc) { typeset(doc.body); });
  } else {
    document.addEventListener("DOMContentLoaded", function () { typeset(document.body); });
  }
})();
