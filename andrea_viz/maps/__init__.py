"""The maps wing: a model's token table drawn in 2-D or 3-D (the sample, the methods table and each method, the
trust score, the exports, the map cache, UMAP's compiled code and its child process, the labels' clusters, the
colours, the quality card, the choice of a method, and the map commands)."""
