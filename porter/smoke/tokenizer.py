"""Byte-level tokenizer: needs no download and no vocabulary file.

Ids 0..255 are the UTF-8 bytes; three specials follow.
"""

from __future__ import annotations

BOS = 256
EOS = 257
PAD = 258
VOCAB_SIZE = 259


class ByteTokenizer:
    vocab_size = VOCAB_SIZE
    bos_id = BOS
    eos_id = EOS
    pad_id = PAD

    def encode(self, text: str, *, bos: bool = False, eos: bool = False) -> list[int]:
        ids = list(text.encode("utf-8"))
        if bos:
            ids.insert(0, BOS)
        if eos:
            ids.append(EOS)
        return ids

    def decode(self, ids: list[int]) -> str:
        return bytes(i for i in ids if 0 <= i < 256).decode("utf-8", errors="replace")
