"""cuFFT's multi-GPU (Xt) API and cudalibxt.h's descriptors -> hipFFT's, and cuDLA (no ROCm counterpart).

Facts, not porter's output: cuFFT 11.4.1.4's cufftXt.h and cudalibxt.h (nvidia-cufft-cu12 wheel), hipFFT 6.1.2's
hipfftXt.h and hiplibxt.h (Debian 13 libhipfft-dev: the hipfft_include fixture, tests/conftest.py),
AMD's cuFFT table (ROCm/HIPIFY docs/reference/tables/CUFFT_API_supported_by_HIP.md at 1d08ef50: hipfftXtMalloc & co.
and hipLibXtDesc added in ROCm 6.0.0, hipfftXtExec/MakePlanMany/GetSizeMany in 5.6.0) and hipFFT's CHANGELOG
(1.0.13 for ROCm 6.0.0 added the multi-GPU API).  The program below follows cuFFT's documentation of
cufftXtMalloc/cufftXtMemcpy/cufftXtExecDescriptor (the descriptor's nGPUs, GPUs[], data[] and size[])."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from porter.mapping import truth
from port_messages import port_with_messages

MGPU = """#include <cufft.h>
#include <cufftXt.h>

int run(cufftComplex *host_data, int nx, int ny, int nz) {
  cufftHandle plan;
  cufftResult result = cufftCreate(&plan);
  int whichGPUs[2] = {0, 1};
  result = cufftXtSetGPUs(plan, 2, whichGPUs);
  size_t worksize[2];
  result = cufftMakePlan3d(plan, nz, ny, nx, CUFFT_C2C, worksize);
  cudaLibXtDesc *d_data;
  result = cufftXtMalloc(plan, &d_data, CUFFT_XT_FORMAT_INPLACE);
  result = cufftXtMemcpy(plan, d_data, host_data, CUFFT_COPY_HOST_TO_DEVICE);
  result = cufftXtExecDescriptorC2C(plan, d_data, d_data, CUFFT_FORWARD);
  for (int i = 0; i < d_data->descriptor->nGPUs; i++) {
    cudaSetDevice(d_data->descriptor->GPUs[i]);
    cufftComplex *part = (cufftComplex *)d_data->descriptor->data[i];
    cudaMemset(part, 0, d_data->descriptor->size[i]);
  }
  result = cufftXtMemcpy(plan, host_data, d_data, CUFFT_COPY_DEVICE_TO_HOST);
  result = cufftXtFree(d_data);
  cufftDestroy(plan);
  return result == CUFFT_SUCCESS ? 0 : 1;
}
"""

# the descriptor structs themselves (cudalibxt.h), as a program that fills one by hand would use them
DESCRIPTORS = """#include <cudalibxt.h>
int count(const cudaLibXtDesc *d, cudaXtDesc *x) {
  void *state = x->cudaXtState;
  libFormat f = d->library;
  return (f == LIB_FORMAT_CUFFT && state != 0) ? d->descriptor->nGPUs : MAX_CUDA_DESCRIPTOR_GPUS;
}
"""

# CUDA name -> (HIP name, the ROCm release AMD's table / hipFFT's CHANGELOG give)
PAIRS = {
    "cufftXtSetGPUs": ("hipfftXtSetGPUs", "6.0"),
    "cufftXtMalloc": ("hipfftXtMalloc", "6.0"),
    "cufftXtMemcpy": ("hipfftXtMemcpy", "6.0"),
    "cufftXtFree": ("hipfftXtFree", "6.0"),
    "cufftXtExecDescriptor": ("hipfftXtExecDescriptor", "6.0"),
    "cufftXtExecDescriptorC2C": ("hipfftXtExecDescriptorC2C", "6.0"),
    "cufftXtExecDescriptorR2C": ("hipfftXtExecDescriptorR2C", "6.0"),
    "cufftXtExecDescriptorC2R": ("hipfftXtExecDescriptorC2R", "6.0"),
    "cufftXtExecDescriptorZ2Z": ("hipfftXtExecDescriptorZ2Z", "6.0"),
    "cufftXtExecDescriptorD2Z": ("hipfftXtExecDescriptorD2Z", "6.0"),
    "cufftXtExecDescriptorZ2D": ("hipfftXtExecDescriptorZ2D", "6.0"),
    "cufftXtCopyType": ("hipfftXtCopyType", "6.0"),
    "CUFFT_COPY_HOST_TO_DEVICE": ("HIPFFT_COPY_HOST_TO_DEVICE", "6.0"),
    "CUFFT_COPY_DEVICE_TO_HOST": ("HIPFFT_COPY_DEVICE_TO_HOST", "6.0"),
    "CUFFT_COPY_DEVICE_TO_DEVICE": ("HIPFFT_COPY_DEVICE_TO_DEVICE", "6.0"),
    "CUFFT_COPY_UNDEFINED": ("HIPFFT_COPY_UNDEFINED", "6.0"),
    "cufftXtSubFormat": ("hipfftXtSubFormat", "6.0"),
    "CUFFT_XT_FORMAT_INPUT": ("HIPFFT_XT_FORMAT_INPUT", "6.0"),
    "CUFFT_XT_FORMAT_INPLACE": ("HIPFFT_XT_FORMAT_INPLACE", "6.0"),
    "CUFFT_XT_FORMAT_INPLACE_SHUFFLED": ("HIPFFT_XT_FORMAT_INPLACE_SHUFFLED", "6.0"),
    "cudaLibXtDesc": ("hipLibXtDesc", "6.0"),
    "cudaLibXtDesc_t": ("hipLibXtDesc_t", "6.0"),
    # cudalibxt.h's names AMD's table does not list: dated with hipLibXtDesc, whose parts they are
    "cudaXtDesc": ("hipXtDesc", "6.0"),
    "cudaXtDesc_t": ("hipXtDesc_t", "6.0"),
    "libFormat": ("hiplibFormat", "6.0"),
    "libFormat_t": ("hiplibFormat_t", "6.0"),
    "LIB_FORMAT_CUFFT": ("HIPLIB_FORMAT_HIPFFT", "6.0"),
    "LIB_FORMAT_UNDEFINED": ("HIPLIB_FORMAT_UNDEFINED", "6.0"),
    "MAX_CUDA_DESCRIPTOR_GPUS": ("MAX_HIP_DESCRIPTOR_GPUS", "6.0"),
    # the half-precision plan API came a release earlier (hipFFT 1.0.12 for ROCm 5.6.0)
    "cufftXtMakePlanMany": ("hipfftXtMakePlanMany", "5.6"),
    "cufftXtGetSizeMany": ("hipfftXtGetSizeMany", "5.6"),
    "cufftXtExec": ("hipfftXtExec", "5.6"),
}

# values in cuFFT 11.4.1.4's headers (cudalibxt.h, cufftXt.h)
CUDA_VALUES = {
    "LIB_FORMAT_CUFFT": 0, "LIB_FORMAT_UNDEFINED": 1, "MAX_CUDA_DESCRIPTOR_GPUS": 64,
    "CUFFT_COPY_HOST_TO_DEVICE": 0, "CUFFT_COPY_DEVICE_TO_HOST": 1, "CUFFT_COPY_DEVICE_TO_DEVICE": 2,
    "CUFFT_COPY_UNDEFINED": 3,
    "CUFFT_XT_FORMAT_INPUT": 0, "CUFFT_XT_FORMAT_OUTPUT": 1, "CUFFT_XT_FORMAT_INPLACE": 2,
    "CUFFT_XT_FORMAT_INPLACE_SHUFFLED": 3, "CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED": 4,
    "CUFFT_FORMAT_UNDEFINED": 7,  # after CUFFT_XT_FORMAT_DISTRIBUTED_INPUT/OUTPUT (5, 6), which hipFFT lacks
}

# cudalibxt.h's copy type has no LIB_XT_COPY_UNDEFINED and no hipFFT counterpart (hipfftXtMemcpy takes
# hipfftXtCopyType); CUDA_XT_DESCRIPTOR_VERSION has none either
NO_COUNTERPART = ["cudaLibXtCopyType", "cudaXtCopyType_t", "LIB_XT_COPY_HOST_TO_DEVICE", "LIB_XT_COPY_DEVICE_TO_HOST",
                  "LIB_XT_COPY_DEVICE_TO_DEVICE", "CUDA_XT_DESCRIPTOR_VERSION"]

CUDA_NAME = re.compile(r"\b(?:cu[A-Za-z]\w*|CU[A-Z_]\w*|cuda\w+|libFormat\w*|LIB_\w+|MAX_CUDA\w*)\b")


@pytest.fixture(scope="module")
def hipfft_names() -> dict[str, str]:
    """Every name hipFFT 6.1.2's headers declare (the committed snapshot of Debian 13's package)."""
    return json.loads((truth.SOURCES / "snapshots" / "deb_hipfft.json").read_text(encoding="utf-8"))["names"]


def test_amds_newer_cufft_table_is_recorded_with_its_repository_path_and_commit():
    head = [line for line in (truth.SOURCES / truth.LIBRARY_TABLES).read_text(encoding="utf-8").splitlines()
            if line.startswith("# CUFFT:")]
    assert head and "docs/reference/tables/CUFFT_API_supported_by_HIP.md" in head[0]
    assert "1d08ef50263e49ab00576931ada94b2ba9692c2e" in head[0]
    rows = {r["cuda"]: r for r in truth.read_tables(truth.SOURCES / truth.LIBRARY_TABLES) if r["family"] == "CUFFT"}
    assert (rows["cufftXtMalloc"]["hip"], rows["cufftXtMalloc"]["hip_added"]) == ("hipfftXtMalloc", "6.0.0")
    assert (rows["cudaLibXtDesc"]["hip"], rows["cudaLibXtDesc"]["hip_added"]) == ("hipLibXtDesc", "6.0.0")
    assert (rows["cufftXtExec"]["hip"], rows["cufftXtExec"]["hip_added"]) == ("hipfftXtExec", "5.6.0")


@pytest.mark.parametrize("cuda", sorted(PAIRS))
def test_multi_gpu_names_pair_with_hipffts_and_carry_its_release(db, hipfft_names, cuda):
    hip, since = PAIRS[cuda]
    e = db.identifiers[cuda]
    assert e.renames and e.target() == hip and e.category == "cufft", e
    assert e.since_hip == since, e
    assert hip in hipfft_names  # declared by hipFFT 6.1.2's headers
    assert e.header == "hipfft/hipfftXt.h"
    assert e.available_in("5.2") == "too-new" and e.available_in("6.0") is None


def test_the_descriptors_state_member_is_renamed_after_an_arrow_only(db, hipfft_names):
    e = db.identifiers["cudaXtState"]
    assert e.context == "member" and e.target() == "hipXtState" and e.since_hip == "6.0"
    assert "hipXtState" in hipfft_names


@pytest.mark.parametrize("cuda", NO_COUNTERPART)
def test_cudalibxts_copy_type_and_version_have_no_counterpart(db, cuda):
    e = db.identifiers[cuda]
    assert e.status == "unsupported" and not e.renames and "hipfftXtCopyType" in e.alternative, e


def _hipfft_values(include: Path) -> dict[str, int]:
    text = "".join(p.read_text(encoding="utf-8") for p in (include / "hipfft").glob("*.h"))
    values = {m.group(1): int(m.group(2), 0) for m in re.finditer(r"\b([A-Z][A-Z0-9_]+)\s*=\s*(0x[0-9a-fA-F]+|\d+)", text)}
    values.update({m.group(1): int(m.group(2), 0) for m in re.finditer(r"#define\s+(\w+)\s+(\d+)\b", text)})
    return values


def test_only_enumerators_with_cudas_value_are_renamed(db, hipfft_include):
    # a renamed enumerator must mean the same number in hipFFT; CUFFT_FORMAT_UNDEFINED (7) is hipFFT's 5: reported
    hip_values = _hipfft_values(hipfft_include)
    for cuda, value in CUDA_VALUES.items():
        e = db.identifiers[cuda]
        hip = e.target() if e.renames else None
        if hip is not None:
            assert hip_values[hip] == value, (cuda, hip)
    undefined = db.identifiers["CUFFT_FORMAT_UNDEFINED"]
    assert hip_values["HIPFFT_FORMAT_UNDEFINED"] != CUDA_VALUES["CUFFT_FORMAT_UNDEFINED"]
    assert not undefined.renames and "0x07" in undefined.note and "0x05" in undefined.note


def test_the_headers_map_to_hipfftxt_h(db):
    xt = db.headers["cufftXt.h"]
    assert xt.renames and xt.target() == "hipfft/hipfftXt.h"
    lib = db.headers["cudalibxt.h"]
    assert lib.renames and lib.target() == "hipfft/hipfftXt.h" and lib.category == "cufft" and lib.since_hip == "6.0"
    assert db.headers["nvblas.h"].status == "unsupported"


def test_cudla_is_reported_as_having_no_rocm_counterpart(db):
    for header in ("cudla.h", "cudlaExternalEtbl.hpp"):
        e = db.headers[header]
        assert e.status == "unsupported" and e.category == "cudla" and "DLA" in e.note, e
    for name in ("cudlaCreateDevice", "cudlaSubmitTask", "cudlaDevHandle_t", "CUDLA_CUDA_DLA"):
        assert db.identifiers[name].status == "unsupported", name
    src = '#include "cudla.h"\nint open_dla(cudlaDevHandle *h) { return cudlaCreateDevice(0, h, CUDLA_CUDA_DLA); }\n'
    out, found = port_with_messages(src)
    assert '#include "cudla.h"' in out
    port030 = found.get("PORT030", [])
    assert any(m.startswith("`cudla.h`") and "DLA" in m for m in port030), found
    assert any(m.startswith("`cudlaCreateDevice`") for m in port030), found


def test_a_multi_gpu_cufft_program_ports_to_hipffts_descriptors():
    out, found = port_with_messages(MGPU)
    assert CUDA_NAME.findall(out) == [], CUDA_NAME.findall(out)
    assert "#include <hipfft/hipfftXt.h>" in out
    assert "hipLibXtDesc *d_data;" in out
    assert "hipfftXtMalloc(plan, &d_data, HIPFFT_XT_FORMAT_INPLACE)" in out
    assert "d_data->descriptor->nGPUs" in out and "d_data->descriptor->data[i]" in out
    assert "PORT032" not in found and "PORT030" not in found, found


def test_the_descriptor_structs_port_member_included():
    out, found = port_with_messages(DESCRIPTORS)
    assert CUDA_NAME.findall(out) == [], CUDA_NAME.findall(out)
    assert "#include <hipfft/hipfftXt.h>" in out
    assert "const hipLibXtDesc *d, hipXtDesc *x" in out and "x->hipXtState" in out
    assert "hiplibFormat f" in out and "HIPLIB_FORMAT_HIPFFT" in out and "MAX_HIP_DESCRIPTOR_GPUS" in out


@pytest.mark.parametrize("target", ["5.2", "5.7"])
def test_below_rocm_6_the_multi_gpu_calls_stay_as_written_with_port032(target):
    out, found = port_with_messages(MGPU, target_rocm=target)
    assert "cufftXtMalloc(plan, &d_data" in out and "cudaLibXtDesc *d_data;" in out
    msgs = found.get("PORT032", [])
    for cuda, hip in (("cufftXtSetGPUs", "hipfftXtSetGPUs"), ("cufftXtMalloc", "hipfftXtMalloc"),
                      ("cufftXtMemcpy", "hipfftXtMemcpy"), ("cufftXtExecDescriptorC2C", "hipfftXtExecDescriptorC2C"),
                      ("cufftXtFree", "hipfftXtFree"), ("cudaLibXtDesc", "hipLibXtDesc")):
        assert any(m.startswith(f"`{cuda}`") and f"{hip} needs ROCm 6.0" in m for m in msgs), (cuda, msgs)
    # the single-GPU calls around them port: hipFFT has had them since ROCm 1.7
    assert "hipfftCreate(&plan)" in out and "hipfftMakePlan3d(" in out


def test_at_rocm_5_6_the_half_precision_plan_api_ports_and_the_descriptors_do_not():
    src = ("#include <cufftXt.h>\nvoid f(cufftHandle p, long long *n, size_t *w, void *in, void *out, cudaLibXtDesc *d) {\n"
           "  cufftXtMakePlanMany(p, 1, n, 0, 1, 1, CUDA_C_16F, 0, 1, 1, CUDA_C_16F, 1, w, CUDA_C_16F);\n"
           "  cufftXtExec(p, in, out, CUFFT_FORWARD);\n  cufftXtFree(d);\n}\n")
    out, found = port_with_messages(src, target_rocm="5.6")
    assert "hipfftXtMakePlanMany(" in out and "hipfftXtExec(" in out and "cufftXtFree(d)" in out
    assert any(m.startswith("`cufftXtFree`") and "needs ROCm 6.0" in m for m in found.get("PORT032", []))


@pytest.mark.hipcc
@pytest.mark.parametrize("src", [MGPU, DESCRIPTORS], ids=["mgpu", "descriptors"])
def test_the_port_compiles_against_hipfft_6_1(src, hipfft_include, hipcc_compile):
    out, _ = port_with_messages(src)
    code, err = hipcc_compile(out.encode(), "port", flags=("-isystem", str(hipfft_include)), syntax_only=True)
    assert code == 0, err[-3000:]
