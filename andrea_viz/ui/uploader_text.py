"""Every file uploader in the reader's language: Streamlit writes its own English in the drop zone ("Upload", "1GB per
file • TXT") and has no parameter for it, so those texts are hidden with CSS and translated ones drawn in their place
(the size limit from the server's ``server.maxUploadSize``, written the language's way). Every uploader of the app is
made by ``file_uploader`` here (tests/unit/test_uploader_text.py checks that no other call exists)."""

from __future__ import annotations

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


def max_upload_mb() -> int:
    """The server's upload limit per file, in MB (.streamlit/config.toml's ``server.maxUploadSize``)."""
    return int(st.get_option("server.maxUploadSize"))


def file_uploader(label: str, **kwargs):
    """``st.file_uploader`` with the drop zone's own texts in the reader's language."""
    st.html(uploader_css(_("Choose a file"), _("at most {mb:,} MB per file", mb=max_upload_mb())))
    return st.file_uploader(label, **kwargs)
