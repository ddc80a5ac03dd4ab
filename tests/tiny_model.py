"""A tiny llama-architecture GGUF with random weights, written with `gguf`: real llama.cpp loads and
runs it in milliseconds. Its answers are meaningless, which is what the repair loop must survive."""

from __future__ import annotations

from pathlib import Path

import numpy as np

EMBEDDING = 64
LAYERS = 2
HEADS = 4
FEED_FORWARD = 128
CONTEXT = 2048
# ChatML, the template Qwen2.5-Coder GGUFs carry, so the chat path is the one real models take
CHAT_TEMPLATE = ("{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}"
                 "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def _vocabulary() -> tuple[list[bytes], list[float], list[int]]:
    """SentencePiece-style: <unk>, <s>, </s>, then the 256 byte tokens, then printable pieces so
    that the model's random answers are text."""
    import gguf

    tokens = [b"<unk>", b"<s>", b"</s>"]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    tokens += [f"<0x{b:02X}>".encode() for b in range(256)]
    types += [gguf.TokenType.BYTE] * 256
    pieces = [chr(c) for c in range(33, 127)] + ["\u2581" + w for w in ("int", "void", "float", "return", "if",
                                                                        "for", "__global__", "hip", "```", "amd")]
    tokens += [p.encode() for p in pieces]
    types += [gguf.TokenType.NORMAL] * len(pieces)
    scores = [0.0] * 3 + [-1000.0] * 256 + [-float(i) for i in range(len(pieces))]
    return tokens, scores, [int(t) for t in types]


def write_tiny_llama(path: Path, seed: int = 0) -> Path:
    import gguf

    rng = np.random.default_rng(seed)
    tokens, scores, types = _vocabulary()
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("cassc-tiny-test")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(EMBEDDING)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(FEED_FORWARD)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(HEADS)
    writer.add_rope_dimension_count(EMBEDDING // HEADS)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_unk_token_id(0)
    writer.add_chat_template(CHAT_TEMPLATE)

    def tensor(name: str, *shape: int, scale: float = 0.02) -> None:
        writer.add_tensor(name, (rng.standard_normal(shape) * scale).astype(np.float32))

    vocabulary = len(tokens)
    tensor("token_embd.weight", vocabulary, EMBEDDING)
    writer.add_tensor("output_norm.weight", np.ones(EMBEDDING, dtype=np.float32))
    tensor("output.weight", vocabulary, EMBEDDING, scale=1.0)
    for layer in range(LAYERS):
        block = f"blk.{layer}"
        writer.add_tensor(f"{block}.attn_norm.weight", np.ones(EMBEDDING, dtype=np.float32))
        writer.add_tensor(f"{block}.ffn_norm.weight", np.ones(EMBEDDING, dtype=np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            tensor(f"{block}.{name}.weight", EMBEDDING, EMBEDDING)
        tensor(f"{block}.ffn_gate.weight", FEED_FORWARD, EMBEDDING)
        tensor(f"{block}.ffn_up.weight", FEED_FORWARD, EMBEDDING)
        tensor(f"{block}.ffn_down.weight", EMBEDDING, FEED_FORWARD)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
