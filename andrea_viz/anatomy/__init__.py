"""Inside the token table: rows that never trained, dimensions that dominate, and hubs.

- ``reference``: the ids a tokenizer cannot produce from text (found from the tokenizer, or read from a file);
- ``undertrained``: Magikarp's indicators (Land & Bartolo 2024), a threshold, a ranked list, AUROC;
- ``truth``: what a Grow run knows for certain (corpus counts, ids never in a batch), shown beside a score;
- ``dims``: per-dimension moments and each dimension's share of the average cosine; tables without the top k;
- ``hubs``: k-occurrence, exact and blocked, over the whole table.
"""
