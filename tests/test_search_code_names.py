"""Search finds the identifiers a page's code uses (sitebuild/steps/code_names.py), on the built index.

- `set_printoptions`, `logaddexp` and `retain_graph` are terms of each language's index exactly on the pages
  whose Python blocks use them (read from the built pages' HTML, not from the step), and each section that
  has one as a term uses it there, in its code or its prose;
- the index holds names, not code: no section repeats a name, no Python keyword, no one-letter name;
- the separator Material's search splits with (in the index and in the query) keeps `set_printoptions`
  whole and takes `logaddexp` out of `np.logaddexp(x)`;
- the step's rules, on small inputs.
The index's size is budgeted in tests/test_budgets.py; tests/browser/test_search_identifiers.py types the
identifiers into the search box.
"""

from __future__ import annotations

import keyword
import re
from html import unescape

import pytest

from sitebuild.steps import code_names
from support.search_index import (
    IDENTIFIERS,
    INDEXES,
    TAGS,
    index,
    page_html,
    pages_whose_code_uses,
    section_html,
    terms,
)


def test_the_indexes_keep_underscores_inside_terms(built_site):
    for lang in INDEXES:
        config = index(built_site, lang)["config"]
        assert config["lang"] == [lang]
        assert "stemmer" not in config["pipeline"] and "trimmer" not in config["pipeline"], config
        separator = config["separator"]
        assert terms("np.set_printoptions(precision=3)", separator) == {
            "np",
            "set_printoptions",
            "precision",
            "3",
        }, separator
        assert terms("<code>np.logaddexp(0, -x)</code>", separator) >= {"np", "logaddexp"}, separator
        assert terms("0,659 e 0.659, x.grad", separator) == {"0,659", "e", "0.659", "x", "grad"}, separator


@pytest.mark.parametrize("lang", list(INDEXES))
@pytest.mark.parametrize("name", IDENTIFIERS)
def test_an_identifier_is_a_term_of_the_pages_whose_code_uses_it(built_site, lang, name):
    found = index(built_site, lang)
    using = pages_whose_code_uses(built_site, lang, name)
    assert using, f"no page of {lang} has {name} in its code: the test has nothing to check"
    docs = [doc for doc in found["docs"] if name in terms(doc["text"], found["config"]["separator"])]
    pages = {doc["location"].split("#", 1)[0] for doc in docs}
    assert pages >= using, (
        f"{INDEXES[lang]}: {name} is in the code of {sorted(using - pages)}, not in the index"
    )
    for doc in docs:
        page, _, anchor = doc["location"].partition("#")
        section = section_html(page_html(built_site, lang, page), anchor)
        assert re.search(rf"\b{name}\b", unescape(TAGS.sub(" ", section))), (
            f"{INDEXES[lang]}: {doc['location']} has {name}, which its section neither runs nor says"
        )


@pytest.mark.parametrize("lang", list(INDEXES))
def test_the_index_holds_names_once_per_section_not_code(built_site, lang):
    found = index(built_site, lang)
    lines = [
        (doc["location"], m.group(1).split())
        for doc in found["docs"]
        for m in re.finditer(r"<p><code>([^<]*)</code></p>$", doc["text"])
    ]
    assert len(lines) > 40, f"{INDEXES[lang]}: only {len(lines)} sections have code names"
    assert not [doc["location"] for doc in found["docs"] if code_names.MARK in doc["text"]], "marks left"
    bad = []
    for location, names in lines:
        repeated = {n for n in names if names.count(n) > 1}
        wrong = [n for n in names if len(n) < 2 or keyword.iskeyword(n) or not n.isidentifier()]
        if repeated or wrong:
            bad.append(f"{location}: repeated {sorted(repeated)}, not names {wrong}")
    assert not bad, "\n".join(bad)


# --- the step's rules ----------------------------------------------------------------------------------


def test_identifiers_are_the_names_code_uses_not_its_words():
    code = (
        "import numpy as np\n"
        "from culpa import Tensor\n"
        "np.set_printoptions(precision=3)  # a comment: hidden_name\n"
        "def loss_of(model, x):\n"
        "    s = 'a string: other_name'\n"
        "    return model(x).cross_entropy(y, label_smoothing=0)\n"
        "for i in range(3):\n"
        "    print(len(s), end='', flush=True)\n"
        "    loss.backward(retain_graph=True)\n"
    )
    assert set(code_names.identifiers(code)) == {
        "numpy",
        "np",
        "culpa",
        "Tensor",
        "loss_of",
        "set_printoptions",
        "precision",
        "model",
        "backward",
        "retain_graph",
        "cross_entropy",
        "label_smoothing",
    }
    assert len(code_names.identifiers(code + code)) == 12, "a name twice in a block"


def test_identifiers_of_a_section_of_a_file_and_of_a_notebook_cell():
    method_then_function = (
        "    def backward(self, grad=None, retain_graph=False):\n"
        "        order = topo_order(self)\n\n\n"
        "def backpropagate(grads, order):\n"
        "    return order\n"
    )
    assert set(code_names.identifiers(method_then_function)) == {
        "backward",
        "grad",
        "retain_graph",
        "topo_order",
        "backpropagate",
        "grads",
        "order",
    }
    cell = "%pip install culpa\nimport culpa\n!ls\nculpa.check.gradcheck(f, [z])\n"
    assert set(code_names.identifiers(cell)) == {"culpa", "check", "gradcheck"}


def test_merge_gives_each_section_its_names_once_and_a_common_name_once_per_page():
    mark = code_names.MARK

    def doc(location, prose, *blocks):
        return {
            "location": location,
            "title": location,
            "text": prose + "".join(f"<p><code>{mark}{' '.join(b)}</code></p>" for b in blocks),
        }

    docs = [
        doc("a/", "<p>Intro.</p>"),
        doc(
            "a/#one",
            "<p>We call <code>np.logaddexp</code>.</p>",
            ["Tensor", "logaddexp", "exp"],
            ["exp", "zero_grad"],
        ),
        doc("a/#two", "<p>More.</p>", ["Tensor", "exp"]),
        doc("b/#one", "<p>A <code>Tensor</code> here.</p>", ["Tensor", "retain_graph"]),
        doc("c/#one", "<p>Nothing.</p>", ["Tensor", "set_printoptions"]),
        *(doc(f"d/#{k}", "<p>Else.</p>", [f"name_{k}"]) for k in range(4)),
    ]  # 8 sections with code: a name in more than 2 of them (Tensor, in 4) is common; exp (in 2) is not
    code_names.merge(docs, r"[\s\-:;!=\[\](){}\"/]+|[.,](?!\d)|&[lg]t;|&amp;")
    text = {d["location"]: d["text"] for d in docs}
    assert text["a/"] == "<p>Intro.</p>"
    # logaddexp: the section's prose has it; exp, from two blocks: once
    assert text["a/#one"].endswith("<p><code>Tensor exp zero_grad</code></p>"), text
    # Tensor, common: once a page
    assert text["a/#two"].endswith("<p><code>exp</code></p>"), text
    # Tensor, common: the page's prose has it
    assert text["b/#one"].endswith("<p><code>retain_graph</code></p>"), text
    assert text["c/#one"].endswith("<p><code>Tensor set_printoptions</code></p>"), text
