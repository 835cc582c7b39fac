"""`porter query`: what a user sees."""

import json

from porter.cli.main import main


def test_known_name(capsys):
    assert main(["query", "cublasSgemm_v2"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("cublasSgemm_v2 -> hipblasSgemm")
    assert "cublas" in out and "supported" in out and "rocblas_sgemm" in out and "source" in out


def test_roc_flag_prefers_the_roc_library(capsys):
    assert main(["query", "cublasSgemm_v2", "--roc"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("cublasSgemm_v2 -> rocblas_sgemm")
    assert "hipblasSgemm" in out


def test_header_path_with_brackets(capsys):
    assert main(["query", "<cuda_runtime.h>"]) == 0
    out = capsys.readouterr().out
    assert "cuda_runtime.h -> hip/hip_runtime.h" in out and "header" in out


def test_unsupported_name_shows_note_and_alternative(capsys):
    assert main(["query", "__nanosleep"]) == 0
    out = capsys.readouterr().out
    assert "unsupported" in out and "__builtin_amdgcn_s_sleep" in out


def test_unknown_name_exits_1_with_suggestions(capsys):
    assert main(["query", "cudaMallocc"]) == 1
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1 and "cudaMalloc" in lines[0] and "close matches" in lines[0]
    assert cap.out == ""


def test_json_output(capsys):
    assert main(["query", "__CUDA_ARCH__", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc[0]["hip"] == "__HIP_DEVICE_COMPILE__" and doc[0]["context"] == "defined"
    assert doc[0]["renames"] is True and doc[0]["target"] == "__HIP_DEVICE_COMPILE__"


def test_qualified_name_goes_through_the_namespace(capsys):
    assert main(["query", "cub::DeviceReduce"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "cub::DeviceReduce -> hipcub::DeviceReduce"
    assert "hipCUB" in out


def test_qualified_unsupported_namespace_is_explained(capsys):
    assert main(["query", "nvcuda::wmma::fragment"]) == 0
    out = capsys.readouterr().out
    assert "unsupported" in out and "wmma" in out


def test_a_deprecated_name_says_what_is_deprecated_and_what_porter_writes_instead(capsys):
    """Issue 32: the status said "deprecated" and nothing else: it is NVIDIA's deprecation of the CUDA
    name, while the MIOpen name porter writes in its place is current."""
    assert main(["query", "cudnnConvolutionForward"]) == 0
    out = capsys.readouterr().out
    status = next(line for line in out.splitlines() if line.strip().startswith("status"))
    assert "NVIDIA deprecates cudnnConvolutionForward" in status
    assert "porter writes miopenConvolutionForward" in status and "not deprecated" in status
    assert main(["query", "cudaMalloc"]) == 0
    assert "status" not in capsys.readouterr().out  # a supported name needs no word on it
