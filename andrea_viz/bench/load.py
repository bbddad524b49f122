"""``python -m andrea_viz bench-load``: what opening a large checkpoint costs, command by command, beside a plain
``safetensors`` read of the same table.

Two checkpoints are written (seeded) to a temporary folder, deleted after:

- a Llama-3-8B-shaped Hugging Face folder: config.json (LlamaForCausalLM, vocab 128,256, hidden 4,096, untied),
  three safetensors shards and ``model.safetensors.index.json`` as ``save_pretrained`` writes them, holding the
  128,256 × 4,096 bfloat16 ``model.embed_tokens.weight`` (shard 1) and ``lm_head.weight`` (shard 3) and a few small
  layer tensors (the other layers are left out: no command reads them);
- a Gemma-3-shaped table: one safetensors file with a 262,144 × 2,560 bfloat16 ``model.embed_tokens.weight`` (no
  config.json: the name rules find it).

Each has a word-level tokenizer.json of its vocabulary's size (the tokenizers package; real Llama-3 and Gemma-3 use
BPE and SentencePiece vocabularies of the same sizes). Every command runs in a fresh process; its wall time is
taken around the process by a small launcher, its peak resident memory (mapped file pages it touched included) from
the launcher's ``getrusage(RUSAGE_CHILDREN)``. Medians of ``repeats`` runs, after one untimed run that leaves the
bytecode cache written. The files are in the page cache (just written); the map cache starts empty for every
projection, so the PCA is computed, never read back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

LLAMA_V, LLAMA_D = 128_256, 4_096
GEMMA_V, GEMMA_D = 262_144, 2_560
WORD, WARM_WORD = "cat", "dog"  # looked up by `neighbors` and by the warm query (both in the tokenizer)
ROOT = Path(__file__).resolve().parents[2]
GOALS = {"info": (1.5, 600), "neighbors": (4.0, 2_000), "project --method pca --n 5000": (6.0, None),
         "warm neighbour query": (0.150, None)}

WARM = r"""
import json, sys, time
import andrea_viz
from andrea_viz.geometry import neighbours
emb = andrea_viz.load(sys.argv[1])
neighbours(emb, sys.argv[2])  # the first query of a session: the table's pages and norms come in
t = time.perf_counter()
q, found = neighbours(emb, sys.argv[3])  # the app's next query, as its page asks it
print(json.dumps({"seconds": time.perf_counter() - t, "first": found[0].token}))
"""

PLAIN = r"""
import sys, time
from safetensors import safe_open
with safe_open(sys.argv[1], framework="pt") as f:
    t = f.get_tensor(sys.argv[2])
    print(float(t.sum()))  # every byte touched: the whole table read and held, as a program that uses it does
"""


def _seeded_bf16(rows: int, d: int, seed: int, block: int = 16_384):
    """(rows, d) torch bfloat16, N(0, 0.02²), made a block of rows at a time (no float32 copy of the whole)."""
    import torch

    g = torch.Generator().manual_seed(seed)
    out = torch.empty(rows, d, dtype=torch.bfloat16)
    for i in range(0, rows, block):
        out[i:i + block] = (torch.randn(min(block, rows - i), d, generator=g) * 0.02).bfloat16()
    return out


def write_tokenizer(folder: Path, size: int) -> Path:
    """A tokenizer.json of ``size`` whole words (WordLevel), the lesson's words first."""
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    first = ["<unk>", "the", WORD, WARM_WORD, "king", "queen", "man", "woman"]
    words = first + [f"w{i}" for i in range(size - len(first))]
    tok = Tokenizer(WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tok.pre_tokenizer = Whitespace()
    tok.save(str(folder / "tokenizer.json"))
    return folder / "tokenizer.json"


def write_llama_folder(folder: Path, V: int = LLAMA_V, d: int = LLAMA_D, seed: int = 0) -> Path:
    """A Llama-3-8B-shaped folder as save_pretrained leaves it (three shards and their index); returns it."""
    import torch
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": V, "hidden_size": d,
              "intermediate_size": 14_336, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
              "max_position_embeddings": 8_192, "rms_norm_eps": 1e-5, "rope_theta": 500_000.0,
              "tie_word_embeddings": False, "bos_token_id": 128_000, "eos_token_id": 128_001, "hidden_act": "silu",
              "torch_dtype": "bfloat16", "transformers_version": "4.40.0.dev0"}
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    kv = d // 4  # 8 of 32 heads for keys and values
    shards = {
        1: {"model.embed_tokens.weight": _seeded_bf16(V, d, seed),
            "model.layers.0.input_layernorm.weight": torch.ones(d, dtype=torch.bfloat16),
            "model.layers.0.self_attn.k_proj.weight": _seeded_bf16(kv, d, seed + 1)},
        2: {"model.layers.15.input_layernorm.weight": torch.ones(d, dtype=torch.bfloat16),
            "model.layers.15.self_attn.v_proj.weight": _seeded_bf16(kv, d, seed + 2)},
        3: {"lm_head.weight": _seeded_bf16(V, d, seed + 3), "model.norm.weight": torch.ones(d, dtype=torch.bfloat16)},
    }
    weight_map, total = {}, 0
    for i, tensors in shards.items():
        name = f"model-{i:05d}-of-{len(shards):05d}.safetensors"
        save_file(tensors, str(folder / name), metadata={"format": "pt"})
        for k, t in tensors.items():
            weight_map[k] = name
            total += t.numel() * t.element_size()
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2, sort_keys=True) + "\n")
    write_tokenizer(folder, V)
    return folder


def write_gemma_table(folder: Path, V: int = GEMMA_V, d: int = GEMMA_D, seed: int = 4) -> Path:
    """A Gemma-3-shaped table: one safetensors file (no config.json) and a tokenizer.json beside it."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    save_file({"model.embed_tokens.weight": _seeded_bf16(V, d, seed)}, str(folder / "model.safetensors"),
              metadata={"format": "pt"})
    write_tokenizer(folder, V)
    return folder / "model.safetensors"


LAUNCH = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # kB: the one child's maximum resident set
print(json.dumps({"wall": wall, "peak_kb": peak, "rc": r.returncode, "out": r.stdout, "err": r.stderr[-2000:]}))
"""


def run_child(argv: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak resident MB, stdout) of one fresh process. It is started by a small launcher (a fresh
    Python of ~15 MB): a child forked from this process would start with this process's resident size as its peak,
    since the kernel keeps the peak across exec."""
    child_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # bytecode cached, as usual
    r = subprocess.run([sys.executable, "-c", LAUNCH, *argv], capture_output=True, text=True, cwd=ROOT,
                       env={**child_env, **(env or {})})
    got = json.loads(r.stdout.strip().splitlines()[-1])
    if got["rc"]:
        raise RuntimeError(f"{' '.join(argv[2:4])}: " + (got["err"].strip().splitlines() or ["failed"])[-1])
    return got["wall"], got["peak_kb"] / 1024, got["out"]


def commands(source: str, out_tsv: str) -> dict[str, list[str]]:
    py = [sys.executable, "-m", "andrea_viz"]
    return {"info": py + ["info", source],
            "neighbors": py + ["neighbors", source, WORD],
            "project --method pca --n 5000": py + ["project", source, "--method", "pca", "--n", "5000", "--out", out_tsv],
            "warm neighbour query": [sys.executable, "-c", WARM, source, WORD, WARM_WORD]}


def measure_checkpoint(source: Path, table_file: Path, table_name: str, repeats: int, scratch: Path) -> list[dict]:
    """One row per command: medians of wall time and peak memory, and the plain read's, for this checkpoint."""
    run_child(commands(str(source), str(scratch / "map.tsv"))["warm neighbour query"])  # not timed: .pyc files written
    plain = [run_child([sys.executable, "-c", PLAIN, str(table_file), table_name]) for _ in range(repeats)]
    plain_s, plain_mb = median(p[0] for p in plain), median(p[1] for p in plain)
    rows = []
    for label, argv in commands(str(source), str(scratch / "map.tsv")).items():
        runs = []
        for r in range(repeats):  # a fresh map cache each run: the projection is computed, never read back
            env = {"ANDREA_VIZ_CACHE_DIR": str(scratch / f"cache-{label[:4]}-{r}")}
            wall, mb, out = run_child(argv, env)
            if label == "warm neighbour query":
                wall = json.loads(out.strip().splitlines()[-1])["seconds"]
            runs.append((wall, mb))
        rows.append({"command": label, "seconds": median(w for w, _ in runs), "peak_mb": median(m for _, m in runs),
                     "plain_s": plain_s, "plain_mb": plain_mb, "goal": GOALS[label]})
    return rows


def format_rows(name: str, rows: list[dict]) -> list[str]:
    lines = []
    for r in rows:
        goal_s, goal_mb = r["goal"]
        goal = f"≤ {goal_s:g} s" + (f", ≤ {goal_mb:,} MB" if goal_mb else "")
        warm = r["command"] == "warm neighbour query"
        secs = f"{r['seconds'] * 1e3:7.0f} ms" if warm else f"{r['seconds']:7.2f} s "
        peak = "      (in process)" if warm else f"{r['peak_mb']:8,.0f} MB"
        ratio = f"{r['seconds'] / r['plain_s']:5.2f}×  {'' if warm else format(r['peak_mb'] / r['plain_mb'], '5.2f') + '×'}"
        lines.append(f"{name:<22} {r['command']:<31} {secs} {peak:>18}   {r['plain_s']:6.2f} s {r['plain_mb']:7,.0f} MB"
                     f"   {ratio:<15} {goal}")
    return lines


def run(repeats: int = 3, folder: str | None = None) -> None:
    with tempfile.TemporaryDirectory(dir=folder) as d:
        d = Path(d)
        t = time.perf_counter()
        llama = write_llama_folder(d / "llama-3-8b-shaped")
        gemma = write_gemma_table(d / "gemma-3-shaped")
        print(f"wrote the checkpoints in {time.perf_counter() - t:.1f} s (not timed below); load average "
              f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores; medians of {repeats} fresh "
              f"processes", flush=True)
        print(f"{'checkpoint':<22} {'command':<31} {'wall':>10} {'peak RSS':>18}   {'plain safetensors read':>20}"
              f"   {'ratio':<15} goal", flush=True)
        for name, source, table_file in (
            ("Llama-3-8B folder", llama, llama / "model-00001-of-00003.safetensors"),
            ("Gemma-3 table", gemma, gemma),
        ):
            for line in format_rows(name, measure_checkpoint(source, table_file, "model.embed_tokens.weight", repeats, d)):
                print(line, flush=True)
        print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
