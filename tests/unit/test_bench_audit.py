"""``bench-audit`` at a small size: it is registered, its tuned copy's inits are what the audit names, and it prints
each of its figures (sizes here are small: the real run is 128,256 × 4,096 and takes minutes)."""

import subprocess
import sys


def test_bench_audit_runs_small_and_prints_every_figure():
    run = subprocess.run([sys.executable, "-m", "andrea_viz", "bench-audit", "--repeats", "1", "--grow-steps", "0",
                          "--rows", "3000", "--d", "128", "--added", "40", "--anchors", "600"], capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "wrote a 3,000 × 128 bf16 base and a tuned copy with 40 added rows" in out
    assert "init right on 40 / 40 added rows" in out
    assert "alignment of 600 anchors × 128" in out
    assert "its rotation, from the 128 × 128 centred xᵀy of the training anchors, side by side over 1 runs: the Gram " \
           "matrix's eigh" in out and "(taken), torch's SVD" in out
    assert "two corpora and two tokenizers (andrea-micro-nl onto andrea-micro):\n    every anchor: 335 anchors" in out
    assert "rows fed in by both runs: " in out  # the anchors whose rows both grown models were fed
    assert "two seeds of one tokenizer, two tokenizers of one corpus: skipped (--grow-steps 0)" in out
