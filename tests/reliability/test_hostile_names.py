"""Issue 33 items 1-2: a project's file names never run commands or become compiler options.

Debian's hipcc (a perl script) builds one command string for ``sh -c``, putting the ``-o`` value in double
quotes, so ``$(...)`` in a name runs; clang reads an argument that starts with ``@`` as a response file
and one that starts with ``-`` as an option."""

import json

from reliability_helpers import need, porter

# a converted (HIP) unit: porter build refuses CUDA source trees
UNIT = ("#include <hip/hip_runtime.h>\n"
        "__global__ void {name}(int* a) {{ a[threadIdx.x] = 1; }}\n"
        "int main() {{ int* d = nullptr; (void)hipMalloc(&d, 64); {name}<<<1, 4>>>(d); (void)hipFree(d); return 0; }}\n")


def _tree(root, names):
    root.mkdir()
    for i, n in enumerate(names):
        (root / n).write_text(UNIT.format(name=f"k{i}"))
    return root


def test_a_name_with_a_command_substitution_runs_nothing_through_hipcc(tmp_path):
    need("hipcc")
    tree = _tree(tmp_path / "port", ["$(touch PWNED).cu", "plain.cu"])
    r = porter("build", str(tree), "--arch", "gfx90a", "--toolchain", "hipcc", "--json", cwd=tmp_path)
    assert not list(tmp_path.rglob("PWNED")), "a file name ran a command"
    report = json.loads(r.stdout)
    units = {u["file"]: u["status"] for u in report["units"] if u["kind"] not in ("link", "step")}
    assert units == {"$(touch PWNED).cu": "compiled", "plain.cu": "compiled"}, r.stderr
    assert r.returncode == 0, r.stdout


def test_names_starting_with_at_or_dash_are_compiled_as_sources_by_clang(tmp_path):
    need("hipcc", "clang++-19", "ld.lld-19", "llvm-dis-19")
    tree = _tree(tmp_path / "port", ["@flags.cu", "-x.cu"])
    # what clang would read as options from @flags.cu: a define that makes the unit fail loudly
    (tree / "flags.cu").write_text("-DREAD_AS_RESPONSE_FILE\n")
    (tree / "@flags.cu").write_text("#ifdef READ_AS_RESPONSE_FILE\n#error options were read\n#endif\n"
                                    + UNIT.format(name="k_at"))
    r = porter("build", str(tree), "--arch", "gfx942", "--toolchain", "clang", "--no-link", "--json", cwd=tmp_path)
    report = json.loads(r.stdout)
    units = {u["file"]: u["status"] for u in report["units"]}
    assert units["@flags.cu"] == "compiled", r.stdout
    assert units["-x.cu"] == "compiled", r.stdout
    assert units["flags.cu"] == "failed"  # it is not HIP: proof that it was compiled as itself, once
    commands = json.loads((tree / "compile_commands.json").read_text())
    for c in commands:
        assert not any(a.startswith(("@", "-x.")) for a in c["arguments"] if not a.startswith("-x")), c


def test_the_hipcc_front_for_makefiles_passes_an_at_name_as_a_source():
    from porter.build.hipdriver import argv_for

    argv = argv_for({"clang": "clang++-19", "flags": [], "link": []}, ["-c", "@opts.cu", "-o", "a.o"])
    assert "./@opts.cu" in argv and "@opts.cu" not in argv
