"""A function whose head the preprocessor picks (``#if defined(_WIN32)`` / Windows head / ``#else`` /
POSIX head / ``#endif`` / one body), as in NVIDIA's threadMigration sample.  Tree-sitter reads two
declarations and a body on its own; porter reads one head (``porter.parse.mend``): no "could not read
the code here" (PORT901), the body is a function's again (a kernel's findings are reported), the
offsets are those of the text, and the port keeps both heads while it renames the body.  A file
that does not parse in any configuration still gets PORT901."""

import shutil
import subprocess

import pytest

from porter import parse
from porter.findings.engine import scan
from porter.translate.engine import translate
from porter.translate.source_index import index_source

# {k}: a suffix, so that copies in one file declare distinct names.  nvcc includes cuda.h/cuda_runtime.h
# itself; DWORD/WINAPI come from windows.h on Windows, which porter does not read
SPLIT = """\
#if defined(_WIN32)
#include <windows.h>
#else
#include <pthread.h>
#endif

struct Job_{k} {{ float *buf; int n; CUcontext ctx; }};

__global__ void fill_{k}(float *x) {{ x[threadIdx.x] = 1.0f; }}

// a thread's entry point: its type is the platform's
#if defined(WIN32) || defined(_WIN32)
DWORD WINAPI worker_{k}(Job_{k} *job)
#else
void *worker_{k}(Job_{k} *job)
#endif
{{
  cuCtxPushCurrent(job->ctx);
  cudaMalloc(&job->buf, job->n * sizeof(float));
  fill_{k}<<<1, 32>>>(job->buf);
  cudaDeviceSynchronize();
  cudaFree(job->buf);
  return 0;
}}

#ifdef USE_DOUBLE
__global__ void lanes_{k}(double *x, int n)
#else
__global__ void lanes_{k}(float *x, int n)
#endif
{{
  int lane = threadIdx.x & 31;
  if (lane < n) x[lane] = __shfl_down_sync(0xffffffff, x[lane], 1);
}}

"""


def _lines_of(text: str, needle: str) -> list[int]:
    return [i for i, line in enumerate(text.splitlines(), 1) if needle in line]


def _starts_of(text: str, needle: str) -> list[int]:
    data, out, at = text.encode(), [], text.encode().find(needle.encode())
    while at >= 0:
        out.append(at)
        at = data.find(needle.encode(), at + 1)
    return out


@pytest.mark.skipif(shutil.which("cpp") is None, reason="needs the C preprocessor (cpp)")
@pytest.mark.parametrize("config", [[], ["-DUSE_DOUBLE"]])
def test_the_fixture_is_valid_code_once_preprocessed_for_linux(tmp_path, config):
    src = tmp_path / "split.cu"
    src.write_text(SPLIT.format(k=0).replace("#include <pthread.h>\n", ""))
    done = subprocess.run(["cpp", "-P", "-x", "c++", *config, str(src)], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert parse.error_regions(parse.parse(done.stdout)) == []
    assert parse.error_regions(parse.parse(src.read_bytes())) != []  # as written, tree-sitter cannot read it


def _check(text: str, copies: int) -> None:
    found = scan(text.encode(), "split.cu")
    assert [(f.line, f.message) for f in found if f.rule == "PORT901"] == []
    # `threadIdx.x & 31` in the kernel whose head is split: a 32-lane warp's lane index (a wave has 64)
    lane = [f for f in found if f.rule == "PORT011"]
    assert sorted(f.line for f in lane) == _lines_of(text, "threadIdx.x & 31")
    assert sorted(f.start_byte for f in lane) == _starts_of(text, "threadIdx.x & 31")
    # the 32-thread launch in the worker's body, at its place in the text
    launches = [f for f in found if f.rule == "PORT016"]
    assert sorted(f.line for f in launches) == _lines_of(text, "<<<1, 32>>>")
    assert len(_lines_of(text, "threadIdx.x & 31")) == copies


def test_a_function_head_split_by_the_preprocessor_is_read_as_one_function():
    _check(SPLIT.format(k=0), 1)


def test_a_big_file_of_split_heads_parses_region_by_region():
    text = "".join(SPLIT.format(k=k) for k in range(100))
    assert len(text) > 64 << 10  # parsed a region at a time (source_index.BIG_BYTES)
    _check(text, 100)


def test_the_head_read_is_the_one_the_linux_preprocessor_keeps():
    text = SPLIT.format(k=0)
    index = index_source(text.encode())
    tree = index.tree
    assert parse.error_regions(tree) == []
    heads = {}
    for node in tree.root_node.children:
        if node.type == "function_definition":
            head = text.encode()[node.start_byte:node.child_by_field_name("declarator").end_byte]
            heads[node.start_byte] = b" ".join(head.split())
    # _WIN32 is not defined where the port is built: the #else head; USE_DOUBLE may be: the first one
    assert b"void *worker_0(Job_0 *job)" in heads.values()
    assert b"__global__ void lanes_0(double *x, int n)" in heads.values()
    assert not any(b"DWORD" in h or b"float *x, int n" in h for h in heads.values())

    # the port renames the body's calls and keeps both heads and the directives as written
    port = translate(text.encode(), path="split.cu").output.decode()
    assert "hipMalloc(&job->buf" in port and "hipFree(job->buf)" in port and "cudaMalloc" not in port
    assert "#if defined(WIN32) || defined(_WIN32)\nDWORD WINAPI worker_0(Job_0 *job)\n#else\n" in port
    assert "#ifdef USE_DOUBLE\n__global__ void lanes_0(double *x, int n)\n#else\n" in port


BROKEN = [
    # heads split as above, but no body follows them: a declaration without its ';' in every configuration
    "#ifdef USE_DOUBLE\nvoid step(double *x)\n#else\nvoid step(float *x)\n#endif\nint after;\n",
    # the body reads as one function's, but a call in it lacks a ','
    "#ifdef USE_DOUBLE\nvoid step(double *x)\n#else\nvoid step(float *x)\n#endif\n{\n  cudaMalloc(&x 4);\n}\n",
]


@pytest.mark.parametrize("broken", BROKEN)
def test_code_that_does_not_parse_in_any_configuration_still_gets_port901(broken):
    text = "__global__ void k(float *x) { x[0] = __shfl_down_sync(0xffffffff, x[0], 1); }\n\n" + broken
    found = scan(text.encode(), "broken.cu")
    assert [f.rule for f in found if f.rule == "PORT901"] == ["PORT901"]
    assert [f.rule for f in found if f.rule == "PORT020"] == ["PORT020"]  # the code before it is still read
