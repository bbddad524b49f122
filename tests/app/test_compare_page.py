"""The Compare page and timelines from the checkpoint folder, under AppTest."""

import numpy as np

import andrea_viz
from andrea_viz.grow import train

from .conftest import button, figures, no_exception, open_page


def metrics(at):
    return {m.label: m.value for m in at.metric}


def test_the_default_is_a_real_pair_and_a_model_against_itself_is_said(app):
    import json

    from andrea_viz.builtin import MICRO_DIR

    at = open_page(app("minilm-l6"), "10_Compare.py")
    assert at.selectbox(key="cmp:A:have").value == "andrea-micro-step0" and at.radio(key="cmp:align").value == "none"
    never_input = json.loads((MICRO_DIR / "run.json").read_text())["unseen_ids"]
    assert metrics(at)["Unmoved rows"] == f"{len(never_input):,}"  # exactly the ids the run never fed in
    assert not at.info
    at.selectbox(key="cmp:A:have").set_value("andrea-micro").run()
    m = metrics(at)
    assert m["Neighbours kept (mean)"] == "100%" and m["Largest drift"] == "0.0000" and m["Unmoved rows"] == "557"
    assert any("A and B are the same model" in i.value for i in at.info)
    at.radio(key="cmp:align").set_value("procrustes").run()
    assert metrics(at)["Unmoved rows"] == "557"  # counted on the tables, not on rotated rows' rounding
    at.selectbox(key="cmp:A:have").set_value("andrea-12m-init").run()
    no_exception(at)  # 4,353 × 384 against 557 × 64: compared on the tokens both hold (tests/app/test_compare_vocab.py)
    assert not at.error and "Anchors" in metrics(at) and "Unmoved rows" not in metrics(at)
    assert any("A (4,353 × 384) and B (557 × 64) have different vocabularies" in i.value for i in at.info)


def test_two_uploaded_snapshots_compared_in_place(app, tmp_path):
    r = train(tmp_path / "run", steps=5, snapshot_at=[0, 5])
    (p0, p5) = (p for _, p in r.snapshots)
    at = open_page(app("minilm-l6"), "10_Compare.py")
    for side, path in (("A", p0), ("B", p5)):
        at.radio(key=f"cmp:{side}:source").set_value("upload").run()
        uploader = [u for u in at.get("file_uploader") if u.key == f"cmp:{side}:file"][0]
        alone = uploader.upload(path.name, path.read_bytes(), "application/octet-stream").run()
        assert any("put a config JSON beside it" in e.value for e in alone.error)  # its sizes are not the family's
        uploader = [u for u in at.get("file_uploader") if u.key == f"cmp:{side}:file"][0]
        uploader.upload(path.name, path.read_bytes(), "application/octet-stream")
        uploader.upload("config.json", (path.parent / "config.json").read_bytes(), "application/json").run()
        no_exception(at)
    assert len(at.session_state["_user_models"]) == 2  # the second upload did not evict the first
    at.radio(key="cmp:align").set_value("none").run()
    no_exception(at)
    first, last = andrea_viz.load(p0), andrea_viz.load(p5)
    unmoved = int((first.token_table == last.token_table).all(axis=1).sum())
    assert metrics(at)["Unmoved rows"] == f"{unmoved:,}" and unmoved == len(r.unseen_ids)
    most = at.dataframe[0].value
    assert list(most["drift"]) == sorted(most["drift"], reverse=True)
    kept = most["neighbours kept (of 10)"].dropna()  # a count of the 10, as the metric's share is a share of them
    assert len(kept) and all(float(v).is_integer() and 0 <= v <= 10 for v in kept)
    assert any("From A (open circle) to B" in f["layout"]["title"]["text"] for f in figures(at))


def test_a_folder_of_snapshots_opens_as_a_timeline_and_a_step_can_be_explored(app, tmp_path, monkeypatch):
    root = tmp_path / "ckpts"
    r = train(root / "run", steps=3, snapshot_at=[0, 1, 3])
    monkeypatch.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(root))
    at = open_page(app("minilm-l6"), "8_Checkpoint.py")
    at.selectbox(key="ckpt:tlrel").set_value("run/").run()
    button(at, "Open as a timeline").click().run()
    no_exception(at)
    assert at.select_slider(key="ckpt-tl:step").options == ["0", "1", "3"]
    assert metrics(at)["Unchanged token rows"] == f"{len(r.unseen_ids):,} / {r.config['vocab_size']:,}"
    at.select_slider(key="ckpt-tl:step").set_value(1).run()
    button(at, "Explore step 1 on every page").click().run()
    no_exception(at)
    emb = at.session_state["_user_models"][at.session_state["model"]]
    np.testing.assert_array_equal(emb.token_table, andrea_viz.load(r.snapshots[1][1]).token_table)
