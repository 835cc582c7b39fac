"""--model PATH: the same loop on a local Hugging Face model folder (transformers + peft, optional).

Skipped unless both are importable; `scripts/setup.sh --test` (and so CI) installs them, with torch held at the
version already installed. The model is a random tiny Llama the test builds: nothing is downloaded.
"""

import json

import pytest

transformers = pytest.importorskip("transformers")
pytest.importorskip("peft")
torch = pytest.importorskip("torch")

from porter.smoke import SmokeError, SmokeOptions, report as srep, run_smoke  # noqa: E402


@pytest.fixture(scope="module")
def tiny_hf_llama(tmp_path_factory):
    # the builder the LLaMA-Factory test uses too: random weights, a BPE tokenizer trained on the Alpaca sample
    from porter.smoke import tinymodel

    return tinymodel.build(tmp_path_factory.mktemp("tiny-llama"))


def test_the_tiny_model_folder_loads_with_its_tokenizer(tiny_hf_llama):
    tok = transformers.AutoTokenizer.from_pretrained(tiny_hf_llama)
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_hf_llama)
    ids = tok("Give three tips for staying healthy.")["input_ids"]
    assert 1 < len(ids) < 30 and tok.decode(ids) == "Give three tips for staying healthy."  # BPE merges, lossless
    assert (tok.eos_token, tok.pad_token) == ("</s>", "<pad>") and model.config.vocab_size == len(tok)
    assert model.config.eos_token_id == tok.eos_token_id


def test_lora_loop_on_a_random_tiny_hf_llama(tiny_hf_llama):
    lines = []
    rep = run_smoke(SmokeOptions(device="cpu", model=str(tiny_hf_llama), steps=8, batch_size=2, seq_len=64, lr=5e-3),
                    emit=lines.append)
    assert srep.validate(rep) == []
    assert rep["engine"] == "hf" and rep["steps_done"] == 8 and len(lines) == 8
    assert 0 < rep["params_trainable"] < rep["params_total"]
    assert rep["loss_last"] < rep["loss_first"]


def test_folder_transformers_cannot_load_is_one_line(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "no-such-architecture"}))
    with pytest.raises(SmokeError) as err:
        run_smoke(SmokeOptions(device="cpu", model=str(tmp_path), steps=1), emit=None)
    assert "cannot load it as a causal LM" in str(err.value) and "\n" not in str(err.value)
