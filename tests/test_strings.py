"""Every word the build shows a reader has one home per language (snippets/sitebuild/strings/), and the
two languages say the same things: the same tables, keys and {placeholders}, and no string left in English
in the pt file."""

from __future__ import annotations

import re
import string

from sitebuild import strings
from sitebuild.project import LANGS

PLACEHOLDER = string.Formatter()


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in PLACEHOLDER.parse(text) if name}


def test_both_languages_have_the_same_tables_keys_and_placeholders():
    pt, en = (strings.of(lang) for lang in LANGS)
    assert pt.keys() == en.keys()
    for table in pt:
        assert pt[table].keys() == en[table].keys(), table
        for key in pt[table]:
            assert _fields(pt[table][key]) == _fields(en[table][key]), f"[{table}] {key}"


def test_the_pt_strings_are_not_left_in_english():
    pt, en = (strings.of(lang) for lang in LANGS)
    # a template of placeholders alone ("{counter}. {dL} = {grad}.") has no words to translate
    same = [f"[{t}] {k}" for t in pt for k in pt[t]
            if pt[t][k] == en[t][k] and re.search("[a-z]{4}", re.sub(r"\{\w+\}", "", pt[t][k]))]
    assert not same, f"left untranslated: {same}"


def test_each_run_button_name_starts_with_its_visible_word():
    """WCAG 2.5.3 (axe's label-content-name-mismatch): a button's accessible name contains the word it
    shows, so a voice user who says "click Reset" reaches it. run_blocks.py shows [run] run/stop/reset on
    the buttons and names them with runN/stopN/resetN."""
    for lang in LANGS:
        s = strings.of(lang)["run"]
        for shown, named in (("run", "runN"), ("stop", "stopN"), ("reset", "resetN")):
            name = s[named].format(n=3)
            assert s[shown].lower() in name.lower(), (
                f"{lang}: the button shows {s[shown]!r} but is named {name!r}; put the shown word in the "
                f"name ([run] {named} in snippets/sitebuild/strings/{lang}.toml)")
