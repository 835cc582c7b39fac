"""Reading what LLaMA-Factory wrote (porter.smoke.lflog), on its real lines: the log-line strings are the ones in
LLaMA-Factory 0.9.3's source (model/model_utils/attention.py, model/loader.py, hparams/parser.py), and the
fixtures in fixtures/lf_logs are excerpts of real runs on this CPU (tiny random Llama of porter.smoke.tinymodel):
fa2_fallback_cpu.log (--require-flash-attn without flash-attn installed), two_ranks_cpu.log (--nproc 2),
ds_zero3_zip_failure.log (ZeRO-3 with the trainer's own optimizer under torch 2.13), run20_two_threads/ and
run3_one_thread/ (trainer_log.jsonl and train_results.json)."""

import json
import os
import statistics
from pathlib import Path

import pytest

from porter.smoke import SmokeOptions, lfconfig, lfenv, lflog, llamafactory as lf, report as srep

FIX = Path(__file__).parent / "fixtures" / "lf_logs"
ROOT = Path(__file__).resolve().parents[2]
LF_VENV = Path(os.environ.get("PORTER_LLAMAFACTORY_VENV") or ROOT / ".venv-lf")
LF_SRC = next(iter(sorted(LF_VENV.glob("lib/python3*/site-packages/llamafactory"))), LF_VENV / "lib" / "llamafactory")


def _line(msg, level="INFO", module="llamafactory.model.model_utils.attention", lineno=143):
    return f"[{level}|2026-12-05 08:09:43] {module}:{lineno} >> {msg}"


def test_the_matched_lines_are_llamafactorys_own():
    if not LF_SRC.is_dir():
        if os.environ.get("PORTER_REQUIRE_LLAMAFACTORY") == "1":
            pytest.fail(f"no {LF_SRC}: bash scripts/setup_llamafactory.sh makes it")
        pytest.skip(f"no {LF_SRC} (bash scripts/setup_llamafactory.sh)")
    attention = (LF_SRC / "model" / "model_utils" / "attention.py").read_text()
    for msg in [*lflog.ATTENTION_USED, *lflog.ATTENTION_FALLBACK]:
        assert f'"{msg}"' in attention, msg
    assert 'f"trainable params: {trainable_params:,} || "' in (LF_SRC / "model" / "loader.py").read_text()
    parser = (LF_SRC / "hparams" / "parser.py").read_text()
    assert 'f"Process rank: {training_args.process_index}, "' in parser
    assert 'f"distributed training: {training_args.parallel_mode == ParallelMode.DISTRIBUTED}, "' in parser
    assert 'check_version("deepspeed>=0.10.0,<=0.16.9", mandatory=True)' in parser   # lfenv.DEEPSPEED_SPEC
    callbacks = (LF_SRC / "train" / "callbacks.py").read_text()
    assert 'logs["throughput"] = round(state.num_input_tokens_seen / (time.time() - self.start_time), 2)' in callbacks
    assert "self.elapsed_time = str(timedelta(seconds=int(elapsed_time)))" in callbacks   # whole seconds


@pytest.mark.parametrize("msg, used", [("Using FlashAttention-2 for faster training and inference.", "fa2"),
                                       ("Using torch SDPA for faster training and inference.", "sdpa"),
                                       ("Using vanilla attention implementation.", "eager")])
def test_which_attention_ran(msg, used):
    got = lflog.parse_log(_line(msg) + "\n")
    assert (got["attention_used"], got["attention_line"], got["attention_fallback"]) == (used, msg, None)


def test_a_flash_attention_fallback_on_a_real_log():
    got = lflog.parse_log((FIX / "fa2_fallback_cpu.log").read_text())
    assert got["attention_fallback"] == "FlashAttention-2 is not installed."
    assert got["attention_used"] == "sdpa"
    assert (got["params_total"], got["params_trainable"]) == (155_968, 16_384)
    assert got["ranks"] == [{"rank": 0, "world_size": 1, "device": "cpu", "distributed": False, "compute_dtype": "None"}]
    assert got["dtype"] == "fp32" and got["error"] is None and got["nccl_lines"] == []


def test_every_rank_and_its_device_on_a_real_two_rank_log():
    got = lflog.parse_log((FIX / "two_ranks_cpu.log").read_text())
    assert [(r["rank"], r["world_size"], r["device"], r["distributed"]) for r in got["ranks"]] == [
        (0, 2, "cpu:0", True), (1, 2, "cpu:0", True)]
    assert got["attention_used"] == "sdpa" and got["params_trainable"] == 16_384


def test_bf16_and_gpu_lines():
    text = _line("Process rank: 3, world size: 8, device: cuda:3, distributed training: True, compute dtype: "
                 "torch.bfloat16", module="llamafactory.hparams.parser", lineno=406)
    got = lflog.parse_log(text)
    assert got["dtype"] == "bf16" and got["ranks"][0]["device"] == "cuda:3"


def test_the_error_that_ended_a_real_zero3_run_not_the_launchers():
    text = (FIX / "ds_zero3_zip_failure.log").read_text()
    assert lflog.root_error(text.splitlines()) == "rank0: ValueError: zip() argument 2 is longer than argument 1"
    line = lf._error_line(1, text, lflog.root_error(text.splitlines()), Path("/w/llamafactory.log"), deepspeed=True)
    assert line.startswith("llamafactory-cli exited with code 1: rank0: ValueError: zip() argument 2 is longer")
    assert "name the optimizer in the DeepSpeed config" in line and "\n" not in line


def test_ms_step_times_and_a_true_median_from_a_real_trainer_log():
    logs = lf.read_logs(FIX / "run20_two_threads")
    entries = logs["entries"]
    since = [e["total_tokens"] / e["throughput"] for e in entries if "loss" in e]
    times, tokens = lflog.step_times(entries)
    assert len(times) == 20 and times == pytest.approx([since[0]] + [b - a for a, b in zip(since, since[1:])])
    # elapsed_time says "0:00:00", "0:00:01", ...: whole seconds; these are not
    assert len({round(t, 3) for t in times}) > 10 and all(0.2 < t < 1.5 for t in times)
    rep = lf.logs_to_report(logs, SmokeOptions(model="/m", backend="llamafactory", steps=20, batch_size=2,
                                               seq_len=64, device="cpu"))
    assert srep.validate(rep) == []
    assert rep["step_time_s"] == pytest.approx(statistics.median(times[2:]), abs=1e-6)   # warm-up steps left out
    mean = json.loads((FIX / "run20_two_threads" / "train_results.json").read_text())["train_runtime"] / 20
    assert rep["llamafactory"]["step_time_mean_s"] == pytest.approx(mean, abs=1e-6)
    assert abs(rep["step_time_s"] - mean) > 1e-3          # the median is not the mean
    assert rep["tokens_per_s"] == pytest.approx(sum(tokens[2:]) / sum(times[2:]), rel=1e-4)
    text = srep.format_text(rep)
    assert f"step times  ms {times[0] * 1000:.1f} {times[1] * 1000:.1f}" in text
    assert f"median {rep['step_time_s'] * 1000:.1f} ms (trainer_log.jsonl: total_tokens / throughput)" in text


def test_trainer_log_and_the_trainers_own_runtime_agree_to_a_few_ms():
    # the same 3-step run: trainer_log.jsonl (LLaMA-Factory's callback clock) and the per-step dicts transformers
    # printed ('train_runtime': 0.087, 0.1555, 0.2005, its own clock)
    times, _ = lflog.step_times(lf.read_logs(FIX / "run3_one_thread")["entries"])
    printed = [0.087, 0.1555 - 0.087, 0.2005 - 0.1555]
    assert times == pytest.approx(printed, abs=0.005)


def test_time_to_first_step_from_the_trainer_logs_own_clock():
    entries = lf.read_logs(FIX / "run20_two_threads")["entries"]
    last = entries[-1]["total_tokens"] / entries[-1]["throughput"]
    first = entries[0]["total_tokens"] / entries[0]["throughput"]
    assert lflog.first_step_wall(entries, 1000.0) == pytest.approx(1000.0 - (last - first))
    assert lflog.first_step_wall(entries, None) is None


def test_whole_second_logs_give_no_per_step_times_and_say_so():
    entries = [{"current_steps": i, "total_steps": 3, "loss": 3.0 - i * 0.1, "elapsed_time": f"0:00:0{i}"}
               for i in (1, 2, 3)]
    rep = lf.logs_to_report({"entries": entries, "results": {"train_runtime": 3.0}},
                            SmokeOptions(model="/m", backend="llamafactory", steps=3, device="cpu"))
    assert rep["step_times_s"] == [] and rep["step_time_s"] is None
    assert rep["llamafactory"]["step_time_mean_s"] == 1.0
    assert "step times  none per step (trainer_log.jsonl has no total_tokens/throughput" in srep.format_text(rep)
    assert "; mean 1000.0 ms (train_runtime / steps)" in srep.format_text(rep)


def test_yaml_floats_stay_floats_for_pyyaml():
    yaml = pytest.importorskip("yaml")
    text = lf.dump_yaml({"learning_rate": 1e-05, "b": 2e-3, "c": 1e20, "d": 1.5e-7})
    assert yaml.safe_load(text) == {"learning_rate": 1e-05, "b": 2e-3, "c": 1e20, "d": 1.5e-7}


# ---- the user's config: what is overridden ---------------------------------------------------------

USER = {"model_name_or_path": "meta-llama/Meta-Llama-3-8B-Instruct", "stage": "sft", "do_train": True,
        "finetuning_type": "lora", "lora_rank": 16, "dataset": "alpaca_en_demo", "template": "llama3",
        "output_dir": "saves/llama3-8b/lora/sft", "logging_steps": 10, "save_steps": 500, "report_to": "wandb",
        "per_device_train_batch_size": 1, "learning_rate": 1.0e-4, "num_train_epochs": 3.0, "bf16": True,
        "flash_attn": "fa2", "deepspeed": "examples/deepspeed/ds_z3_config.json"}


def test_a_gpu_run_overrides_only_what_a_smoke_run_must(tmp_path):
    eff, over = lfconfig.plan(USER, steps=20, output_dir=tmp_path / "out", cpu=False)
    assert [(o["key"], o["old"], o["new"]) for o in over] == [
        ("max_steps", None, 20), ("output_dir", "saves/llama3-8b/lora/sft", str(tmp_path / "out")),
        ("logging_steps", 10, 1), ("report_to", "wandb", "none"), ("save_strategy", None, "no"),
        ("include_num_input_tokens_seen", None, True)]
    assert {k: v for k, v in eff.items() if k not in {o["key"] for o in over}} == {
        k: v for k, v in USER.items() if k not in {o["key"] for o in over}}
    assert lfconfig.describe(over[0]) == "max_steps: (unset) -> 20 (--steps: a smoke run is a few steps)"
    assert lfconfig.flash_attn_asked(eff) == "fa2"


def test_a_cpu_run_without_deepspeed_asks_for_the_cpu_and_drops_fp16():
    cfg = {k: v for k, v in USER.items() if k != "deepspeed"} | {"fp16": True}
    eff, over = lfconfig.plan(cfg, steps=5, output_dir=Path("/o"), cpu=True, model="/models/tiny",
                              require_flash_attn=True)
    got = {o["key"]: (o["old"], o["new"]) for o in over}
    assert got["use_cpu"] == (None, True) and got["fp16"] == (True, False)
    assert got["model_name_or_path"] == ("meta-llama/Meta-Llama-3-8B-Instruct", "/models/tiny")
    assert "flash_attn" not in got and eff["bf16"] is True   # already fa2; bf16 runs with use_cpu


def test_a_cpu_run_under_deepspeed_leaves_use_cpu_off_and_drops_bf16():
    eff, over = lfconfig.plan(USER, steps=5, output_dir=Path("/o"), cpu=True)
    got = {o["key"]: (o["old"], o["new"]) for o in over}
    assert "use_cpu" not in eff and got["bf16"] == (True, False)


def test_require_flash_attn_sets_fa2_and_deepspeed_adds_porters_config_when_the_config_has_none():
    cfg = {k: v for k, v in USER.items() if k not in ("flash_attn", "deepspeed")}
    eff, over = lfconfig.plan(cfg, steps=5, output_dir=Path("/o"), cpu=False, require_flash_attn=True,
                              deepspeed=Path("/w/ds_z3_config.json"))
    got = {o["key"]: o for o in over}
    assert got["flash_attn"]["new"] == "fa2" and got["flash_attn"]["why"] == "--require-flash-attn"
    assert eff["deepspeed"] == "/w/ds_z3_config.json"
    _, over = lfconfig.plan(USER, steps=5, output_dir=Path("/o"), cpu=False, deepspeed=Path("/w/ds.json"))
    assert "deepspeed" not in {o["key"] for o in over}       # theirs is kept


def test_the_deepspeed_config_the_yaml_names(tmp_path):
    assert lfconfig.deepspeed_config({}, tmp_path) == (None, None, None)
    p, data, problem = lfconfig.deepspeed_config({"deepspeed": "ds/z3.json"}, tmp_path)
    assert data is None and problem == f"deepspeed: ds/z3.json: no such file (relative paths resolve from {tmp_path})"
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "z3.json").write_text('{"zero_optimization": {"stage": 3}}')
    p, data, problem = lfconfig.deepspeed_config({"deepspeed": "ds/z3.json"}, tmp_path)
    assert problem is None and p == tmp_path / "ds" / "z3.json" and lfconfig.zero_stage(data) == 3


# ---- finding llamafactory-cli ------------------------------------------------------------------------

def _exe(path: Path, text="#!/bin/sh\nexit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_llamafactory_cli_is_found_beside_the_interpreter_then_on_path_then_in_the_setup_venv(tmp_path, monkeypatch):
    monkeypatch.delenv("PORTER_LLAMAFACTORY_VENV", raising=False)
    monkeypatch.setattr(lfenv, "SOURCE_ROOT", tmp_path / "src")
    venv_py = _exe(tmp_path / "venv" / "bin" / "python")
    other = tmp_path / "other-bin"
    _exe(other / "llamafactory-cli", f"#!{venv_py}\n")
    # beside the interpreter wins over PATH
    beside = _exe(tmp_path / "venv" / "bin" / "llamafactory-cli", f"#!{venv_py}\nimport sys\n")
    inst = lfenv.find(str(venv_py), path=str(other), module_fallback=False)
    assert inst.argv == [str(beside)] and inst.where.startswith("beside porter's interpreter")
    assert inst.python == str(venv_py) and inst.bin_dir == str(beside.parent)
    beside.unlink()
    inst = lfenv.find(str(venv_py), path=str(other), module_fallback=False)
    assert inst.argv == [str(other / "llamafactory-cli")] and inst.where == "on PATH"
    setup = _exe(tmp_path / "src" / ".venv-lf" / "bin" / "llamafactory-cli", f"#!{venv_py}\n")
    inst = lfenv.find(str(venv_py), path=str(tmp_path / "nothing"), module_fallback=False)
    assert inst.argv == [str(setup)] and "scripts/setup_llamafactory.sh" in inst.where
    setup.unlink()
    with pytest.raises(lfenv.SmokeError) as err:
        lfenv.find(str(venv_py), path=str(tmp_path / "nothing"), module_fallback=False)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith("LLaMA-Factory is not installed (no llamafactory-cli beside porter's "
                                              "interpreter, on PATH or in")


def test_the_interpreter_of_a_console_script(tmp_path):
    py = _exe(tmp_path / "bin" / "python3.11")
    assert lfenv.interpreter_of(_exe(tmp_path / "bin" / "a", f"#!{py}\n")) == str(py)
    assert lfenv.interpreter_of(_exe(tmp_path / "bin" / "b", "#!/bin/sh\n")) is None   # no python beside it
    _exe(tmp_path / "bin" / "python")
    assert lfenv.interpreter_of(tmp_path / "bin" / "b") == str(tmp_path / "bin" / "python")


def test_a_rank_aborting_in_gloos_teardown_after_training_is_told_from_a_failed_run():
    """ZeRO-3 over two CPU processes: all steps ran, the Trainer finished, then rank 1 aborted leaving the
    process group ('terminate called without an active exception') and torchrun exited 1 (seen in CI)."""
    text = (FIX / "zero3_cpu_teardown_abort.log").read_text()
    assert lflog.teardown_abort(text)
    done = text.index("Training completed")
    before = text[:done] + "terminate called without an active exception\n"  # an abort before the end: a failure
    assert not lflog.teardown_abort(before)
    raised = text + "[rank1]: RuntimeError: Connection closed by peer\n"  # a training process raised: a failure
    assert not lflog.teardown_abort(raised)
    assert not lflog.teardown_abort(text.replace("terminate called without an active exception", ""))


def test_the_time_to_the_first_step_is_split_by_the_logs_clock():
    import time

    from porter.smoke.llamafactory import _breakdown

    text = (FIX / "fa2_fallback_cpu.log").read_text()  # first own line 08:09:42, "trainable params" 08:09:43
    first, ready = lflog.phase_walls(text)
    assert ready - first == 1.0
    launch = time.mktime(time.strptime("2026-12-05 08:09:20", "%Y-%m-%d %H:%M:%S"))
    b = _breakdown(text, launch, 30.0)
    assert (b["imports_s"], b["data_and_model_s"], b["trainer_and_first_step_s"]) == (22.0, 1.0, 7.0)
    assert _breakdown("no stamps here", launch, 30.0) is None
