"""Load a local Hugging Face causal-LM folder with LoRA adapters (transformers + peft, both optional)."""

from __future__ import annotations

import json
from pathlib import Path

from porter.smoke.options import SmokeError, SmokeUsageError

LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
MISSING = ("--model PATH needs the optional packages transformers and peft ({missing} missing): "
           "pip install transformers peft -c constraints.txt, where constraints.txt pins {torch} so pip keeps your torch")


def check_model_folder(path: str | Path) -> Path:
    """A local Hugging Face model folder: a directory with a config.json naming a model type."""
    p = Path(path).expanduser()
    if not p.exists():
        raise SmokeUsageError(f"--model {path}: no such file or folder (give 'tiny' or a local Hugging Face model folder)")
    if not p.is_dir():
        raise SmokeUsageError(f"--model {path}: not a model folder (a file; expected a folder with config.json)")
    cfg = p / "config.json"
    if not cfg.is_file():
        raise SmokeUsageError(f"--model {path}: not a model folder (no config.json)")
    try:
        data = json.loads(cfg.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SmokeUsageError(f"--model {path}: config.json is unreadable ({exc})") from None
    if not isinstance(data, dict) or "model_type" not in data:
        raise SmokeUsageError(f"--model {path}: config.json has no model_type; not a Hugging Face model folder")
    return p


def import_hf():
    missing = []
    mods = {}
    for name in ("transformers", "peft"):
        try:
            mods[name] = __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        from porter.smoke.torchload import installed_torch_version  # noqa: PLC0415

        tv = installed_torch_version()
        raise SmokeError(MISSING.format(missing=" and ".join(missing), torch=f"torch=={tv}" if tv else "your torch version"))
    return mods["transformers"], mods["peft"]


class HFModel:
    """The loaded model and what the training loop needs from it."""

    def __init__(self, model, encode, eos_id: int, vocab_size: int, name: str):
        self.model, self.encode, self.eos_id, self.vocab_size, self.name = model, encode, eos_id, vocab_size, name


def load(path: str | Path, torch, *, lora_rank: int = 8, seed: int = 0) -> HFModel:
    folder = check_model_folder(path)
    transformers, peft = import_hf()
    torch.manual_seed(seed)
    try:
        # fp32 master weights (bf16 comes from autocast); no Hub kernels (transformers 5 defaults to them, and
        # they need the `kernels` package and a download).  Older transformers take torch_dtype instead.
        try:
            model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), dtype=torch.float32, use_kernels=False)
        except TypeError:
            model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), torch_dtype=torch.float32)
    except Exception as exc:  # noqa: BLE001 - any loader failure is a user-facing one-liner
        raise SmokeError(f"--model {path}: transformers cannot load it as a causal LM: {str(exc).splitlines()[0][:200]}") from None
    vocab = int(model.get_input_embeddings().weight.shape[0])
    names = {n.rsplit(".", 1)[-1] for n, _ in model.named_modules()}
    targets = [t for t in LORA_TARGETS if t in names]
    if not targets:
        raise SmokeError(f"--model {path}: none of the LoRA target layers {', '.join(LORA_TARGETS)} exist in this model")
    model = peft.get_peft_model(model, peft.LoraConfig(r=lora_rank, lora_alpha=2 * lora_rank, lora_dropout=0.0,
                                                       target_modules=targets, task_type="CAUSAL_LM"))
    encode, eos = _tokenizer(folder, transformers, vocab)
    return HFModel(model, encode, eos, vocab, folder.name)


def _tokenizer(folder: Path, transformers, vocab: int):
    has_tok = any((folder / f).exists() for f in ("tokenizer.json", "tokenizer.model", "tokenizer_config.json"))
    if has_tok:
        try:
            tok = transformers.AutoTokenizer.from_pretrained(str(folder))
            eos = tok.eos_token_id if tok.eos_token_id is not None else 0
            return (lambda text: tok.encode(text, add_special_tokens=False)), int(eos) % vocab
        except Exception:  # noqa: BLE001 - fall back to bytes below
            pass
    # no tokenizer in the folder (e.g. a randomly initialised test model): bytes modulo the vocabulary
    return (lambda text: [b % vocab for b in text.encode("utf-8")]), (vocab - 1)
