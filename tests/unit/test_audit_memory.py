"""The audit of two memory-mapped tables keeps less than one table resident at its peak: each pass lets go of the
file pages it has read (``file_pages.release_pages``), where they would otherwise stay mapped until the audit ends (the
issue's bound: a 128,256 × 4,096 bf16 pair in 2 GB, which is the two tables' own size)."""

import json
import subprocess
import sys

from andrea_viz.bench.audit import CHILD, write_pair

ROWS, D = 65_536, 1_024  # 128 MiB of bf16 per table


def test_the_audits_peak_holds_less_than_one_of_its_two_tables(tmp_path):
    kinds = write_pair(tmp_path, ROWS, D, 40)
    run = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "base"), str(tmp_path / "tuned")],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["inits"] == kinds
    table = ROWS * D * 2
    assert out["peak"] < table, f"peak {out['peak'] / 2**20:.0f} MiB beyond the start; one table is {table / 2**20:.0f} MiB"
