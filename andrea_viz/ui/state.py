"""The keys of the session state that more than one module reads, named once."""

MODEL = "model"  # the chosen model's source: a built-in name or a loaded checkpoint's key
MODEL_WIDGET = "_model"  # the sidebar picker's own key (legacy pages: each page has its own widget)
USER_MODELS = "_user_models"  # key -> Embeddings read from the user's files, this session only
LANGUAGE = "lang"  # a tag of andrea_viz.i18n.LANGUAGES
LANGUAGE_WIDGET = "_lang"
