"""A reader types an identifier of the code into Material's search box, as it is, and finds the pages whose
code uses it (sitebuild/steps/code_names.py), in the language of the page searched from.

What is checked is what Material's search does in Chromium: its worker splits the typed query with the
index's separator, lunr matches the terms (pt with lunr-languages' Portuguese pipeline), and the result list
shows links. Each expected page is read from the built pages' code (tests/support/search_index.py).
"""

from __future__ import annotations

import pytest
from visiting import NO_CHROMIUM, find_chromium, in_ci, kept_tab, wait_until

from support.search_index import IDENTIFIERS, pages_whose_code_uses

if find_chromium() is None and not in_ci():
    pytest.skip(f"browser tests skipped: {NO_CHROMIUM}", allow_module_level=True)

HOME = {"pt": "", "en": "en/"}
# The results' summary once the worker has answered: "No matching documents", "1 matching document" or
# "# matching documents" in the page's language (not the placeholder, nor "Initializing search").
ANSWERED = """() => {
  const t = JSON.parse(document.getElementById("__config").textContent).translations;
  const meta = (document.querySelector(".md-search-result__meta")?.textContent || "").trim();
  const many = new RegExp("^" + t["search.result.other"].replace("#", "[0-9]+") + "$");
  return meta === t["search.result.none"] || meta === t["search.result.one"] || many.test(meta);
}"""


@pytest.fixture(scope="module")
def tab(browser, served_site):
    context, tab = kept_tab(browser, served_site.base)
    yield tab
    context.close()


def search(tab, site, lang: str, term: str) -> tuple[str, list[str]]:
    """Type `term` into the search box of the language's home page: the results' summary and links."""
    tab.goto(site.base + HOME[lang], wait_until="load")
    box = tab.locator("input.md-search__input")
    box.click()
    box.press_sequentially(term, delay=10)
    wait_until(tab, ANSWERED, timeout=15_000)
    read = "els => els.map(e => e.href)"
    links = tab.eval_on_selector_all("a.md-search-result__link", read)
    for _ in range(20):  # the worker answers each keystroke: read until the last answer stays
        tab.wait_for_timeout(150)
        again = tab.eval_on_selector_all("a.md-search-result__link", read)
        if again == links:
            break
        links = again
    return tab.inner_text(".md-search-result__meta"), links


@pytest.mark.parametrize("lang", list(HOME))
@pytest.mark.parametrize("name", IDENTIFIERS)
def test_typing_an_identifier_finds_the_pages_whose_code_uses_it(tab, served_site, lang, name):
    expected = pages_whose_code_uses(served_site.dir, lang, name)
    assert expected, f"no {lang} page has {name} in its code: nothing to look for"
    meta, links = search(tab, served_site, lang, name)
    found = [served_site.page_at(link) for link in links]
    unknown = [link for link, page in zip(links, found, strict=True) if page is None]
    assert not unknown, f"searching {name!r}: results that are not pages of the site: {unknown}"
    other = [page.id for page in found if page.lang != lang]
    assert not other, f"searching {name!r} from {lang}: results of the other language: {other}"
    pages = {page.path for page in found}
    missing = sorted(expected - pages)
    assert not missing, (
        f"searching {name!r} ({lang}) does not find {missing}, whose code uses it "
        f"({meta!r}; found: {sorted(pages)})"
    )
    sections = [link for link in links if "#" in link]
    assert sections, f"searching {name!r} ({lang}) finds pages but no section of one ({links})"
