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
            f"{DRAG_TEXT}::after {{ content: {css_string(drop)}; font-size: 0.875rem; }}"
            f"{CHIP_ERROR}[data-andrea-reason] {{ font-size: 0; }}"
            f"{CHIP_ERROR}[data-andrea-reason]::after {{ content: attr(data-andrea-reason); font-size: 0.75rem; }}"
            "</style>")


def sizes_css(files: list[tuple[str, int]]) -> str:
    """The style that writes each uploaded file's size (``(name, bytes)``) the language's way beside its name, in
    place of Streamlit's own "1.2MB" (its text set to size 0, the translated one drawn after it)."""
    rules = "".join(f"{CHIP_NAME}[title={css_string(name)}] + div {{ font-size: 0; }}"
                    f"{CHIP_NAME}[title={css_string(name)}] + div::after {{ content: {css_string(human_bytes(size))}; "
                    f"font-size: 0.75rem; }}" for name, size in files)
    return f"<style>{rules}</style>"


CHIP = "[data-testid='stFileChip']"
CHIP_ERROR = f"{CHIP} [role='alert']"  # Streamlit writes "Error: " and its English reason in it


def chip_texts() -> dict[str, str]:
    """What the uploader's chips say, in the reader's language: the delete button's name while a file uploads or
    once it is there ("{name}" stands for the file's name), the retry hint, and the reason of a failed upload by
    the status the server answered (507: the upload guard found no room on its disk; 413: over the size limit;
    anything else: the server failed)."""
    name = {"name": "{name}"}
    return {"browse": _("Choose a file"), "remove": _("Remove {name}", **name),
            "cancel": _("Cancel the upload of {name}", **name), "retry": _("Click to try the upload again"),
            "507": _("The server's disk has no room for this file: nothing was kept. Ask whoever runs the server to "
                     "free some space, or use the checkpoint folder."),
            "413": _("This file is larger than the server takes ({mb:,} MB per file): nothing was kept.",
                     mb=max_upload_mb()),
            "other": _("The server could not receive this file: nothing was kept. Try again; if it fails again, ask "
                       "whoever runs the server to look at its log.")}


def label_script(texts: dict[str, str] | str) -> str:
    """A script that says the uploaders' own English in ``texts`` (``chip_texts``; a plain string: the drop zone
    button's name only): the drop zone button's ``aria-label`` (its own label is hidden by ``uploader_css``, and a
    CSS ``content`` is no accessible name), each chip's delete button and retry hint, and a failed upload's reason
    ("Request failed with status code 507" becomes the sentence for 507), drawn over Streamlit's own text at size 0
    so that React's own nodes stay as it left them. Kept on elements Streamlit draws later (one observer a page)."""
    texts = {"browse": texts} if isinstance(texts, str) else texts
    return ("<script>(() => { const w = window; w.andreaUploadName = " + json.dumps(texts["browse"]).replace("<", "\\u003c")
            + "; w.andreaUploadTexts = " + json.dumps(texts).replace("<", "\\u003c")
            + f"; const sel = \"{DROPZONE} button\", chip = \"{CHIP}\", why = \"[role='alert']\";"
            "const set = (e, a, v) => { if (v !== undefined && e.getAttribute(a) !== v) e.setAttribute(a, v); };"
            "const put = () => { const T = w.andreaUploadTexts;"
            " document.querySelectorAll(sel).forEach(b => set(b, 'aria-label', w.andreaUploadName));"
            " document.querySelectorAll(chip).forEach(c => {"
            "  const n = (c.querySelector(\"[data-testid='stFileChipName']\") || {}).title || '';"
            "  const del = c.querySelector(\"[data-testid='stFileChipDeleteBtn'] button\");"
            "  const busy = c.querySelector(\"[data-testid='stFileChipIconSpinner']\");"
            "  if (del && T.remove) set(del, 'aria-label', (busy ? T.cancel : T.remove).split('{name}').join(n));"
            "  if (c.hasAttribute('title') && T.retry) set(c, 'title', T.retry);"
            "  const a = c.querySelector(why); if (!a || !T.other) return;"
            "  const code = (a.textContent.match(/\\b(507|413)\\b/) || [])[1];"
            "  const text = code ? T[code] : (/too large/i.test(a.textContent) ? T['413'] : T.other);"
            "  set(a, 'data-andrea-reason', text); set(a, 'aria-label', text); });"
            "};"
            "put(); if (!w.andreaUploadObserver) {"  # one observer per page, however often the script runs
            " w.andreaUploadObserver = new MutationObserver(put);"
            " w.andreaUploadObserver.observe(document.body, {childList: true, subtree: true, characterData: true}); }"
            " })();</script>")


def max_upload_mb() -> int:
    """The server's upload limit per file, in MB (.streamlit/config.toml's ``server.maxUploadSize``)."""
    return int(st.get_option("server.maxUploadSize"))


def file_uploader(label: str, **kwargs):
    """``st.file_uploader`` with the drop zone's own texts and the uploaded files' sizes in the reader's language."""
    browse = _("Choose a file")
    drop = _("Drop the files here") if kwargs.get("accept_multiple_files") else _("Drop the file here")
    st.html(uploader_css(browse, _("at most {mb:,} MB per file", mb=max_upload_mb()), drop))
    st.html(label_script(chip_texts()), unsafe_allow_javascript=True)
    got = st.file_uploader(label, **kwargs)
    files = got if isinstance(got, list) else [] if got is None else [got]
    if files:
        st.html(sizes_css([(f.name, f.size) for f in files]))
    return got
