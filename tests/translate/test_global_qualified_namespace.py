"""A namespace qualified from the global scope (`::cub::`) after a keyword is still the top-level
namespace: `typedef ::cub::WarpReduce<float> R;` must become hipCUB's, or the port does not compile
(no `cub` namespace in HIP). A namespace nested in another (`thrust::cuda`) is not the top-level one."""

import pytest

from porter.translate import TranslateOptions, translate


def _port(src: str) -> str:
    return translate(src.encode(), "t.cu", TranslateOptions()).output.decode()


@pytest.mark.parametrize("line, want", [
    ("typedef ::cub::WarpReduce<float> R;", "typedef ::hipcub::WarpReduce<float> R;"),
    ("using R = ::cub::WarpReduce<float>;", "using R = ::hipcub::WarpReduce<float>;"),
    ("int f() { return ::cub::Max()(1, 2); }", "int f() { return ::hipcub::Max()(1, 2); }"),
    ("static ::cub::CachingDeviceAllocator a;", "static ::hipcub::CachingDeviceAllocator a;"),
])
def test_a_global_cub_qualification_after_a_keyword_becomes_hipcub(line, want):
    assert want in _port("#include <cub/cub.cuh>\n" + line + "\n")


def test_a_namespace_nested_in_a_users_namespace_is_left():
    src = "namespace mine { namespace cub { int x; } }\nint y = mine::cub::x;\n"
    assert "mine::cub::x" in _port(src)
