"""Untrusted text made inert, files sized before they are read, and inputs bounded (issue: no markup, no bomb)."""

from __future__ import annotations

import errno
import io
import os
import re
import string
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from markdown_it import MarkdownIt

from andrea_viz import safe_text
from andrea_viz.checkpoints import load_path
from andrea_viz.checkpoints.folder import inside
from andrea_viz.errors import CheckpointError, QueryError
from tests.checkpoint_files.hostile import HOSTILE

MD = MarkdownIt("commonmark")
ROOT = Path(__file__).resolve().parents[2]
# remark-gfm finds autolink literals in the text after escapes are undone (mdast-util-gfm-autolink-literal's
# regular expressions; JavaScript's \w is ASCII); remark-math makes math of what lies between unescaped $
GFM_URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.IGNORECASE | re.ASCII)
GFM_EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.ASCII)
MARKUP = MarkdownIt("commonmark").disable("text_join")  # keeps escaped characters as tokens of their own
# a value from outside that tries every kind of live markup Streamlit's markdown has
ATTACK = ("https://evil.invalid/x www.evil.invalid a@evil.invalid $\\color{red}{RED}$ [x](https://evil.invalid) "
          "<b>x</b> <https://evil.invalid/y> ![i](https://evil.invalid/i.png) :red[RED] `tick`")


def live_markup(body: str) -> list[str]:
    """What Streamlit's markdown (react-markdown, remark-gfm, remark-math) would make live in ``body``: links and
    images (their targets), raw HTML, GFM autolink literals, and inline math (text between two unescaped $
    outside code spans)."""
    found = []
    for block in MARKUP.parse(body):
        if block.type == "html_block":
            found.append("html: " + block.content)
        if block.type != "inline":
            continue
        runs, run, live = [], [], []
        for t in block.children:
            if t.type in ("text", "text_special", "softbreak"):
                run.append(t.content or " ")
                live.append(t.content if t.type == "text" else (t.content or " ").replace("$", "\0"))
                continue
            runs.append("".join(run))
            run = []
            live.append("\0")
            if t.type in ("link_open", "image"):
                found.append("link: " + str(t.attrs.get("href") or t.attrs.get("src")))
            elif t.type == "html_inline":
                found.append("html: " + t.content)
        runs.append("".join(run))
        for text in runs:
            found += ["autolink: " + m.group(0) for m in (*GFM_URL.finditer(text), *GFM_EMAIL.finditer(text))]
        found += ["math: " + m.group(1) for m in re.finditer(r"\$+([^$]+)\$+", "".join(live))]
    return found


def hostile_markup(body: str) -> list[str]:
    """The live markup in ``body`` that a hostile value brought (it names evil.invalid, or colours the text)."""
    return [f for f in live_markup(body) if any(w in f for w in ("evil", "color", "RED", "<b>"))]


def test_the_markup_finder_sees_what_streamlit_would_make_live():
    """The finder itself, on the unescaped attack: every kind is found (and nothing in code or escaped)."""
    kinds = {f.split(":")[0] + ":" + f.split(" ", 1)[1][:5] for f in live_markup(ATTACK)}
    assert {"autolink:https", "autolink:www.e", "autolink:a@evi", "math:\\colo", "link:https", "html:<b>"} <= kinds, kinds
    assert live_markup(r"`https://evil.invalid $x$` \$y\$") == []
    assert live_markup(r"https\:\/\/evil\.invalid") == ["autolink: https://evil.invalid"]  # escapes do not stop it


@pytest.mark.parametrize("text", [ATTACK, "HTTPS://EVIL.INVALID", "WWW.evil.invalid", "x.y+z@evil.invalid",
                                  "mailto:a@evil.invalid", "(www.evil.invalid)", "wwww.evil.invalid",
                                  "see http://evil.invalid.", "x a@b@evil.invalid"])
def test_escaped_text_has_no_live_autolink_link_or_math(text):
    assert live_markup(text.replace("`tick`", "")), text  # unescaped, each of them is live
    assert live_markup(safe_text.md(text, limit=None)) == [], safe_text.md(text, limit=None)


@pytest.mark.parametrize("text", HOSTILE + ["*a* _b_ `c` <d> [e](f) ![g](h) \\ | ~ # + - . !"])
def test_escaped_markdown_renders_as_the_text_itself(text):
    html = MD.render(safe_text.md(text, limit=None))
    for tag in ("<a ", "<img", "<em>", "<strong>", "<code>", "<iframe", "<script", "<h1>", "<object"):
        assert tag not in html, (tag, html)
    # the visible text is the cleaned string, character for character (entities decoded)
    visible = MD.parseInline(safe_text.md(text, limit=None))[0].children
    shown = "".join(t.content for t in visible if t.type == "text")
    assert shown.replace(safe_text.WORD_JOINER, "") == safe_text.clean(text, limit=None)  # the joiners are invisible


@pytest.mark.parametrize("text", HOSTILE + ["` `", "``", " lead", "trail "])
def test_a_code_span_holds_the_text_exactly(text):
    html = MD.renderInline(safe_text.md_code(text, limit=None))
    assert html.count("<code>") == 1 and html.startswith("<code>") and html.endswith("</code>"), html
    inner = MD.parseInline(safe_text.md_code(text, limit=None))[0].children[0].content
    assert inner == safe_text.clean(text, limit=None)


def test_plot_text_shows_html_as_typed_and_names_direction_and_control_characters():
    assert safe_text.plot('<a href="x">cat</a> & <b>') == '&lt;a href="x"&gt;cat&lt;/a&gt; &amp; &lt;b&gt;'
    assert safe_text.plot("\u202eevil\x00\n") == "U+202Eevil␀↵"
    assert safe_text.plot("x" * 5000).endswith("…") and len(safe_text.plot("x" * 5000)) == safe_text.LIMIT + 1
    arr = safe_text.plot_array(["cat", "<b>", "x" * 300])
    assert list(arr) == ["cat", "&lt;b&gt;", "x" * safe_text.LIMIT + "…"]


def _bomb(path: Path, method: int, rows: int = 65_536, d: int = 1024) -> None:
    """An .npz whose one member declares a (rows, d) float32 table of zeros, as zipfile compresses it."""
    hdr = io.BytesIO()
    np.lib.format.write_array_header_1_0(hdr, {"descr": "<f4", "fortran_order": False, "shape": (rows, d)})
    with zipfile.ZipFile(path, "w", compression=method) as z, z.open("wte.npy", "w", force_zip64=True) as f:
        f.write(hdr.getvalue())
        chunk = bytes(2**22)
        for _ in range(rows * d * 4 // len(chunk)):
            f.write(chunk)


def test_a_bzip2_npz_bomb_is_refused_in_under_a_second(tmp_path):
    _bomb(tmp_path / "bomb.npz", zipfile.ZIP_BZIP2)
    assert (tmp_path / "bomb.npz").stat().st_size < 2_000  # 256 MB of zeros in about a kilobyte
    t = time.perf_counter()
    with pytest.raises(CheckpointError, match="bzip2"):
        load_path(tmp_path / "bomb.npz")
    assert time.perf_counter() - t < 1.0


def test_a_deflated_npz_bomb_is_refused_by_its_ratio_before_reading(tmp_path):
    _bomb(tmp_path / "bomb.npz", zipfile.ZIP_DEFLATED, rows=32_768)
    t = time.perf_counter()
    with pytest.raises(CheckpointError, match="does not compress like that"):
        load_path(tmp_path / "bomb.npz")
    assert time.perf_counter() - t < 1.0


def test_a_real_compressed_npz_still_opens(tmp_path):
    rng = np.random.default_rng(0)
    np.savez_compressed(tmp_path / "t.npz", wte=rng.standard_normal((20_000, 1024)).astype(np.float32))
    assert load_path(tmp_path / "t.npz").token_table.shape == (20_000, 1024)


def test_tables_larger_than_the_bound_are_refused_from_their_shapes(tmp_path, monkeypatch):
    np.save(tmp_path / "t.npy", np.zeros((100, 8), np.float32))
    monkeypatch.setenv("ANDREA_VIZ_MAX_MODEL_BYTES", "3000")
    with pytest.raises(CheckpointError, match="at most 3,000 bytes per model"):
        load_path(tmp_path / "t.npy")
    monkeypatch.setenv("ANDREA_VIZ_MAX_MODEL_BYTES", "3200")
    assert load_path(tmp_path / "t.npy").vocab_size == 100


def test_grow_refuses_a_fifo_and_a_device_as_corpus(cli, tmp_path):
    from andrea_viz.grow.trainer import read_corpus_file

    os.mkfifo(tmp_path / "fifo")
    for path, kind in ((tmp_path / "fifo", "a FIFO"), ("/dev/zero", "a device"), (tmp_path, "a folder")):
        t = time.perf_counter()
        with pytest.raises(QueryError, match=kind):
            read_corpus_file(path)
        assert time.perf_counter() - t < 1.0
    r = cli("grow", "--corpus", str(tmp_path / "fifo"), "--out", str(tmp_path / "run"))
    assert r.returncode == 2 and "is a FIFO" in r.stderr


@pytest.mark.parametrize("raw", ["²", "-1", "2000000", "1e3", " 5", "9" * 50_000, "٣"])
def test_an_address_integer_outside_its_range_or_form_is_refused(raw):
    from andrea_viz.ui.url import int_in

    with pytest.raises(ValueError):
        int_in(0, 1_000_000)(raw)
    assert int_in(0, 1_000_000)("42") == 42


def test_a_huge_id_or_word_is_refused_before_it_is_tokenized():
    import andrea_viz
    from andrea_viz.geometry import resolve_ids

    emb = andrea_viz.load("andrea-120m-init")
    t = time.perf_counter()
    for q in ("#" + "9" * 50_000, "a" * 100_000):
        with pytest.raises(QueryError):
            resolve_ids(emb, q)
    assert time.perf_counter() - t < 0.5


def test_files_beside_a_folder_model_must_lie_inside_the_checkpoint_folder(tmp_path):
    root, outside = tmp_path / "ckpts", tmp_path / "secret"
    (root / "bert").mkdir(parents=True)
    outside.mkdir()
    (outside / "passwords.txt").write_text("root:hunter2\n")
    np.save(root / "bert" / "t.npy", np.zeros((4, 4), np.float32))
    (root / "bert" / "vocab.txt").symlink_to(outside / "passwords.txt")
    for rel in ("bert", "bert/t.npy"):
        with pytest.raises(CheckpointError, match="links to a file outside the checkpoint folder") as exc:
            inside(root, rel)
        assert str(tmp_path) not in str(exc.value)  # no server path in the sentence
    with pytest.raises(CheckpointError) as exc:
        inside(root, "../../etc/passwd")
    assert "resolves outside the checkpoint folder" in str(exc.value) and str(tmp_path) not in str(exc.value)


def test_a_tokenizer_found_outside_the_confining_folder_is_not_read(tmp_path):
    """nanoGPT's meta.pkl is looked for in the run folder's parent: a model opened from the checkpoint folder
    (or an upload) must not read it from outside."""
    from tests.checkpoint_files import makers

    meta = makers.nanogpt_char_prepare(tmp_path / "data" / "shakespeare_char", "First Citizen: speak, speak.\n" * 8)
    (tmp_path / "out").mkdir()
    makers.nanogpt_ckpt(tmp_path / "out" / "ckpt.pt", vocab_size=meta["vocab_size"], dataset="shakespeare_char")
    opened = load_path(tmp_path / "out" / "ckpt.pt")
    assert opened.token(meta["stoi"]["F"]) == "F"
    confined = load_path(tmp_path / "out" / "ckpt.pt", confine=tmp_path / "out")
    assert confined.token(meta["stoi"]["F"]) == f"#{meta['stoi']['F']}"


def test_the_sweeper_removes_only_the_folders_of_sessions_that_ended(tmp_path):
    from andrea_viz.ui import session_files

    me = os.getpid()
    for sid in ("alive", "gone"):
        (tmp_path / str(me) / sid / "upload_x").mkdir(parents=True)
    (tmp_path / "999999999" / "old" / "run").mkdir(parents=True)  # a server that no longer runs
    ran = []
    session_files._at_end["gone"] = [lambda: ran.append("cancelled")]
    removed = session_files.sweep(knows=lambda sid: sid == "alive", base=tmp_path, pid=me)
    assert removed == ["gone"] and ran == ["cancelled"]
    assert (tmp_path / str(me) / "alive" / "upload_x").is_dir()
    assert not (tmp_path / str(me) / "gone").exists() and not (tmp_path / "999999999").exists()


def test_a_large_table_peaks_within_one_and_a_half_times_its_size(tmp_path):
    """A table above the derived-copy limit, opened and used as the Home, Lookup and Neighbours pages do, in a
    fresh process: the peak resident set (file pages included) stays within 1.5× the table after every step."""
    from andrea_viz.bench.memory import peaks, write_table
    from andrea_viz.model import DERIVED_COPY_MAX

    rows, d = 2 * DERIVED_COPY_MAX // (4 * 1024), 1024  # 512 MB: fixed-size work buffers count for little
    write_table(tmp_path / "big.npy", rows, d)
    out = peaks(tmp_path / "big.npy")
    assert out["table"] == rows * d * 4
    assert max(out["peaks"].values()) <= 1.5, out["peaks"]


def test_a_pytorch_archive_with_compressed_members_is_refused_unread(tmp_path):
    import torch

    torch.save({"wte": torch.randn(10, 4)}, tmp_path / "m.pt")
    assert load_path(tmp_path / "m.pt").vocab_size == 10
    with zipfile.ZipFile(tmp_path / "m.pt") as zi, zipfile.ZipFile(tmp_path / "c.pt", "w", zipfile.ZIP_DEFLATED) as zo:
        for info in zi.infolist():
            zo.writestr(info.filename, zi.read(info))
    with pytest.raises(CheckpointError, match="compressed members"):
        load_path(tmp_path / "c.pt")


def test_expired_disconnected_sessions_are_let_go_of(monkeypatch):
    """Streamlit's store of disconnected sessions keeps an expired one until it is next written to: the sweeper drops
    them (here a MemorySessionStorage with a clock we move)."""
    import threading
    from types import SimpleNamespace

    from streamlit.runtime import Runtime
    from streamlit.runtime.memory_session_storage import MemorySessionStorage

    from andrea_viz.ui import session_files

    now = [0.0]
    storage = MemorySessionStorage(ttl_seconds=20)
    storage._cache._timer = lambda: now[0]
    for sid in ("a", "b"):
        storage.save(SimpleNamespace(session=SimpleNamespace(id=sid)))
    manager = SimpleNamespace(_session_storage=storage, _storage_lock=threading.Lock())
    monkeypatch.setattr(Runtime, "exists", staticmethod(lambda: True))
    monkeypatch.setattr(Runtime, "instance", staticmethod(lambda: SimpleNamespace(_session_mgr=manager)))
    assert session_files.forget_expired() == 0
    now[0] = 21.0
    assert session_files.forget_expired() == 2
    assert session_files.forget_expired() == 0


def test_messages_call_a_file_what_the_user_calls_it_and_leave_other_words_alone(tmp_path):
    """load_path's name= renames the file's own parameters (the path, a path inside it, its bare name) and takes the
    server's absolute path out of any text; a word that merely contains the file's name is not rewritten."""
    from andrea_viz.checkpoints import said_as
    from andrea_viz.i18n import Msg

    path = tmp_path / "model"
    m = said_as(Msg("{name}: expected {expected}; {detail}", name="model", expected="model.safetensors or model.bin",
                    detail=f"cannot open {path}/x.bin"), path, "my upload/model-v2")
    assert m.params == {"name": "model-v2", "expected": "model.safetensors or model.bin",
                        "detail": "cannot open my upload/model-v2/x.bin"}
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text("{not json")
    (folder / "model.safetensors").write_bytes(b"")
    with pytest.raises(CheckpointError) as err:
        load_path(folder, name="checkpoints/model")
    text = str(err.value)
    assert "checkpoints/model/config.json is not valid JSON" in text and str(tmp_path) not in text


def _hostile_params(msgid: str) -> dict:
    """A hostile value for each placeholder of ``msgid``, escaped as the UI escapes it: ``in_code`` where every
    language puts it inside a code span the message opens (an odd number of backticks before it), ``md``
    elsewhere; a number where some language's format needs one."""
    from andrea_viz.i18n import LANGUAGES, Msg, translate

    specs: dict[str, set[str]] = {}
    in_code: dict[str, bool] = {}
    for text in {translate(msgid, lang) for lang in LANGUAGES}:
        before = ""
        for literal, field, spec, _conversion in string.Formatter().parse(text):
            before += literal
            if field is None:
                continue
            if not re.fullmatch(r"\w+", field):
                return {}  # not a template (math braces): it is drawn as it is, with no parameter to attack
            specs.setdefault(field, set()).add(spec or "")
            in_code[field] = in_code.get(field, True) and before.count("`") % 2 == 1
    params = {}
    for field, wanted in specs.items():
        value = next(v for v in (ATTACK, 12_345, 0.5) if all(_fits(v, spec) for spec in wanted))
        escape = safe_text.in_code if in_code[field] else safe_text.md
        params[field] = Msg("{x}", x=value).map_strings(escape).params["x"]
    return params


def _fits(value, spec: str) -> bool:
    try:
        format(value, spec)
        return True
    except (ValueError, TypeError):
        return False


def test_no_message_template_lets_a_hostile_parameter_become_live_markup():
    """Every msgid of the catalogue, in every language, with every parameter a hostile value escaped as the UI
    escapes it (tr_md / md): the markdown holds no live autolink, link, raw HTML or math that the value brought.
    (A ``{x!r}`` in a template doubled md()'s backslashes and let $…$ through as KaTeX.)"""
    from andrea_viz.catalogs import extract
    from andrea_viz.i18n import LANGUAGES, render

    bad, templates = [], 0
    for msgid in extract():
        if "{" not in msgid or "%{" in msgid:  # plotly's own %{x} templates are never markdown
            continue
        params = _hostile_params(msgid)
        templates += bool(params)
        for lang in LANGUAGES:
            body = render(msgid, params, lang)
            live = hostile_markup(body)
            if live:
                bad.append((lang, msgid[:80], live[:2]))
    assert templates > 400 and not bad, (templates, bad[:10])


@pytest.mark.parametrize("raw", ["", "2", "yes", "\x00", "1\x00", "x" * 300, "https://evil.invalid/x"])
def test_an_address_value_that_a_parser_raises_anything_on_is_refused(raw):
    """url's one rule: whatever the parser raises (KeyError, OSError, ...), a NUL or an over-long value is refused."""
    from andrea_viz.ui.url import flag, parsed

    assert parsed(raw, flag) == (False, None)
    for error in (KeyError, OSError, RuntimeError, IndexError):
        def parse(raw, error=error):
            raise error(raw)
        assert parsed("1", parse) == (False, None)
    assert parsed("1", flag) == (True, True) and parsed("0", flag) == (True, False)
    assert parsed("b", str, allowed=("a",)) == (False, None) and parsed("a", str, allowed=("a",)) == (True, "a")


def test_the_folder_resolver_refuses_nul_long_names_loops_and_system_errors_with_a_sentence(tmp_path, monkeypatch):
    """No ValueError, OSError (errno 36) or RuntimeError (a symlink loop) leaves inside(), and no sentence names
    the server's path."""
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    cases = {"a\x00b": "holds a NUL character", "x" * 300: "too long for a path", "é" * 150: "too long for a path",
             "/".join(["y" * 250] * 5): "too long for a path", "/".join(["y" * 250] * 3): "does not exist",
             "loop": "the system said ELOOP", "loop/x": "the system said ELOOP"}
    for rel, said in cases.items():
        with pytest.raises(CheckpointError, match=said) as exc:
            inside(tmp_path, rel)
        assert str(tmp_path) not in str(exc.value)

    def too_long(self, strict=False):
        raise OSError(errno.ENAMETOOLONG, "File name too long", str(self))

    monkeypatch.setattr(Path, "resolve", too_long)
    with pytest.raises(CheckpointError, match="the system said ENAMETOOLONG") as exc:
        inside(tmp_path, "model.npz")
    assert str(tmp_path) not in str(exc.value)
