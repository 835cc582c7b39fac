"""Benchmark inputs in the shapes real CUDA code has and porter's samples lack (issue 34), written here
from C++/CUDA semantics (no outside code): ``unit(k)`` is one translation unit's worth of them,
names suffixed with ``k`` so that a big file has many distinct names.

* macros tree-sitter cannot read: a grid-stride loop macro used as a statement head
  (``CUDA_KERNEL_LOOP(i, n) { ... }``), a macro that opens a function (``KERNEL_BEGIN(name)``), a
  type list spelled by a macro, ``__launch_bounds__`` through a macro, token pasting;
* deep ``#if`` nesting (architecture, feature and version tests inside one another, 12 levels);
* braces opened in both branches of ``#ifdef/#else`` (one signature per configuration, one body);
* long initialiser tables (a 512-entry ``__constant__`` table, a table of structs);
* template-heavy headers (partial specialisation, SFINAE with ``enable_if``, variadic packs, fold
  expressions, dependent ``typename``/``template`` names, CRTP).

Every unit is valid CUDA C++ (nvcc would compile each configuration); it is the parser that finds
some of it hard, as it finds real code hard.
"""

from __future__ import annotations

import sys
from pathlib import Path

_MACROS = """\
#define CUDA_KERNEL_LOOP_{k}(i, n) \\
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
#define KERNEL_BEGIN_{k}(name, T) template <typename T> __global__ void LAUNCH_BOUNDS_{k} name(const T *in, T *out, int n) {{
#define KERNEL_END_{k} }}
#define LAUNCH_BOUNDS_{k} __launch_bounds__(256)
#define PASTE_{k}(a, b) a##b
#define FOR_EACH_TYPE_{k}(X) X(float) X(double) X(int)
#define CHECK_{k}(call) do {{ cudaError_t e_ = (call); if (e_ != cudaSuccess) {{ \\
    fprintf(stderr, "%s:%d %s\\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); }} }} while (0)

__global__ void scale_{k}(float *x, float a, int n) {{
  CUDA_KERNEL_LOOP_{k}(i, n) {{
    x[i] *= a;
  }}
}}

KERNEL_BEGIN_{k}(copy_{k}, T)
  CUDA_KERNEL_LOOP_{k}(i, n) {{ out[i] = in[i]; }}
KERNEL_END_{k}

#define INSTANTIATE_{k}(T) template __global__ void copy_{k}<T>(const T *, T *, int);
FOR_EACH_TYPE_{k}(INSTANTIATE_{k})

__device__ float PASTE_{k}(helper_, {k})(float v) {{ return v * 2.0f; }}
"""

_NESTED_OPEN = ["#if defined(__CUDA_ARCH__)", "#if __CUDA_ARCH__ >= 700", "#ifdef USE_FAST_MATH_{k}",
                "#if CUDART_VERSION >= 11000", "#ifndef NDEBUG", "#if defined(WITH_HALF_{k})",
                "#ifdef __CUDACC__", "#if TILE_{k} > 16", "#ifdef ENABLE_ATOMICS_{k}", "#if WARPS_{k} == 4",
                "#ifdef LEGACY_{k}", "#if VEC_{k} >= 2"]


def _nested(k: int) -> str:
    out = [f"#define TILE_{k} 32\n#define WARPS_{k} 4\n#define VEC_{k} 4\n"]
    for level, head in enumerate(_NESTED_OPEN):
        out.append(head.format(k=k) + "\n")
        out.append(f"__device__ inline int level_{k}_{level}(int v) {{ return v + {level}; }}\n")
    out.append(f"__device__ inline float deepest_{k}(float v) {{ return __shfl_down_sync(0xffffffff, v, 1); }}\n")
    for level in reversed(range(len(_NESTED_OPEN))):
        out.append("#else\n")
        out.append(f"__device__ inline int level_{k}_{level}(int v) {{ return v - {level}; }}\n")
        out.append("#endif\n")
    return "".join(out)


_BOTH_BRANCHES = """\
#ifdef USE_DOUBLE_{k}
__global__ void axpy_{k}(double a, const double *x, double *y, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#else
__global__ void axpy_{k}(float a, const float *x, float *y, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#endif
  if (i < n) y[i] = a * x[i] + y[i];
  __syncthreads();
}}

#if defined(_WIN32)
static void report_{k}(const char *what) {{
  printf("win: %s\\n", what);
#else
static void report_{k}(const char *what) {{
  fprintf(stderr, "posix: %s\\n", what);
#endif
}}
"""


def _table(k: int) -> str:
    values = ",\n".join(", ".join(f"{((i * 37 + j * 11 + k) % 1000) / 997.0:.6f}f" for j in range(8))
                        for i in range(0, 512, 8))
    rows = ",\n".join(f'  {{ {i}, {i * 3 % 17}u, "op{i}_{k}", {i / 7.0:.4f} }}' for i in range(96))
    return (f"__constant__ float coeffs_{k}[512] = {{\n{values}\n}};\n\n"
            f"struct OpInfo_{k} {{ int id; unsigned flags; const char *name; double weight; }};\n"
            f"static const OpInfo_{k} ops_{k}[] = {{\n{rows}\n}};\n\n"
            f"__global__ void apply_table_{k}(float *x, int n) {{\n"
            f"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            f"  if (i < n) x[i] *= coeffs_{k}[i & 511];\n}}\n")


_TEMPLATES = """\
namespace detail_{k} {{
template <typename T, typename = void> struct has_value_type : std::false_type {{}};
template <typename T> struct has_value_type<T, std::void_t<typename T::value_type>> : std::true_type {{}};

template <typename T, int N> struct Vec {{ T v[N]; __host__ __device__ T &operator[](int i) {{ return v[i]; }} }};
template <typename T> struct Vec<T, 1> {{ T v; __host__ __device__ T &operator[](int) {{ return v; }} }};

template <typename... Ts> __host__ __device__ constexpr auto sum(Ts... xs) {{ return (xs + ... + 0); }}

template <typename T>
__device__ typename std::enable_if<std::is_floating_point<T>::value, T>::type
warp_sum(T v) {{
  for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffff, v, off);
  return v;
}}

template <typename Derived> struct Reducer {{
  __device__ float run(float v) {{ return static_cast<Derived *>(this)->combine(v, v); }}
}};
struct MaxReducer : Reducer<MaxReducer> {{ __device__ float combine(float a, float b) {{ return fmaxf(a, b); }} }};

template <typename Policy> struct Launcher {{
  template <typename F, typename... Args>
  static void go(F f, dim3 grid, dim3 block, Args &&...args) {{
    f<<<grid, block, Policy::template shared_bytes<float>(), 0>>>(std::forward<Args>(args)...);
  }}
}};
}}  // namespace detail_{k}

template <typename T, int BLOCK = 256>
__global__ void reduce_{k}(const T *__restrict__ in, T *__restrict__ out, int n) {{
  __shared__ T partial[BLOCK / 32];
  T v = threadIdx.x < n ? in[blockIdx.x * BLOCK + threadIdx.x] : T(0);
  v = detail_{k}::warp_sum(v);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {{
    T s = T(0);
    for (int w = 0; w < BLOCK / 32; ++w) s += partial[w];
    atomicAdd(out, s);
  }}
}}
"""

_HOST = """\
void run_{k}(float *host, int n) {{
  float *dev = nullptr;
  CHECK_{k}(cudaMalloc(&dev, n * sizeof(float)));
  CHECK_{k}(cudaMemcpy(dev, host, n * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  scale_{k}<<<(n + 255) / 256, 256, 0, stream>>>(dev, 2.0f, n);
  reduce_{k}<float><<<(n + 255) / 256, 256>>>(dev, dev, n);
  CHECK_{k}(cudaGetLastError());
  CHECK_{k}(cudaMemcpyAsync(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
  cudaFree(dev);
}}
"""

HEAD = "#include <cstdio>\n#include <cstdlib>\n#include <type_traits>\n#include <utility>\n#include <cuda_runtime.h>\n\n"


def unit(k: int) -> str:
    """One translation unit's worth of the shapes (about 330 lines), its names suffixed with ``k``."""
    return "\n".join((f"// ---- real-code shapes, copy {k}\n", _MACROS.format(k=k), _nested(k), _BOTH_BRANCHES.format(k=k),
                      _table(k), _TEMPLATES.format(k=k), _HOST.format(k=k)))


def source_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def single_file(path: Path, lines: int) -> int:
    """Write one source of at least ``lines`` lines of these shapes to ``path``; returns its line count."""
    parts, total, k = [HEAD], source_lines(HEAD), 0
    while total < lines:
        text = unit(k)
        parts.append(text)
        total += source_lines(text)
        k += 1
    path.write_text("".join(parts))
    return total


def tree(root: Path, lines: int) -> tuple[int, int]:
    """Write a tree of files of one unit each (about 330 lines), at least ``lines`` in all; returns (lines, files)."""
    total = k = 0
    while total < lines:
        target = root / f"l{k % 7}" / f"mod{k % 31:02d}" / f"unit{k:05d}.cu"
        target.parent.mkdir(parents=True, exist_ok=True)
        text = HEAD + unit(k)
        target.write_text(text)
        total += source_lines(text)
        k += 1
    return total, k


if __name__ == "__main__":  # python benchmarks/real_shapes.py single|tree PATH LINES
    kind, where, n = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    print(single_file(where, n) if kind == "single" else tree(where, n))
