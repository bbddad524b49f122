"""The Projection page refuses a map too large for its method before it starts, in the reader's language."""

from .conftest import no_exception, open_page


def test_a_table_too_large_for_umap_is_one_sentence_on_the_page_in_the_readers_language(app, monkeypatch):
    from andrea_viz.maps import methods, project

    def never(*a, **k):
        raise AssertionError("the map was started")

    monkeypatch.setitem(methods.MOST_POINTS, "umap", 500)
    monkeypatch.setattr(project, "build_sample", never)
    at = open_page(app("andrea-micro", {"method": "umap", "n": "all", "lang": "nl", "seed": "4244"}), "5_Projection.py")
    no_exception(at)
    errors = [e.value for e in at.error]
    assert any(e.startswith("UMAP brengt hier hoogstens 500 punten in kaart en deze kaart heeft er 557: kies een "
                            "steekproef van hoogstens 500 tokens, of PCA") for e in errors), errors
