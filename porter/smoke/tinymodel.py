"""A tiny Llama folder with random weights and a locally trained tokenizer: no hub download.

For the tests and checks of the Hugging Face path (``porter smoke --model DIR``) and the LLaMA-Factory
backend (``--backend llamafactory``), which need a model folder transformers can load: ``config.json``
and weights (``LlamaForCausalLM``, random, seeded) plus a byte-level BPE tokenizer trained on the
shipped Alpaca sample (porter/smoke/data), saved as a ``PreTrainedTokenizerFast`` with bos/eos/pad/unk
tokens.  Needs torch, transformers and tokenizers (which transformers installs).

    python -m porter.smoke.tinymodel DIR      # e.g. in another environment, with PYTHONPATH=porter's root
"""

from __future__ import annotations

import sys
from pathlib import Path

SPECIAL = ("<unk>", "<s>", "</s>", "<pad>")


def build(dest: str | Path, *, vocab_size: int = 512, hidden_size: int = 64, layers: int = 2, seed: int = 0) -> Path:
    """Write the model folder to dest (created); returns it.  The same seed gives the same weights."""
    import torch  # noqa: PLC0415
    import transformers  # noqa: PLC0415
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers  # noqa: PLC0415

    from porter.smoke import data as sdata  # noqa: PLC0415

    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    texts = [sdata.render(r) for r in sdata.load_records()]
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(SPECIAL),
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                       show_progress=False))
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>",
                                                eos_token="</s>", pad_token="<pad>")
    fast.save_pretrained(dest)
    cfg = transformers.LlamaConfig(vocab_size=len(fast), hidden_size=hidden_size, intermediate_size=2 * hidden_size,
                                   num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2,
                                   max_position_embeddings=512, bos_token_id=fast.bos_token_id,
                                   eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id)
    torch.manual_seed(seed)
    transformers.LlamaForCausalLM(cfg).save_pretrained(dest)
    return dest


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m porter.smoke.tinymodel DIR", file=sys.stderr)
        return 2
    print(build(args[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
