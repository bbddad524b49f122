"""Every file uploader in the reader's language: Streamlit writes its own English in the drop zone ("Upload", "1GB per
file • TXT") and has no parameter for it, so those texts are hidden with CSS and translated ones drawn in their place
(the size limit from the server's ``server.maxUploadSize``, written the language's way). Every uploader of the app is
made by ``file_uploader`` here (tests/unit/test_uploader_text.py checks that no other call exists)."""

from __future__ import annotations

import json

import streamlit as st

from ..i18n import _

DROPZONE = "[data-testid='stFileUploaderDropzone']"
INSTRUCTIONS = "[data-testid='stFileUploaderDropzoneInstructions']"


def css_string(text: str) -> str:
    """``text`` as a CSS string literal: quotes, backslashes, line breaks and < escaped."""
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ").replace("<", "\\3c ")
    return f'"{out}"'


def uploader_css(browse: str, limit: str) -> str:
    """The style that hides the uploader's own button label and instructions and shows ``browse`` and ``limit``."""
    return (f"<style>{DROPZONE} button [data-testid='stMarkdownContainer'] p {{ display: none; }}"
            f"{DROPZONE} button [data-testid='stMarkdownContainer']::after {{ content: {css_string(browse)}; }}"
            f"{INSTRUCTIONS} > * {{ display: none; }}"
            f"{INSTRUCTIONS}::after {{ content: {css_string(limit)}; font-size: 0.875rem; }}</style>")


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
    """``st.file_uploader`` with the drop zone's own texts in the reader's language."""
    browse = _("Choose a file")
    st.html(uploader_css(browse, _("at most {mb:,} MB per file", mb=max_upload_mb())))
    st.html(label_script(browse), unsafe_allow_javascript=True)
    return st.file_uploader(label, **kwargs)
