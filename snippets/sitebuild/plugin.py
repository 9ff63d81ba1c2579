"""The site's build, top to bottom: every step, in the order it runs.

This is the one MkDocs plugin of the project (`plugins: - sitebuild` in mkdocs.yml, registered by
pyproject.toml's entry point). Each step is a module of sitebuild/steps/ with one job; a step that keeps
something between events keeps it on its object, made here. Read the events below in the order MkDocs
calls them; within an event the steps run in the order written.

Two other plugins shape the order:
- mkdocs-static-i18n builds the site once per language: the pt build runs every event below, and its
  on_post_build (priority -100) runs the en build, which runs every event again, nested. Steps that must see
  every language built (the 404 pages, the per-language search index, the sitemaps, the wheel, the
  served LICENSE, site.css without its comments, and last every page's Content-Security-Policy, hashed
  from its final HTML) run after it.
- Material's search plugin indexes a page in on_page_context (priority 0): the formulas step hands it a
  plain-text copy of the page just before, the code-names step puts in that copy the names each Python
  block uses in place of its code, and both take their copies back just after.

The plugin defines on_startup, so `mkdocs serve` keeps this object (and what its steps cache: highlighted
code, compiled templates, KaTeX's V8 context, the wheel) from one rebuild to the next.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority

from sitebuild import patches
from sitebuild.project import Project, page_language
from sitebuild.steps import (
    a11y_words,
    alternates,
    code_names,
    content_policy,
    credits,
    culpa_listings,
    exercises,
    explorers,
    figures,
    images,
    katex_render,
    keep,
    localized_404,
    notebooks,
    offscreen,
    page_code,
    prose_numbers,
    rebuild_cache,
    report_mistake,
    run_blocks,
    search_per_language,
    stylesheets,
    theme_words,
    wheel,
)


class SitePlugin(BasePlugin):
    def on_startup(self, *, command, dirty):
        self.command = command  # build, serve or gh-deploy: the wheel step refuses a bad published build
        self.reuse = rebuild_cache.Reuse()  # highlighted code and compiled templates, across builds
        self.wheel = wheel.Wheel(command)
        self.formulas = katex_render.Formulas()
        self.code_names = code_names.CodeNames()
        self.not_found = localized_404.NotFoundPages()
        self.alternates = alternates.Alternates()

    # ---- configuration and what every page needs, before any page is read ------------------------------
    def on_config(self, config):
        self.project = Project.of(config)
        patches.check_versions()  # the patched packages are the versions the patches were written for
        patches.highlight_with(self.reuse.highlight)  # pymdownx's Highlight.highlight, through the cache
        self.wheel.build(config, self.project)  # culpa's wheel, from snippets/culpa (cached on its source)
        self.figures = figures.Figures(self.project)
        self.labs = notebooks.Labs(self.project)
        self.explorers = explorers.Explorers(self.project)
        return config

    def on_pre_build(self, *, config):
        katex_render.renderer().start()  # V8 with the vendored KaTeX (a new katex.min.js starts afresh)
        self.figures.draw()  # every figure, both languages, desktop and phone (cached)
        self.labs.execute(config)  # every lab, top to bottom, in a kernel (cached); a raising cell fails
        self.explorers.export()  # every explorer's numbers, formulas typeset (cached)

    @event_priority(-110)  # after the i18n plugin (-100) chose this language's files
    def on_files(self, files, *, config):
        lang = _language(config)
        self.figures.add_files(files, config, lang)  # <lang>/figures/<name>.svg, from the cache
        self.explorers.add_files(files, config, lang)  # assets/explorers/data/<name>.json
        keep.add_files(files, config, lang)  # assets/run/keep-words.json: the words of keep.js
        return files

    def on_env(self, env, *, config, files):
        env.bytecode_cache = self.reuse.templates  # Material's templates compiled once per process
        return credits.on_env(env, _language(config))  # the footer: licences and credits, this language

    # ---- each page: Markdown ---------------------------------------------------------------------------
    def on_page_markdown(self, markdown, *, page, config, files):
        markdown = prose_numbers.on_page_markdown(markdown, page)  # {{ 0,659 <- p.data[0] | .3f }} -> 0,659
        markdown = self.figures.fill_machine(markdown, page)  # @MACHINE@ in a timing figure's caption
        markdown = self.wheel.fill_page(markdown, page, config)  # @CULPA_WHEEL_URL@, @CULPA_REPOSITORY@
        return culpa_listings.on_page_markdown(markdown, page, config)  # culpa's listings: pt comments

    # A lab's page: its source is the executed notebook (for mkdocs-jupyter), its Markdown the lab's text.
    @event_priority(50)  # before mkdocs-jupyter (0) reads the page's source
    def _lab_source(self, page, *, config, files):
        return self.labs.point_at_executed(page)

    @event_priority(-50)  # after mkdocs-jupyter (0) gave the page its nbconvert renderer
    def _lab_render_cached(self, page, *, config, files):
        return self.labs.cache_render(page, config)

    on_pre_page = CombinedEvent(_lab_source, _lab_render_cached)

    def on_page_read_source(self, *, page, config):
        return self.labs.read_source(page)

    # ---- each page: HTML -------------------------------------------------------------------------------
    def on_page_content(self, html, *, page, config, files):
        html = search_per_language.exclude_code(html)  # the search index keeps prose, not code blocks
        html = self.figures.pictures(html, page, files)  # each figure: its phone drawing on a phone
        html = self.labs.finish_page(html, page, config, files)  # a lab: links, scripts, CSS, alt, download
        lang = _language(config)
        html = page_code.on_page_content(html, page, config, lang)  # the page's code as a .py, linked
        html = report_mistake.on_page_content(html, page, config, lang, self.project.root)  # at its end
        html = run_blocks.on_page_content(html, page, config, self.wheel)  # Run, Stop, Reset under code
        html = exercises.on_page_content(html, page, lang)  # answer field, Check and hints
        html = keep.on_page_content(html, lang)  # Copy link and Reset page, under the title
        html = images.on_page_content(html, page, files)  # every <img> sized; lazy below the first screen
        html = self.formulas.typeset(html, page)  # every formula KaTeX's HTML (a plain copy for search)
        return offscreen.mark_offscreen(html)  # blocks far from the screen skipped by the browser

    @event_priority(100)  # before the search plugin (0) reads the page
    def _search_reads_plain(self, context, *, page, config, nav):
        self.formulas.lend_plain(page)
        self.code_names.lend(page)  # each Python block: only the names its code uses, in that copy
        return context

    @event_priority(-100)  # after the search plugin indexed it, before the theme renders it
    def _page_gets_formulas_back(self, context, *, page, config, nav):
        self.code_names.take_back(page)
        self.formulas.take_back(page)
        return context

    on_page_context = CombinedEvent(_search_reads_plain, _page_gets_formulas_back)

    def on_template_context(self, context, *, template_name, config):
        return self.not_found.link_languages(context, template_name, config)  # 404: switch to its 404

    def on_post_template(self, output, *, template_name, config):
        output = self.alternates.absolute_in_template(output, template_name, config)
        if template_name == localized_404.TEMPLATE:  # a page too: a11y.js's words (the phone's drawer button)
            output = a11y_words.on_post_page(output, localized_404.language(config))
        return self.not_found.keep(output, template_name, config)  # each language's 404 page, for later

    def on_post_page(self, output, *, page, config):
        output = self.alternates.absolute(output, page, config)  # hreflang links as full URLs
        output = a11y_words.on_post_page(output, page_language(page))  # a11y.js's words, the page's language
        output = theme_words.on_post_page(output, page_language(page), page.file.src_uri)  # ¶ and copy words
        output = exercises.on_post_page(output, page_language(page))  # progress.js's words
        return self.explorers.load_scripts(output, page, self.wheel.path)  # each explorer's script, its pages

    # ---- the built site --------------------------------------------------------------------------------
    def _post_build_each_language(self, *, config):
        patches.material_start(config)  # Material's bundle and palette: fewer restyles at start

    @event_priority(-150)  # after the i18n plugin (-100) has built every language into site_dir
    def _post_build_whole_site(self, *, config):
        self.not_found.write(config)  # /404.html (pt) and /en/404.html
        search_per_language.split_index(Path(config.site_dir))  # one index per language, code names merged
        self.alternates.write_sitemaps(config)  # a sitemap.xml beside every page, one per language root
        self.wheel.publish(config)  # <site>/culpa/<wheel>; placeholders filled in what skipped Markdown
        if not _nested_language_build(config):  # once, at the site's root
            credits.publish_licence(self.project.root, Path(config.site_dir))  # <site>/LICENSE.txt
            stylesheets.strip_comments(Path(config.site_dir))  # our stylesheets served without comments
            # last: every page's HTML is final (404s written, placeholders filled); each gets its policy
            content_policy.write_policies(Path(config.site_dir), serve=self.command == "serve")

    on_post_build = CombinedEvent(_post_build_each_language, _post_build_whole_site)


def _language(config) -> str:
    i18n = config.plugins.get("i18n")
    return i18n.current_language if i18n is not None else "pt"


def _nested_language_build(config) -> bool:
    """True while the i18n plugin builds another language than the default, inside the default's build
    (its site_dir is then that language's folder)."""
    i18n = config.plugins.get("i18n")
    return bool(i18n is not None and getattr(i18n, "building", False))
