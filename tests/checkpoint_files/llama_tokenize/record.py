"""Records llama.cpp's own ids (its ``llama-tokenize`` tool) for the GGUF files of every tokenizer model (t5, rwkv,
plamo2, bert, llama, and gpt2 with three pre-tokenizers) that tests/unit/test_gguf_vocab.py writes, into ids.json
beside this script; that test checks the app's ids against them.

The tool is built from the llama-cpp-python source distribution (its vendor/llama.cpp), only that target:

    pip download --no-binary :all: --no-deps llama-cpp-python -d /tmp/lcp && tar xzf /tmp/lcp/*.tar.gz -C /tmp/lcp
    cmake -S /tmp/lcp/llama_cpp_python-*/vendor/llama.cpp -B /tmp/lcp-build -DCMAKE_BUILD_TYPE=Release \\
        -DLLAMA_CURL=OFF -DGGML_OPENMP=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=OFF -DGGML_NATIVE=OFF
    cmake --build /tmp/lcp-build --target llama-tokenize -j2
    python -m tests.checkpoint_files.llama_tokenize.record /tmp/lcp-build/bin/llama-tokenize "llama-cpp-python 0.3.36"

Each file is written exactly as the test writes it (the same helpers, pinned sentencepiece and gguf), and its sha256 is
recorded with the ids, so the test knows it reads the very file the tool read."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def files(tmp: Path) -> dict[str, tuple[Path, list[str]]]:
    """name -> (the GGUF written as the test writes it, the sentences to tokenize)."""
    from tests.checkpoint_files import makers
    from tests.unit import test_gguf_vocab as t

    out = {}
    for name, options in t.T5_OPTIONS.items():
        (tmp / name).mkdir()
        folder = t.sentencepiece_unigram(tmp / name, **options)
        add, V, _sp = t.t5_writer(folder)
        t.write(tmp / name / "t5.gguf", "t5", V, tokenizer=add, rope_key=False)
        out[name] = tmp / name / "t5.gguf", t.T5_SENTENCES
    (tmp / "rwkv").mkdir()
    vocab = tmp / "rwkv" / "rwkv_vocab_v20230424.txt"
    t.rwkv_vocab_file(vocab)
    add, V = t.rwkv_writer(vocab)
    t.write(tmp / "rwkv" / "rwkv.gguf", "rwkv6", V, tokenizer=add, rope_key=False)
    out["rwkv"] = tmp / "rwkv" / "rwkv.gguf", t.RWKV_SENTENCES
    (tmp / "plamo2").mkdir()
    add, V, *_ = t.plamo_writer(t.plamo_folder(tmp / "plamo2"))
    t.write(tmp / "plamo2" / "plamo2.gguf", "plamo2", V, tokenizer=add, rope_key=False)
    out["plamo2"] = tmp / "plamo2" / "plamo2.gguf", t.PLAMO_SENTENCES
    hf = t.minilm_tokenizer()
    tokens, types = t.hf_vocab(hf)
    t.write(tmp / "bert.gguf", "bert", len(tokens), tokenizer=t.bert_writer(tokens, types), positions=16, type_rows=2,
            norm=True, rope_key=False)
    out["bert"] = tmp / "bert.gguf", [*t.SENTENCES, *t.SAMPLES]
    tokens, scores, types = makers.spm_vocab(400)
    t.write(tmp / "llama-spm.gguf", "llama", len(tokens), d=16, tokenizer=t.spm_writer(tokens, scores, types))
    out["llama-spm"] = tmp / "llama-spm.gguf", [*t.SENTENCES, *t.SAMPLES]
    (tmp / "bpe").mkdir()
    bpe = t.byte_level_bpe(tmp / "bpe")
    for arch, pre in (("gpt2", "gpt-2"), ("qwen2", "qwen2"), ("llama", "llama-bpe")):
        t.write(tmp / f"bpe-{pre}.gguf", arch, bpe.get_vocab_size(), tokenizer=t.gpt2_writer(bpe, pre), untied=True)
        out[f"bpe-{pre}"] = tmp / f"bpe-{pre}.gguf", [*t.SENTENCES, *t.SAMPLES, *t.BPE_EXTRA]
    return out


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tokenize(tool: str, gguf: Path, text: str) -> list[int]:
    """The tool's ids for ``text`` given on stdin as it is (no escapes), without BOS/EOS (--no-bos: add_special off)."""
    run = subprocess.run([tool, "-m", str(gguf), "--stdin", "--no-escape", "--ids", "--no-bos", "--log-disable"],
                         input=text.encode("utf-8"), capture_output=True, check=True)
    return json.loads(run.stdout.decode().strip().splitlines()[-1])


def main(tool: str, version: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        record = {"tool": f"llama-tokenize from {version}", "files": {}}
        for name, (gguf, sentences) in files(Path(tmp)).items():
            record["files"][name] = {"sha256": sha256(gguf),
                                     "ids": {s: tokenize(tool, gguf, s) for s in sentences if s}}
    text = json.dumps(record, ensure_ascii=False, indent=1)
    text = re.sub(r"\[([\d,\s-]*)\]", lambda m: "[" + ", ".join(m.group(1).split()).replace(",,", ",") + "]", text)
    (HERE / "ids.json").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:3])
