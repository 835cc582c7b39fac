"""A call clang rejects only because the function template it names failed to compile earlier.

NVIDIA's reduction sample, ported for a HIP without the *_sync shuffles: clang reports the undeclared
``__shfl_down_sync`` inside ``warpReduceSum<int>`` once, marks that template invalid, and at every later call
from another instantiation says "no matching function for call to 'warpReduceSum'" with "candidate template
ignored: substitution failure".  Those calls are the first error's consequence: the build says so, with its
rule, instead of a second, unexplained error.
"""

from __future__ import annotations

from porter.build import BuildOptions, run_build

# a warp reduction template (CUDA's shape: __shfl_down_sync, which HIP 5.2 does not declare) instantiated
# through two kernel template specialisations
_PROGRAM = """#include <hip/hip_runtime.h>

template <typename T>
__device__ T warpReduceSum(unsigned mask, T sum) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    sum += __shfl_down_sync(mask, sum, offset);
  return sum;
}

template <typename T, unsigned blockSize>
__global__ void reduce(const T *in, T *out) {
  T sum = in[threadIdx.x];
  sum = warpReduceSum<T>(0xffffffffu, sum);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

int main() {
  int *d = nullptr;
  reduce<int, 256><<<1, 256>>>(d, d);
  reduce<int, 128><<<1, 128>>>(d, d);
  return 0;
}
"""


def _line(text: str) -> int:
    return next(i for i, ln in enumerate(_PROGRAM.splitlines(), 1) if text in ln)


def test_the_later_call_follows_from_the_templates_error(tmp_path, toolchain942):
    (tmp_path / "k.cpp").write_text(_PROGRAM)
    report = run_build(tmp_path, BuildOptions(arch="gfx942"), toolchain=toolchain942)
    errors = report.errors
    first = next(d for d in errors if "__shfl_down_sync" in d.message)
    later = next(d for d in errors if "no matching function for call to 'warpReduceSum'" in d.message)
    assert (first.line, first.rule) == (_line("__shfl_down_sync("), "PORT020")
    assert later.line == _line("warpReduceSum<T>(")
    assert later.rule == "PORT020" and later.cause == f"k.cpp:{first.line}"
    assert f"a consequence of the error at k.cpp:{first.line}" in later.one_line()
    assert report.as_dict()["diagnostics"][errors.index(later)]["cause"] == f"k.cpp:{first.line}"


def test_a_call_that_matches_no_overload_on_its_own_is_not_blamed_on_another_error(tmp_path, toolchain942):
    # the same template failing, then a call whose arguments fit no overload at all (no substitution failure)
    text = _PROGRAM.replace("int main() {", "__device__ int pick(int a, int b) { return a; }\n"
                            "__global__ void other(int *p) { p[0] = pick(p[0]); }\n\nint main() {")
    (tmp_path / "k.cpp").write_text(text)
    report = run_build(tmp_path, BuildOptions(arch="gfx942"), toolchain=toolchain942)
    lone = next(d for d in report.errors if "no matching function for call to 'pick'" in d.message)
    assert lone.cause == "" and lone.rule == ""
