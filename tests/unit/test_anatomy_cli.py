"""`undertrained`, `dims` and `hubs` as a person runs them: real arguments, JSON keys, exit codes (in this process,
through the `cli` fixture of tests/conftest.py)."""

import json

from tests.checkpoint_files import makers


def test_undertrained_json_ranks_every_id_of_a_grown_andrea_with_its_truth(cli):
    r = cli("undertrained", "andrea-micro", "--top", "557", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert {"indicator", "reference_ids", "ranked", "auroc", "threshold"} <= set(d)
    assert d["indicator"] == "norm" and len(d["reference_ids"]) == 13 and d["auroc"] >= 0.98
    ranked = d["ranked"]
    assert sorted(x["id"] for x in ranked) == list(range(557))
    assert all(a["score"] >= b["score"] for a, b in zip(ranked, ranked[1:], strict=False))
    assert {"id", "token", "score", "corpus_count", "never_in_batch"} <= set(ranked[0])


def test_undertrained_reference_file_replaces_the_automatic_set(cli, tmp_path):
    (tmp_path / "ref.txt").write_text("192\n193\n")
    d = json.loads(cli("undertrained", "andrea-micro", "--reference", str(tmp_path / "ref.txt"), "--json").stdout)
    assert d["reference_ids"] == [192, 193]
    (tmp_path / "bad.txt").write_text("99999\n")
    r = cli("undertrained", "andrea-micro", "--reference", str(tmp_path / "bad.txt"))
    assert r.returncode == 2 and "outside the table" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_undertrained_without_a_tokenizer_gives_ids_and_says_so(cli, tmp_path):
    makers.hf_llama(tmp_path)
    d = json.loads(cli("undertrained", str(tmp_path), "--top", "3", "--json").stdout)
    assert d["reference_ids"] == [] and "could not be found from text" in d["reference"]
    assert all(x["token"] == f"#{x['id']}" for x in d["ranked"]) and d["auroc"] is None


def test_hubs_json_largest_count_first(cli):
    r = cli("hubs", "andrea-micro", "-k", "10", "--top", "557", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    counts = [h["count"] for h in d["hubs"]]
    assert d["exact"] and counts == sorted(counts, reverse=True) and sum(counts) == 557 * 10
    assert set(d["hubs"][0]) == {"id", "token", "count"}


def test_dims_json_shares_grow_with_k(cli):
    d = json.loads(cli("dims", "andrea-micro", "--json").stdout)
    shares = list(d["share_of_top"].values())
    assert shares == sorted(shares) and len(d["dims"]) == 10
