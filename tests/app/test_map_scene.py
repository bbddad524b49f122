"""The Projection page prepares its map's scene (``maps.scene``) once per view, whichever renderer draws it: the
plotly map, the canvas frame and deck.gl, with and without labelled regions and lines."""

from andrea_viz.maps import scene as scene_module

from .conftest import no_exception, open_page


def test_each_view_of_the_map_builds_one_scene_whichever_renderer_draws_it(app, monkeypatch):
    built = []
    real = scene_module.Scene.__init__

    def counted(self, *args, **kwargs):
        built.append(kwargs.get("lines_from"))
        real(self, *args, **kwargs)

    monkeypatch.setattr(scene_module.Scene, "__init__", counted)
    at = open_page(app("andrea-micro"), "5_Projection.py")
    assert len(built) == 1  # the first view: plotly (a small map), lines to the query's true nearest
    at.checkbox(key="proj:labels").check().run()
    no_exception(at)
    assert len(built) == 2
    for renderer in ("deck", "canvas", "plotly"):
        at.radio(key="proj:renderer").set_value(renderer).run()
        no_exception(at)
        assert len(built) == 3 + ("deck", "canvas", "plotly").index(renderer), renderer
    assert all(b is not None for b in built)  # every view drew the lines from the same scene
