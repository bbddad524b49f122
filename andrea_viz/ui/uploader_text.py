"""Every file uploader in the reader's language: Streamlit writes its own English in the drop zone ("Upload", "1GB per
file • TXT", "Drag and drop a file here" while a file is dragged over it) and the size of an uploaded file its own
way ("1.2MB" beside the name), with no parameter for any of them, so those texts are hidden with CSS and translated
ones drawn in their place (the size limit from the server's ``server.maxUploadSize`` and each file's size written
the language's way: "1,2 MB" in nl). Every uploader of the app is
made by ``file_uploader`` here (tests/unit/test_uploader_text.py checks that no other call exists)."""

from __future__ import annotations

import json

import streamlit as st

from ..i18n import _
from ..sizing import human_bytes

DROPZONE = "[data-testid='stFileUploaderDropzone']"
INSTRUCTIONS = "[data-testid='stFileUploaderDropzoneInstructions']"
# Streamlit 1.67 draws "Drag and drop a file here" in a span of a div that follows the drop zone's input only while
# a file is dragged over it (the other divs there hold the button, or are the chips with their own test id)
DRAG_TEXT = f"{DROPZONE} > input + div:not([data-testid]):not(:has(button)) > span"
CHIP_NAME = "[data-testid='stFileChipName']"  # the size is written in the div after the name


def css_string(text: str) -> str:
    """``text`` as a CSS string literal: quotes, backslashes, line breaks and < escaped."""
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ").replace("<", "\\3c ")
    return f'"{out}"'


def uploader_css(browse: str, limit: str, drop: str) -> str:
    """The style that hides the uploader's own button label, instructions and drag text and shows ``browse``,
    ``limit`` and ``drop`` (while a file is dragged over the zone) in their place."""
    return (f"<style>{DROPZONE} button [data-testid='stMarkdownContainer'] p {{ display: none; }}"
            f"{DROPZONE} button [data-testid='stMarkdownContainer']::after {{ content: {css_string(browse)}; }}"
            f"{INSTRUCTIONS} > * {{ display: none; }}"
            f"{INSTRUCTIONS}::after {{ content: {css_string(limit)}; font-size: 0.875rem; }}"
            f"{DRAG_TEXT} {{ font-size: 0; }}"
            f"{DRAG_TEXT}::after {{ content: {css_string(drop)}; font-size: 0.875rem; }}</style>")


def sizes_css(files: list[tuple[str, int]]) -> str:
    """The style that writes each uploaded file's size (``(name, bytes)``) the language's way beside its name, in
    place of Streamlit's own "1.2MB" (its text set to size 0, the translated one drawn after it)."""
    rules = "".join(f"{CHIP_NAME}[title={css_string(name)}] + div {{ font-size: 0; }}"
                    f"{CHIP_NAME}[title={css_string(name)}] + div::after {{ content: {css_string(human_bytes(size))}; "
                    f"font-size: 0.75rem; }}" for name, size in files)
    return f"<style>{rules}</style>"


def label_script(browse: str) -> str:
    """A script that names every drop zone's button ``browse`` for screen readers (``aria-label``): its own label is
    hidden by ``uploader_css`` and a CSS ``content`` is no accessible name. Kept on buttons Streamlit draws later."""
    return ("<script>(() => { const w = window; w.andreaUploadName = " + json.dumps(browse).replace("<", "\\u003c")
            + f"; const sel = \"{DROPZONE} button\";"
            "const put = () => document.querySelectorAll(sel).forEach(b => {"
            " if (b.getAttribute('aria-label') !== w.andreaUploadName) b.setAttribute('aria-label', w.andreaUploadName); });"
            "put(); if (!w.andreaUploadObserver) {"  # one observer per page, however often the script runs
            " w.andreaUploadObserver = new MutationObserver(put);"
            " w.andreaUploadObserver.observe(document.body, {childList: true, subtree: true}); } })();</script>")


def max_upload_mb() -> int:
    """The server's upload limit per file, in MB (.streamlit/config.toml's ``server.maxUploadSize``)."""
    return int(st.get_option("server.maxUploadSize"))


def file_uploader(label: str, **kwargs):
    """``st.file_uploader`` with the drop zone's own texts and the uploaded files' sizes in the reader's language."""
    browse = _("Choose a file")
    drop = _("Drop the files here") if kwargs.get("accept_multiple_files") else _("Drop the file here")
    st.html(uploader_css(browse, _("at most {mb:,} MB per file", mb=max_upload_mb()), drop))
    st.html(label_script(browse), unsafe_allow_javascript=True)
    got = st.file_uploader(label, **kwargs)
    files = got if isinstance(got, list) else [] if got is None else [got]
    if files:
        st.html(sizes_css([(f.name, f.size) for f in files]))
    return got
