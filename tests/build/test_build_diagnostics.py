"""Compiler output -> diagnostics (no compiler needed: real clang/ld/make output captured here)."""

from porter.build.diagnostics import SourceMap, parse

CLANG = """In file included from main.cu:3:
In file included from ./a.h:2:
./kernels.cuh:14:57: error: unknown type name 'cudaStream_t'
void f(cudaStream_t s);
                    ^
kernels.cu:52:15: warning: unused variable 'x' [-Wunused-variable]
kernels.cu:40:3: note: candidate function not viable
bad.cu:2:40: error: use of undeclared identifier '__shfl_down_sync'; did you mean '__shfl_down'?
/usr/include/hip/amd_detail/amd_warp_functions.h:248:14: note: '__shfl_down' declared here
1 error generated when compiling for gfx90a.
bad.cu:2:40: error: use of undeclared identifier '__shfl_down_sync'; did you mean '__shfl_down'?
1 error generated when compiling for host.
bad.cu:2:10: fatal error: 'hipblas/hipblas.h' file not found
dynpar.cu:19:5: error: no matching function for call to 'hipStreamCreateWithFlags'
/usr/include/hip/hip_runtime_api.h:1875:12: note: candidate function not viable: call to __host__ function from __global__ function
ld.lld: error: undefined symbol: foo()
clang-15: error: linker command failed with exit code 1 (use -v to see invocation)
/usr/bin/ld: cannot find -lhipblas: No such file or directory
make: *** [Makefile:3: a.o] Error 1
"""


def test_clang_output():
    ds = parse(CLANG, cwd="/p", root="/p", unit="u")
    kinds = [(d.file, d.line, d.severity) for d in ds]
    assert kinds == [("kernels.cuh", 14, "error"), ("kernels.cu", 52, "warning"), ("bad.cu", 2, "error"),
                     ("bad.cu", 2, "error"), ("dynpar.cu", 19, "error"), ("", 0, "error"), ("", 0, "error")]
    k = ds[0]
    assert k.column == 57 and k.included_from == [("a.h", 2), ("main.cu", 3)]
    assert ds[1].notes[0].message == "candidate function not viable"
    shfl = ds[2]
    assert shfl.rule == "PORT020" and shfl.notes[0].file.startswith("/usr/include/hip/")  # once, not per pass
    lib = ds[3]
    assert lib.library == "hipBLAS" and lib.message.startswith("missing library hipBLAS:")
    assert ds[4].rule == "PORT090"  # from its note: host function called from a kernel
    assert "undefined symbol: foo()" in ds[5].message and ds[5].hint
    assert ds[6].library == "hipBLAS"  # -lhipblas missing at link
    assert all(d.unit == "u" for d in ds)


def test_a_missing_openmp_runtime_is_named_with_its_package():
    """A Makefile built with -fopenmp (HeCBench's -Xcompiler -fopenmp) on a machine whose compiler has no
    libomp: the link error names the runtime and the package for each compiler, not a porting problem."""
    out = ("/usr/bin/ld: cannot find -lomp: No such file or directory\n"
           "clang++-19: error: linker command failed with exit code 1 (use -v to see invocation)\n"
           "k.cu:3:10: fatal error: 'omp.h' file not found\n")
    ds = parse(out, cwd="/p", root="/p")
    omp = [d for d in ds if d.library]
    assert [d.library for d in omp] == ["OpenMP runtime", "OpenMP runtime"], [(d.message, d.library) for d in ds]
    assert all("libomp-19-dev" in d.hint and "libomp-15-dev" in d.hint for d in omp)


def test_a_missing_roctx_is_named_with_its_package():
    """NVIDIA's cudaGraphsPerfScaling marks ranges with NVTX, which porter ports to roctx (<roctracer/roctx.h>,
    -lroctx64); Debian 12 packages no ROCTracer (clang-19's output)."""
    out = ("cudaGraphPerfScaling.cu:60:10: fatal error: 'roctracer/roctx.h' file not found\n"
           "/usr/bin/ld: cannot find -lroctx64: No such file or directory\n")
    ds = parse(out, cwd="/p", root="/p")
    assert [d.library for d in ds] == ["roctx (ROCTracer)", "roctx (ROCTracer)"]
    assert ds[0].message.startswith("missing library roctx (ROCTracer):") and "roctracer-dev" in ds[0].hint


def test_hipblaslt_is_not_named_hipblas():
    # NVIDIA's conjugateGradient links cuBLAS and cuBLASLt (-lcublas_static -lcublasLt_static -> -lhipblas -lhipblaslt)
    out = ("/usr/bin/ld: cannot find -lhipblas: No such file or directory\n"
           "/usr/bin/ld: cannot find -lhipblaslt: No such file or directory\n")
    assert [d.library for d in parse(out, cwd="/p", root="/p")] == ["hipBLAS", "hipBLASLt"]


def test_half_arithmetic_on_the_host_says_which_rocm_has_it():
    """HeCBench's nlll: a host template instantiated with __half; HIP before 6.4 has __half's operators on the
    device only (hipcc 5.2's output, trimmed)."""
    out = ("reference.h:20:52: error: invalid operands to binary expression ('const __half' and '__half')\n"
           "main.cu:196:3: note: in instantiation of function template specialization 'reference<__half, __half, int>' "
           "requested here\n"
           "/usr/include/hip/amd_detail/amd_hip_fp16.h:278:24: note: candidate function not viable: call to __device__ "
           "function from __host__ function\n"
           "reference.h:21:24: error: no viable overloaded '+='\n"
           "/usr/include/hip/amd_detail/amd_hip_fp16.h:181:25: note: candidate function not viable: call to __device__ "
           "function from __host__ function\n"
           "k.cu:9:3: error: no matching function for call to 'launch'\n"
           "k.cu:2:6: note: candidate function not viable: call to __device__ function from __host__ function\n")
    ds = parse(out, cwd="/p", root="/p")
    assert [("6.4" in d.hint and "__half" in d.hint) for d in ds] == [True, True, False]


def test_make_directories_and_paths_outside_the_tree():
    out = ("make[1]: Entering directory '/p/sub'\n"
           "k.cu:3:1: error: expected ';'\n"
           "make[1]: Leaving directory '/p/sub'\n"
           "/elsewhere/x.h:1:1: warning: w\n")
    ds = parse(out, cwd="/p", root="/p")
    assert [(d.file, d.line) for d in ds] == [("sub/k.cu", 3), ("/elsewhere/x.h", 1)]


def test_source_map(tmp_path):
    (tmp_path / ".porter").mkdir()
    (tmp_path / ".porter" / "manifest.json").write_text(
        '{"source_root": "/src", "files": {"k.cu": {"source": "/src/k.cu", "inserted_lines": [[2, 1]]}}}')
    ds = parse("k.cu:5:1: error: e\nIn file included from k.cu:4:\n/usr/include/h.h:9:2: error: in a system header\n"
               "other.cu:5:1: error: not converted by porter\n", cwd=str(tmp_path), root=str(tmp_path))
    SourceMap.load(tmp_path).apply(ds)
    assert (ds[0].source_file, ds[0].source_line) == ("/src/k.cu", 4)
    assert (ds[1].source_file, ds[1].source_line) == ("/src/k.cu", 3)  # the include line, mapped
    assert ds[2].source_file is None
    # a folder inside the converted tree maps its paths through the tree's manifest; one outside has none
    sub = parse("k.cu:5:1: error: e\n", cwd=str(tmp_path / "sub"), root=str(tmp_path / "sub"))
    SourceMap.load(tmp_path / "sub").apply(sub)
    assert sub[0].source_file is None  # sub/k.cu is not the tree's k.cu
    up = parse("../k.cu:5:1: error: e\n", cwd=str(tmp_path / "sub"), root=str(tmp_path / "sub"))
    SourceMap.load(tmp_path / "sub").apply(up)
    assert (up[0].source_file, up[0].source_line) == ("/src/k.cu", 4)
    assert SourceMap.load(tmp_path.parent / "elsewhere").files == {}


def test_texture_reference_calls_point_to_their_rule():
    ds = parse("t.cu:55:11: error: use of undeclared identifier 'cudaUnbindTexture'; did you mean 'hipUnbindTexture'?\n",
               cwd="/p", root="/p")
    assert ds[0].rule == "PORT080"


def test_errors_after_the_first_in_an_outside_header_keep_its_include_stack(tmp_path):
    # clang prints "In file included from" only when the include stack changes: the second error in the same
    # header comes without it, and must still map back to the project's line that includes the header
    import shutil
    import subprocess

    from required_tools import require

    require(shutil.which("clang++-19"), "clang++-19 not installed (apt-get install clang-19)")
    inc, proj = tmp_path / "inc", tmp_path / "proj"
    inc.mkdir()
    proj.mkdir()
    (inc / "lib.h").write_text("inline int f() { return undeclared_a; }\ninline int g() { return undeclared_b; }\n")
    (proj / "k.cpp").write_text("// a comment\n#include \"lib.h\"\nint main() { return f() + g(); }\n")
    (proj / ".porter").mkdir()
    (proj / ".porter" / "manifest.json").write_text(
        '{"files": {"k.cpp": {"source": "/src/k.cu", "inserted_lines": [[0, 1]]}}}')
    r = subprocess.run(["clang++-19", "-fsyntax-only", f"-I{inc}", "k.cpp"], cwd=proj, capture_output=True,
                       text=True, timeout=120)
    assert r.stderr.count("In file included from") == 1 and r.stderr.count("error:") == 2, r.stderr
    ds = parse(r.stderr, cwd=str(proj), root=str(proj))
    assert [(d.file, d.line, d.included_from) for d in ds] == [
        (str(inc / "lib.h"), 1, [("k.cpp", 2)]), (str(inc / "lib.h"), 2, [("k.cpp", 2)])]
    SourceMap.load(proj).apply(ds)
    assert [(d.source_file, d.source_line) for d in ds] == [("/src/k.cu", 1), ("/src/k.cu", 1)]


def test_device_only_math_in_host_code_points_to_port192():
    """clang's two messages for a CUDA math function HIP has for device code only (hipcc 5.2 and clang-19, the
    PORT192 fixtures), for every name PORT192 reports: the pattern takes the names from the rule's entry."""
    from porter.findings.catalogue import catalogue

    names = [t.decode() for t in catalogue()["PORT192"].triggers]
    assert {"rsqrtf", "normcdfinvf", "isfinite"} <= set(names)
    for name in names:
        for message in (f"no matching function for call to '{name}'",
                        f"reference to __device__ function '{name}' in __host__ __device__ function"):
            (d,) = parse(f"t.hip:9:12: error: {message}\n", cwd="/p", root="/p")
            assert d.rule == "PORT192", message
    (other,) = parse("t.hip:9:12: error: no matching function for call to 'rsqrtff'\n", cwd="/p", root="/p")
    assert other.rule != "PORT192"


def test_a_call_of_a_function_whose_declaration_failed_follows_from_that_error(tmp_path):
    # NVIDIA's simpleCUFFT_2d_MGPU: `void solvePoissonEquation(cudaLibXtDesc *, ...)` with a name the target's
    # HIP lacks; clang reads the unknown parameter type as int, and the call says "no matching function"
    import shutil
    import subprocess

    from required_tools import require

    require(shutil.which("clang++-19"), "clang++-19 not installed (apt-get install clang-19)")
    (tmp_path / "k.cpp").write_text("struct Known {};\nvoid solve(Unknown *,\n           Unknown *, int);\n"
                                    "void g(Known *k) { solve(k, k, 1); }\n"
                                    "void h(int);\nvoid c(Known *k) { h(k); }\n")
    r = subprocess.run(["clang++-19", "-fsyntax-only", "k.cpp"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    ds = [d for d in parse(r.stderr, cwd=str(tmp_path), root=str(tmp_path)) if d.severity == "error"]
    assert [(d.line, d.cause) for d in ds] == [(2, ""), (3, ""), (4, "k.cpp:2"), (6, "")], \
        [d.one_line() for d in ds]
    assert "declared there" in ds[2].hint
