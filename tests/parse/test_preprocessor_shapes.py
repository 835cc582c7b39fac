"""Valid CUDA that tree-sitter cannot read as written (issue 34): a macro that opens a kernel, one that
closes it, a pasted name, a macro that declares things with no ``;`` after it, one that is a whole statement
in a function (HeCBench's bincount: ``HANDLE_SWITCH_CASE(memType)`` alone on its line), and a function whose
signature differs per ``#ifdef`` branch (each branch opens the body's brace).  nvcc compiles every
configuration (it includes cuda_runtime.h by itself); the preprocessor's output of the fixture
parses without an error.  porter reads the file as the preprocessor would: no "could not read the
code here" (PORT901), and the findings inside and after those shapes are reported, in a small file
(parsed whole) and in a big one (parsed a region at a time)."""

import shutil
import subprocess

import pytest

from porter import parse
from porter.findings.engine import scan
from porter.translate.source_index import index_source

# {k}: a suffix, so that copies of the fixture in one file declare distinct names
SHAPES = """\
#define GRID_STRIDE_{k}(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
#define BEGIN_KERNEL_{k}(name) __global__ void name(float *data, int n) {{
#define END_KERNEL_{k} }}
#define CONCAT_{k}(a, b) a##b
#define DECLARE_ONE_{k}(T) __device__ T twice_{k}(T v);
#define DECLARE_ALL_{k}(X) X(float) X(double)

BEGIN_KERNEL_{k}(lanes_{k})
  int lane = threadIdx.x & 31;
  GRID_STRIDE_{k}(i, n) {{ data[i] += lane; }}
END_KERNEL_{k}

DECLARE_ALL_{k}(DECLARE_ONE_{k})

__device__ float CONCAT_{k}(scale_, {k})(float v) {{ return v * 2.0f; }}

#ifdef USE_DOUBLE
__global__ void axpy_{k}(double a, const double *x, double *y, int n) {{
#else
__global__ void axpy_{k}(float a, const float *x, float *y, int n) {{
#endif
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}}

#define DISPATCH_{k}(kind, p) \\
  switch (kind) {{ \\
    case 0: {{ twice_all_{k}(p); break; }} \\
    default: {{ p[0] = 0.0f; }} \\
  }}

void twice_all_{k}(float *p) {{ p[0] *= 2.0f; }}

void run_{k}(float *p, int kind) {{
  DISPATCH_{k}(kind, p)
  p[1] = 1.0f;
}}

__global__ void after_{k}(float *x) {{
  x[threadIdx.x] = __shfl_down_sync(0xffffffff, x[threadIdx.x], 1);
}}

"""


def _lines_of(text: str, needle: str) -> list[int]:
    return [i for i, line in enumerate(text.splitlines(), 1) if needle in line]


@pytest.mark.skipif(shutil.which("cpp") is None, reason="needs the C preprocessor (cpp)")
@pytest.mark.parametrize("config", [[], ["-DUSE_DOUBLE"]])
def test_the_fixture_is_valid_code_once_preprocessed(tmp_path, config):
    src = tmp_path / "shapes.cu"
    src.write_text(SHAPES.format(k=0))
    done = subprocess.run(["cpp", "-P", "-x", "c++", *config, str(src)], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert parse.error_regions(parse.parse(done.stdout)) == []
    assert parse.error_regions(parse.parse(src.read_bytes())) != []  # as written, tree-sitter cannot read it


def _check(text: str, copies: int) -> None:
    found = scan(text.encode(), "shapes.cu")
    assert [f for f in found if f.rule == "PORT901"] == []
    # `threadIdx.x & 31`, in the kernel the macro opens: a lane index for 32-lane warps (an AMD wave has 64)
    assert sorted(f.line for f in found if f.rule == "PORT011") == _lines_of(text, "threadIdx.x & 31")
    # the full 32-bit mask of a *_sync shuffle in the kernel after the #ifdef'd signature
    assert sorted(f.line for f in found if f.rule == "PORT020") == _lines_of(text, "__shfl_down_sync")
    assert len(_lines_of(text, "__shfl_down_sync")) == copies


def test_a_small_file_of_these_shapes_parses_as_the_preprocessor_reads_it():
    _check(SHAPES.format(k=0), 1)


def test_a_big_file_of_these_shapes_parses_region_by_region_without_errors():
    text = "".join(SHAPES.format(k=k) for k in range(120))
    assert len(text) > 64 << 10  # parsed a region at a time (source_index.BIG_BYTES)
    _check(text, 120)


def test_a_macro_from_a_header_costs_its_own_place_not_the_rest_of_the_file():
    # HEADER_BEGIN/HEADER_END come from a header porter does not read: the place is reported, and
    # every kernel after it is still analysed
    head = "HEADER_BEGIN(opaque)\n  int k = threadIdx.x;\nHEADER_END\n\n"
    text = head + "".join(SHAPES.format(k=k) for k in range(120))
    index = index_source(text.encode())
    found = scan(text.encode(), "shapes.cu", index=index)
    errors = [f for f in found if f.rule == "PORT901"]
    assert len(errors) == 1 and errors[0].line == 1
    assert {index.line_of(start) for start, _end in index.parse_errors()} <= {1, 2, 3, 4}
    assert sorted(f.line for f in found if f.rule == "PORT020") == _lines_of(text, "__shfl_down_sync")


# GNU attributes after a variable's declarator (HeCBench's affine: `unsigned short input_image[Y_SIZE*X_SIZE]
# __attribute__((aligned(1024)));`): valid for nvcc, g++ and clang, read by tree-sitter-cuda only before one
ATTRIBUTES = """\
__device__ unsigned short image_{k}[1024] __attribute__((aligned(1024)));
int counter_{k} __attribute__((unused)) = 0, spare_{k};

__global__ void staged_{k}(const float *in, float *out) {{
  __shared__ float tile[64] __attribute__ ((aligned (16)));
  int lane = threadIdx.x & 31;
  tile[threadIdx.x] = in[threadIdx.x] + image_{k}[lane];
  __syncthreads();
  out[threadIdx.x] = __shfl_down_sync(0xffffffff, tile[lane], 1);
}}

"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_attributes_after_declarators_are_valid_code(tmp_path):
    host = ATTRIBUTES.format(k=0).replace("__global__ ", "").replace("__shared__ ", "").replace("__device__ ", "") \
        .replace("threadIdx.x", "0").replace("__syncthreads();", "").replace("__shfl_down_sync(0xffffffff, ", "(") \
        .replace("tile[lane], 1)", "tile[lane])")
    (tmp_path / "a.cpp").write_text(host)
    done = subprocess.run(["g++", "-fsyntax-only", str(tmp_path / "a.cpp")], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert parse.error_regions(parse.parse(ATTRIBUTES.format(k=0).encode())) != []  # as written: not read


@pytest.mark.parametrize("copies", [1, 200])
def test_attributes_after_declarators_are_read_past(copies):
    from porter.translate import translate

    text = "".join(ATTRIBUTES.format(k=k) for k in range(copies))
    assert (len(text) > 64 << 10) == (copies > 1)  # the big file: parsed a region at a time
    found = scan(text.encode(), "attrs.cu")
    assert [f for f in found if f.rule == "PORT901"] == []
    assert sorted(f.line for f in found if f.rule == "PORT011") == _lines_of(text, "threadIdx.x & 31")
    assert sorted(f.line for f in found if f.rule == "PORT020") == _lines_of(text, "__shfl_down_sync")
    port = translate(text.encode(), "attrs.cu").output.decode()
    assert port.count("__attribute__((aligned(1024)))") == copies  # the port keeps what the compiler reads
