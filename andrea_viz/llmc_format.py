"""llm.c's file headers (train_gpt2.py's write_model and write_tokenizer): 256 little-endian int32."""

MODEL_MAGIC = 20240326  # header: magic, version (3 fp32, 5 bf16), maxT, V, L, H, C, Vp
TOKENIZER_MAGIC = 20240328  # header: magic, version (1, or 2 with the EOT id at [3]), token count
HEADER_INTS = 256
HEADER_BYTES = HEADER_INTS * 4
