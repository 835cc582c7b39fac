"""The LLaMA-Factory backend: the YAML/dataset writer, the log reader on recorded logs, and the run loop
against a stand-in llamafactory-cli (a small script that writes logs the way LLaMA-Factory does)."""

import json
import statistics
import sys
import time
from pathlib import Path

import pytest

from porter.smoke import SmokeError, SmokeOptions, llamafactory as lf, report as srep

FIX = Path(__file__).parent / "fixtures"


@pytest.fixture()
def model_dir(tmp_path):
    d = tmp_path / "Llama-3-8B"
    d.mkdir()
    (d / "config.json").write_text(json.dumps({"model_type": "llama"}))
    return d


def _parse_flat_yaml(text):
    out = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        k, _, v = line.partition(": ")
        out[k] = json.loads(v) if v.startswith('"') else v
    return out


def test_writes_lora_sft_yaml_dataset_info_and_zero3(tmp_path, model_dir):
    opts = SmokeOptions(model=str(model_dir), backend="llamafactory", steps=7, batch_size=2, seq_len=256,
                        deepspeed=True, template="llama3", device="cuda")
    paths = lf.write_inputs(tmp_path / "work", opts)
    y = _parse_flat_yaml(paths["yaml"].read_text())
    assert y["model_name_or_path"] == str(model_dir)
    assert (y["stage"], y["do_train"], y["finetuning_type"], y["lora_target"]) == ("sft", "true", "lora", "all")
    assert (y["max_steps"], y["per_device_train_batch_size"], y["cutoff_len"], y["bf16"]) == ("7", "2", "256", "true")
    assert (y["template"], y["report_to"], y["logging_steps"]) == ("llama3", "none", "1")
    assert "use_cpu" not in y
    assert (y["learning_rate"], y["lr_scheduler_type"], y["warmup_steps"]) == ("0.002", "constant", "0")
    assert y["deepspeed"] == str(paths["deepspeed"])
    assert json.loads(paths["deepspeed"].read_text())["zero_optimization"]["stage"] == 3
    info = json.loads((paths["dataset_dir"] / "dataset_info.json").read_text())
    entry = info[y["dataset"]]
    assert entry["columns"] == {"prompt": "instruction", "query": "input", "response": "output"}
    records = json.loads((paths["dataset_dir"] / entry["file_name"]).read_text())
    assert len(records) >= 150 and set(records[0]) == {"instruction", "input", "output"}
    assert (paths["yaml"].parent / "constraints.txt").read_text().startswith("torch==")


def test_on_a_cpu_it_asks_for_fp32_and_use_cpu(tmp_path, model_dir):
    # transformers refuses bf16 without a GPU ("Your setup doesn't support bf16/gpu. You need to assign use_cpu")
    opts = SmokeOptions(model=str(model_dir), backend="llamafactory", steps=5, device="cpu")
    y = _parse_flat_yaml(lf.write_inputs(tmp_path / "work", opts)["yaml"].read_text())
    assert (y["bf16"], y["use_cpu"]) == ("false", "true")
    with pytest.raises(SmokeError, match="--dtype bf16: LLaMA-Factory .* trains bf16 only on a GPU"):
        lf.write_inputs(tmp_path / "w2", SmokeOptions(model=str(model_dir), backend="llamafactory", device="cpu",
                                                      dtype="bf16"))


def _log(losses, vram=None):
    entries = []
    for i, loss in enumerate(losses, 1):
        e = {"current_steps": i, "total_steps": len(losses), "loss": loss, "elapsed_time": f"0:00:{i:02d}"}
        if vram is not None:
            e.update(vram_allocated=vram, vram_reserved=vram)
        entries.append(e)
    return {"entries": entries, "results": {"train_runtime": float(len(losses))}}


def test_a_short_run_is_not_judged_on_whether_its_loss_fell():
    # 5 steps on a CPU (issue 15): the last loss sits above the first; a few updates of a LoRA adapter that starts
    # as a no-op move the loss less than one batch differs from another, so that is no failure
    opts = SmokeOptions(model="/m", backend="llamafactory", steps=5, device="cpu")
    rep = lf.logs_to_report(_log([6.9164, 6.95, 6.93, 6.94, 6.9351]), opts)
    assert rep["verdict"] == "pass", rep["reasons"]
    assert any(r.startswith("5-step run, too short to judge whether the loss falls") and
               "highest 6.9500 at step 2 <= 1.5 x the first" in r for r in rep["reasons"]), rep["reasons"]
    # a loss that blows up fails, and so does a NaN
    rep = lf.logs_to_report(_log([6.9164, 8.0, 11.2, 15.0, 20.0]), opts)
    assert rep["verdict"] == "fail"
    assert "highest 20.0000 at step 5 > 1.5 x the first: training diverged" in rep["reasons"][0], rep["reasons"]
    rep = lf.logs_to_report(_log([6.9164, 6.9, float("nan"), 6.8, 6.7]), opts)
    assert rep["verdict"] == "fail" and "loss became nan at step 3" in rep["reasons"][0].lower(), rep["reasons"]
    # 12 steps: the loss must fall again (last below first)
    rep = lf.logs_to_report(_log([6.9] + [6.5] * 10 + [7.0]), SmokeOptions(model="/m", backend="llamafactory", steps=12))
    assert rep["verdict"] == "fail" and "did not fall: 6.9000 -> 7.0000" in rep["reasons"][0], rep["reasons"]


def test_cpu_run_prints_no_negative_zero_vram():
    opts = SmokeOptions(model="/m", backend="llamafactory", steps=3, device="cpu")
    rep = lf.logs_to_report(_log([3.0, 2.8, 2.6], vram=-0.0), opts)
    assert rep["memory_reserved_gib"] is None and "-0.000" not in srep.format_text(rep)
    assert rep["dtype"] == "fp32" and rep["backend"] == "cpu"
    rep = lf.logs_to_report(_log([3.0, 2.8, 2.6], vram=-0.0), SmokeOptions(model="/m", backend="llamafactory",
                                                                           steps=3, device="cuda"))
    assert rep["memory_reserved_gib"] == 0.0 and "reserved 0.000 GiB" in srep.format_text(rep)


def test_yaml_quotes_what_would_change_meaning():
    text = lf.dump_yaml({"a": "yes", "b": "1e-4", "c": "path with: colon", "d": 1.0e-4, "e": False})
    assert text == 'a: "yes"\nb: "1e-4"\nc: "path with: colon"\nd: 0.0001\ne: false\n'


def test_reads_recorded_logs_into_the_report():
    logs = lf.read_logs(FIX / "lf_output")
    assert len(logs["entries"]) == 6  # the torn last line is skipped
    rep = lf.logs_to_report(logs, SmokeOptions(model="/models/llama", backend="llamafactory", steps=5, batch_size=1))
    assert srep.validate(rep) == []
    assert rep["engine"] == "llamafactory" and rep["steps_done"] == 5
    assert rep["losses"] == [2.4817, 2.3561, 2.1902, 2.0477, 1.9934]
    assert rep["loss_first"] == 2.4817 and rep["loss_last"] == 1.9934
    assert rep["memory_allocated_gib"] == 16.05 and rep["memory_reserved_gib"] == 17.31
    # per-step times from total_tokens / throughput (the time since training began, to a fraction of a ms), not
    # from elapsed_time's whole seconds; the step time is their median after the warm-up step, not a mean
    since = [2048 / 2950.12, 4096 / 5021.4, 6144 / 5533.0, 8192 / 5790.8, 10240 / 5902.5]
    steps = [since[0]] + [b - a for a, b in zip(since, since[1:])]
    assert rep["step_times_s"] == pytest.approx(steps, abs=1e-6)
    assert rep["step_time_s"] == pytest.approx(statistics.median(steps[1:]), abs=1e-6)
    assert rep["llamafactory"]["step_time_mean_s"] == pytest.approx(3.4521 / 5)  # train_runtime / steps, kept apart
    assert rep["tokens_per_s"] == pytest.approx((10240 - 2048) / (since[-1] - since[0]), rel=1e-4)  # all ranks together
    assert rep["achieved_tflops"] == pytest.approx(1.2e15 * 4 / 6 / 3.4521 / 1e12)
    assert rep["verdict"] == "pass", rep["reasons"]


def test_elapsed_time_forms():
    assert lf.parse_elapsed("0:01:05") == 65
    assert lf.parse_elapsed("1 day, 0:00:02") == 86402
    assert lf.parse_elapsed(3.5) == 3.5 and lf.parse_elapsed("soon") is None


def test_missing_llamafactory_says_how_to_install_without_replacing_torch(model_dir, monkeypatch, tmp_path):
    from porter.smoke import lfenv

    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("PORTER_LLAMAFACTORY_VENV", raising=False)
    monkeypatch.setattr(lfenv, "SOURCE_ROOT", tmp_path)  # no .venv-lf beside these sources
    with pytest.raises(SmokeError) as err:
        lf.run(SmokeOptions(model=str(model_dir), backend="llamafactory"), emit=None)
    msg = str(err.value)
    assert "\n" not in msg and "torch==" in msg
    assert "pip install -c constraints.txt -c constraints/llamafactory.txt 'hip-porter[llamafactory]'" in msg
    assert (Path(__file__).resolve().parents[2] / "constraints" / "llamafactory.txt").is_file()  # the file it names


FAKE_CLI = r'''#!{python}
import json, os, sys, time
assert sys.argv[1] == "train"
cfg = dict(line.split(": ", 1) for line in open(sys.argv[2]).read().splitlines() if not line.startswith("#"))
out = cfg["output_dir"]
os.makedirs(out, exist_ok=True)
steps = int(cfg["max_steps"])
if os.environ.get("FAKE_LF_HANG"):
    time.sleep(60)
with open(os.path.join(out, "trainer_log.jsonl"), "w") as fh:
    for i in range(1, steps + 1):
        fh.write(json.dumps({{"current_steps": i, "total_steps": steps, "loss": 3.0 - 0.2 * i,
                              "elapsed_time": "0:00:%02d" % i, "vram_allocated": 1.5,
                              "vram_reserved": 2.0}}) + "\n")
        fh.flush()
json.dump({{"train_runtime": float(steps), "train_loss": 2.5}}, open(os.path.join(out, "train_results.json"), "w"))
print("fake llamafactory done")
'''


@pytest.fixture()
def fake_cli(tmp_path):
    p = tmp_path / "bin" / "llamafactory-cli"
    p.parent.mkdir()
    p.write_text(FAKE_CLI.format(python=sys.executable))
    p.chmod(0o755)
    return p


def test_run_streams_progress_and_reads_the_logs(tmp_path, model_dir, fake_cli):
    lines = []
    opts = SmokeOptions(model=str(model_dir), backend="llamafactory", steps=4, device="cuda")  # as on a GPU
    rep = lf.run(opts, emit=lines.append, workdir=tmp_path / "w", cli=str(fake_cli))
    assert [p["step"] for ln in lines if (p := srep.parse_progress_line(ln))] == [1, 2, 3, 4]
    assert lines[0] == f"llamafactory: {fake_cli} (given)"
    assert rep["steps_done"] == 4 and rep["loss_last"] == pytest.approx(2.2)
    assert rep["memory_reserved_gib"] == 2.0
    # whole-second stamps and no total_tokens/throughput: no per-step times and no median, the mean kept apart
    assert rep["step_times_s"] == [] and rep["step_time_s"] is None
    assert rep["llamafactory"]["step_time_mean_s"] == 1.0
    assert any(w.startswith("per-step times unknown: trainer_log.jsonl has no total_tokens/throughput")
               for w in rep["warnings"]), rep["warnings"]
    assert rep["time_to_first_step_s"] is not None and rep["verdict"] == "pass", rep["reasons"]


def test_run_is_stopped_at_its_time_limit(tmp_path, model_dir, fake_cli, monkeypatch):
    monkeypatch.setenv("FAKE_LF_HANG", "1")
    t0 = time.monotonic()
    opts = SmokeOptions(model=str(model_dir), backend="llamafactory", steps=4, timeout_s=1.0)
    rep = lf.run(opts, emit=None, workdir=tmp_path / "w", cli=str(fake_cli))
    assert time.monotonic() - t0 < 15
    assert rep["verdict"] == "fail" and "timed out after 1 s" in rep["error"]
