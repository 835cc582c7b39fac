"""Build-file migration: what a user sees in the reviewed CMakeLists/Makefile."""

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from porter.buildfiles import is_build_file, migrate

SAMPLES = Path(__file__).resolve().parents[2] / "sample_projects"
BUILD_FILES = sorted(p for p in SAMPLES.glob("*/*") if p.name in ("CMakeLists.txt", "Makefile"))


def test_is_build_file():
    assert is_build_file("a/CMakeLists.txt") and is_build_file("x/Makefile") and is_build_file("rules.mk")
    assert is_build_file("cmake/FindFoo.cmake") and is_build_file("GNUmakefile")
    assert not is_build_file("main.cu") and not is_build_file("README.md")


def test_not_a_build_file_is_left_alone():
    m = migrate("notes.txt", "nvcc -arch=sm_80\n")
    assert m.output == "nvcc -arch=sm_80\n" and not m.changes


@pytest.mark.parametrize("path", BUILD_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_sample_build_files_migrate_and_are_idempotent(path):
    text = path.read_text()
    m = migrate(str(path), text, arch="gfx942")
    assert m.changes, "a CUDA build file must change"
    out = m.output
    assert "nvcc" not in out.replace("# ", "")  # comments may still mention it
    assert "sm_" not in "".join(ln for ln in out.splitlines() if not ln.lstrip().startswith("#"))
    code = "\n".join(ln for ln in out.splitlines() if not ln.lstrip().startswith("#"))
    assert "-lcudart" not in code and "CUDA::cudart" not in code
    again = migrate(str(path), out, arch="gfx942")
    assert again.output == out and not again.changes
    # every change's old text is really in the input at that line
    lines = text.splitlines()
    for c in m.changes:
        if c.old:
            assert lines[c.line - 1] == c.old.splitlines()[0]
        assert c.why


def test_make_flags():
    text = ("NVCC ?= nvcc\nCUDA_PATH ?= /usr/local/cuda\n"
            "FLAGS := -O2 -arch=sm_90 --use_fast_math -lineinfo -rdc=true -Xcompiler -fPIC,-Wall "
            "--expt-relaxed-constexpr -I$(CUDA_PATH)/include\n"
            "app: a.o\n\t$(NVCC) -arch=sm_90 -o $@ $^ -L$(CUDA_PATH)/lib64 -lcudart -lcublas -lcufft -lcurand\n")
    m = migrate("Makefile", text, arch="gfx90a")
    out = m.output
    assert "HIP_ARCH ?= gfx90a\n" in out
    assert "HIPCC ?= hipcc" in out and "ROCM_PATH ?= /opt/rocm" in out
    assert ("FLAGS := -O2 --offload-arch=$(HIP_ARCH) -ffast-math -gline-tables-only -fgpu-rdc -fPIC -Wall "
            "-I$(ROCM_PATH)/include -D__HIP_PLATFORM_AMD__\n") in out
    assert "\t$(HIPCC) --offload-arch=$(HIP_ARCH) -o $@ $^ -L$(ROCM_PATH)/lib -lamdhip64 -lhipblas -lhipfft -lhiprand\n" in out


def test_static_library_archives_link_the_shared_hip_libraries():
    # NVIDIA's conjugateGradient and MersenneTwisterGP11213 samples link CUDA's static archives (with
    # libculibos, their helper); ROCm installs the HIP libraries as shared objects
    text = ("LIBRARIES :=\nLIBRARIES += -lcublas_static -lcublasLt_static -lcusparse_static -lculibos\n"
            "LIBRARIES += -lcurand_static\n"
            "app: a.o\n\t$(NVCC) -o $@ $+ $(LIBRARIES)\n")
    out = migrate("Makefile", text, arch="gfx942").output
    assert "LIBRARIES += -lhipblas -lhipblaslt -lhipsparse\n" in out
    assert "LIBRARIES += -lhiprand\n" in out and "_static" not in out and "culibos" not in out


def test_make_gencode_over_continuation_lines_and_byte_preservation():
    text = ("# keep   this  comment: nvcc -arch=sm_80\r\n"
            "GEN := -gencode arch=compute_80,code=sm_80 \\\r\n      -gencode=arch=compute_90,code=[sm_90,compute_90]\r\n"
            "odd   :=   spacing\r\n")
    out = migrate("Makefile", text).output
    assert out.startswith("# keep   this  comment: nvcc -arch=sm_80\r\n")  # comments untouched
    assert "GEN := --offload-arch=$(HIP_ARCH)\r\n" in out
    assert out.endswith("odd   :=   spacing\r\n")
    assert "HIP_ARCH ?= gfx942\r\n" in out


def test_make_driver_library_search_looks_for_hips_runtime():
    # NVIDIA's driver-API samples: no libcuda.so found -> SAMPLE_ENABLED := 0 -> every recipe becomes @echo
    text = ("CUDA_SEARCH_PATH ?= $(CUDA_PATH)/lib64/stubs\n"
            "CUDALIB ?= $(shell find -L $(CUDA_SEARCH_PATH) -maxdepth 1 -name libcuda.so 2> /dev/null)\n"
            'ifeq ("$(CUDALIB)","")\n  SAMPLE_ENABLED := 0\nendif\n')
    out = migrate("Makefile", text).output
    assert ("CUDALIB ?= $(shell find -L $(CUDA_SEARCH_PATH) $(ROCM_PATH)/lib /usr/lib/x86_64-linux-gnu -maxdepth 1 "
            "-name libamdhip64.so 2> /dev/null)") in out
    assert "libcuda" not in out


def test_make_unknown_nvcc_flags_are_findings():
    m = migrate("Makefile", "F := -maxrregcount=64 -Xnvlink --suppress-stack-size-warning\nprof:\n\tnvprof ./a\n"
                            "L := -lnvidia-ml -lcudnn\n")
    rules = {f.rule for f in m.findings}
    assert {"PORT147", "PORT165", "PORT166"} <= rules
    assert [f.line for f in m.findings if f.rule == "PORT166"] == [4, 4]  # PORT147: the catalogue's "nvcc-only options"
    assert all(f.category == "build-flag" for f in m.findings)
    # -maxrregcount (clang: "unknown argument") is removed, with what caps registers on AMD; -Xnvlink is reported
    assert m.output.startswith("F := -Xnvlink")
    (cap,) = [c for c in m.changes if "flag.maxrregcount" in c.rules]
    assert cap.line == 1 and "__launch_bounds__" in cap.why
    f = next(f for f in m.findings if f.line == 1)
    assert f.rule == "PORT147" and "-Xnvlink" in f.message


def test_cmake_modern():
    text = ("cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\n"
            "set(CMAKE_CUDA_ARCHITECTURES 80 90)\nset(CMAKE_CUDA_STANDARD 17)\nset(CMAKE_CUDA_FLAGS \"-O3\")\n"
            "find_package(CUDAToolkit REQUIRED)\nadd_library(k STATIC k.cu util.cpp)\n"
            "target_link_libraries(k PUBLIC CUDA::cudart CUDA::cublas CUDA::curand)\n"
            "target_compile_options(k PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math -Xcompiler=-Wall>)\n")
    out = migrate("CMakeLists.txt", text, arch="gfx942").output
    assert "cmake_minimum_required(VERSION 3.21)" in out
    assert "project(p LANGUAGES CXX HIP)" in out
    assert 'set(CMAKE_HIP_ARCHITECTURES gfx942 CACHE STRING "AMD GPU targets")' in out
    assert "set(CMAKE_HIP_STANDARD 17)" in out and 'set(CMAKE_HIP_FLAGS "-O3")' in out
    assert "find_package(hip REQUIRED)\nfind_package(hipblas REQUIRED)\nfind_package(hiprand REQUIRED)\n" in out
    assert "set_source_files_properties(k.cu PROPERTIES LANGUAGE HIP)\nadd_library(k STATIC k.cu util.cpp)" in out
    assert "target_link_libraries(k PUBLIC hip::host roc::hipblas hip::hiprand)" in out
    assert "$<$<COMPILE_LANGUAGE:HIP>:-ffast-math -Wall>" in out
    # CMake's HIP language caches its own default when project() runs: ours must come first
    assert out.index('set(CMAKE_HIP_ARCHITECTURES gfx942 CACHE STRING') < out.index("project(p LANGUAGES")


def test_cmake_target_arch_property_follows_the_chosen_arch():
    out = migrate("CMakeLists.txt", "project(x CUDA)\nadd_executable(a a.cu)\n"
                  "set_target_properties(a PROPERTIES CUDA_ARCHITECTURES 80 CUDA_STANDARD 17)\n", arch="gfx90a").output
    assert 'HIP_ARCHITECTURES "${CMAKE_HIP_ARCHITECTURES}" HIP_STANDARD 17' in out
    assert out.startswith('set(CMAKE_HIP_ARCHITECTURES gfx90a CACHE STRING "AMD GPU targets")\nproject(x HIP)\n')


def test_cmake_cuda_compile_features_become_hip_ones():
    # NVIDIA's cuda-samples (CMake only since 12.8): target_compile_features(t PRIVATE cxx_std_17 cuda_std_17)
    out = migrate("CMakeLists.txt", "project(x LANGUAGES CXX CUDA)\nadd_executable(a a.cu)\n"
                  "target_compile_features(a PRIVATE cxx_std_17 cuda_std_17)\n"
                  "target_compile_features(b PUBLIC $<BUILD_INTERFACE:cuda_std_20>)\n", arch="gfx942").output
    assert "target_compile_features(a PRIVATE cxx_std_17 hip_std_17)" in out
    assert "target_compile_features(b PUBLIC $<BUILD_INTERFACE:hip_std_20>)" in out
    assert "cuda_std" not in out


def test_cmake_legacy_findcuda_and_unknowns():
    text = ("find_package(CUDA REQUIRED)\nfile(GLOB KS src/*.cu)\ncuda_add_executable(app main.cu ${KS})\n"
            "target_link_libraries(app ${CUDA_LIBRARIES} CUDA::nvml)\ncuda_compile_ptx(p x.cu)\n"
            "set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS} -maxrregcount=32)\n")
    m = migrate("CMakeLists.txt", text)
    assert "add_executable(app main.cu ${KS})" in m.output
    assert "target_link_libraries(app hip::host CUDA::nvml)" in m.output
    assert "${KS}" in m.output.split("set_source_files_properties(")[1].split(")")[0]
    by_rule = {f.rule: f for f in m.findings}
    assert {"PORT161", "PORT163", "PORT164"} <= set(by_rule)
    assert "maxrregcount" not in m.output and any("flag.maxrregcount" in c.rules for c in m.changes)
    assert by_rule["PORT164"].line == 4 and "CUDA::nvml" in by_rule["PORT164"].message
    assert by_rule["PORT163"].message.startswith("cuda_compile_ptx:")


_tokens = st.sampled_from(["nvcc", "-arch=sm_80", "-gencode arch=compute_80,code=sm_80", "-lcudart", "-lcublas",
                           "-Xcompiler -Wall", "--use_fast_math", "$(CUDA_PATH)", "CUDA::cudart", "CUDA::cufft",
                           "project(x CUDA)", "find_package(CUDAToolkit)", "a.cu", "# c", "\\\n", "\n", " ", "=",
                           "add_executable(a a.cu)", "$(NVCC)", "-rdc=true", "-lineinfo", "(", ")", '"'])


@settings(max_examples=150, deadline=None)
@given(st.lists(_tokens, max_size=25), st.sampled_from(["Makefile", "CMakeLists.txt"]))
# the cases the property is for, fixed: a make recipe with the arch over a continuation line and -gencode
# (porter adds its HIP_ARCH default once), nvcc flags that have hipcc spellings, and a CMake project that gets
# the arch default, find_package lines and LANGUAGE HIP inserted (none of them may be added a second time)
@example(["$(NVCC)", "-arch=sm_80", "\\\n", "-gencode arch=compute_80,code=sm_80", "-lcudart", "a.cu", "\n"], "Makefile")
@example(["nvcc", "-Xcompiler -Wall", "--use_fast_math", "-rdc=true", "-lineinfo", "-lcublas", "$(CUDA_PATH)", "\n"],
         "Makefile")
@example(["project(x CUDA)", "\n", "find_package(CUDAToolkit)", "\n", "add_executable(a a.cu)", "\n", "CUDA::cudart",
          "CUDA::cufft", "\n"], "CMakeLists.txt")
# an unbalanced parenthesis and quote around a flag and a continuation
@example(["(", "nvcc", "-arch=sm_80", '"', "\\\n", ")"], "CMakeLists.txt")
# a call left open to the end of the file, with a .cu source in it (found by hypothesis: the last
# character was dropped from its arguments, so `a.cu` was seen only once a newline followed it)
@example(["CUDA::cudart", "(", "project(x CUDA)", "a.cu"], "CMakeLists.txt")
def test_migration_is_idempotent_on_any_mix(tokens, name):
    text = " ".join(tokens)
    out = migrate(name, text).output
    assert migrate(name, out).output == out


def test_every_build_finding_rule_has_a_catalogue_page():
    import tomllib
    from pathlib import Path

    from porter.findings import catalogue

    ids = set()
    for name in ("cmake.toml", "make.toml"):
        doc = tomllib.loads((Path(__file__).resolve().parents[2] / "porter" / "buildfiles" / name).read_text())
        ids |= {f["id"] for f in doc.get("finding", [])}
    cat = catalogue()
    assert ids and all(i in cat and cat[i].category == "build-flag" for i in ids), ids - set(cat)


def test_cmake_find_package_drops_cudas_version():
    """find_package(CUDAToolkit 11.0 REQUIRED) asks for CUDA 11; ROCm's hip package has its own versions."""
    out = migrate("CMakeLists.txt", "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX CUDA)\n"
                  "find_package(CUDAToolkit 11.0 REQUIRED)\nfind_package(CUDA 10 QUIET)\n").output
    assert "find_package(hip REQUIRED)" in out and "find_package(hip QUIET)" in out
    assert "11.0" not in out and "hip 10" not in out


def test_cmake_hip_architectures_is_set_once():
    """The arch default goes before project(); the body's CUDA arch set (here in an
    if(NOT DEFINED) that can no longer run) must not set it a second time."""
    sample = (Path(__file__).resolve().parents[2] / "sample_projects" / "warp_reduce" / "CMakeLists.txt").read_text()
    out = migrate("CMakeLists.txt", sample, arch="gfx942").output
    assert out.count("CMAKE_HIP_ARCHITECTURES") == 1, out
    assert out.index("set(CMAKE_HIP_ARCHITECTURES gfx942 CACHE") < out.index("project(")
    assert "if(NOT DEFINED" not in out and "endif()" not in out
    assert "set(CMAKE_HIP_STANDARD 17)\n\nfind_package(hip REQUIRED)" in out  # the lines around it stay
    plain = migrate("CMakeLists.txt", "project(p LANGUAGES CXX CUDA)\nset(CMAKE_CUDA_ARCHITECTURES 80)\n"
                    "add_executable(a a.cu)\n", arch="gfx90a").output
    assert plain.count("CMAKE_HIP_ARCHITECTURES") == 1 and "gfx90a" in plain
    # an arch set before project() (no default inserted) is kept, translated
    early = migrate("CMakeLists.txt", "set(CMAKE_CUDA_ARCHITECTURES 80)\nproject(p LANGUAGES CXX CUDA)\n"
                    "add_executable(a a.cu)\n").output
    assert early.count("CMAKE_HIP_ARCHITECTURES") == 1


def test_make_foreach_over_nvidia_archs_gives_one_offload_arch():
    text = ("NVCC := nvcc\nARCHS := 60 70 80\n"
            "GENCODE := $(foreach a,$(ARCHS),-gencode arch=compute_$(a),code=sm_$(a))\n"
            "FLAGS := -O2 -Wno-deprecated-gpu-targets\n"
            "app: k.cu\n\t$(NVCC) $(FLAGS) $(GENCODE) -o app k.cu\n")
    m = migrate("Makefile", text)
    assert "GENCODE := --offload-arch=$(HIP_ARCH)\n" in m.output
    assert m.output.count("--offload-arch") == 1 and "foreach" not in m.output
    assert "HIP_ARCH ?= gfx942" in m.output
    assert "-Wno-deprecated-gpu-targets" not in m.output and "FLAGS := -O2\n" in m.output
    assert migrate("Makefile", m.output).output == m.output
    # a loop that does something else is left alone
    other = "SRCS := $(foreach d,a b,$(wildcard $(d)/*.cu))\n"
    assert migrate("Makefile", other).output == other


def test_cmake_genex_left_with_no_flag_goes_whole():
    text = ("cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\nadd_executable(a a.cu)\n"
            "target_compile_options(a PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Wno-deprecated-gpu-targets> -Wall)\n"
            "target_compile_options(a PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)\n")
    out = migrate("CMakeLists.txt", text).output
    assert "COMPILE_LANGUAGE:HIP>:>" not in out
    assert "target_compile_options(a PRIVATE -Wall)\n" in out
    assert "target_compile_options(a PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-gline-tables-only>)\n" in out
    assert migrate("CMakeLists.txt", out).output == out


def test_make_rocm_path_only_when_used():
    """CUDA_HOME was only the nvcc path: once nvcc is hipcc, ROCM_PATH would be defined and never used."""
    out = migrate("Makefile", "CUDA_HOME ?= /usr/local/cuda\nNVCC ?= $(CUDA_HOME)/bin/nvcc\n"
                  "app: k.cu\n\t$(NVCC) -o app k.cu\n").output
    assert "ROCM_PATH" not in out and "CUDA_HOME" not in out
    assert out.endswith("export HIP_PLATFORM ?= amd\nHIPCC ?= hipcc\napp: k.cu\n\t$(HIPCC) --offload-arch=$(HIP_ARCH) -o app k.cu\n")
    used = migrate("Makefile", "CUDA_HOME ?= /usr/local/cuda\nLIBS := -L$(CUDA_HOME)/lib64 -lcudart\n").output
    assert "ROCM_PATH ?= /opt/rocm\n" in used and "$(ROCM_PATH)/lib" in used


def test_make_compile_with_no_arch_gets_the_target():
    """nvcc with no -arch builds code every NVIDIA GPU runs; hipcc with none builds for the build
    machine's GPU (gfx803 on one without, with ROCm 5.2's hipcc), so each compile names the target."""
    text = ("NVCC ?= nvcc\nFLAGS := -O2\nDEV := -arch=sm_80\n"
            "app: main.o k.o\n\t$(NVCC) $^ -o $@\n"            # a link of objects: the target is in them
            "main.o: main.cpp\n\t$(NVCC) $(FLAGS) -c $< -o $@\n"  # no target anywhere
            "k.o: k.cu\n\t@$(NVCC) $(FLAGS) $(DEV) -c $< -o $@\n"  # the target through a variable
            "one: one.cu\n\tnvcc -O2 -o one one.cu && ./one\n")    # compile and link in one step
    m = migrate("Makefile", text, arch="gfx90a")
    out = m.output
    assert out.startswith("# AMD GPU target (porter); build for another with: make HIP_ARCH=gfx90a\nHIP_ARCH ?= gfx90a\n")
    assert "\t$(HIPCC) $^ -o $@\n" in out
    assert "\t$(HIPCC) --offload-arch=$(HIP_ARCH) $(FLAGS) -c $< -o $@\n" in out
    assert "\t@$(HIPCC) $(FLAGS) $(DEV) -c $< -o $@\n" in out and "DEV := --offload-arch=$(HIP_ARCH)\n" in out
    # nvcc called by name runs $(HIPCC) too: one compiler, hipcc unless porter build passes its clang front end
    assert "\t$(HIPCC) --offload-arch=$(HIP_ARCH) -O2 -o one one.cu && ./one\n" in out
    (change,) = [c for c in m.changes if "make.compile-arch" in c.rules and c.line == 7]
    assert change.old == "\t$(NVCC) $(FLAGS) -c $< -o $@" and "build machine" in change.why
    assert migrate("Makefile", out, arch="gfx90a").output == out


def test_make_link_of_substituted_objects_gets_no_target():
    """$(SRCS:.cu=.o) names the objects: linking them compiles nothing, so nothing is added."""
    text = "SRCS := a.cu b.cu\nOBJS := $(SRCS:.cu=.o)\napp: $(OBJS)\n\tnvcc -o $@ $(OBJS)\n"
    out = migrate("Makefile", text).output
    assert "\t$(HIPCC) -o $@ $(OBJS)\n" in out and "--offload-arch" not in out and "HIPCC ?= hipcc\n" in out


def test_make_compile_arch_left_alone_when_flags_come_from_elsewhere():
    """A variable from an included file may carry the target; so does one that names it in every branch."""
    included = "include config.mk\napp: k.cu\n\tnvcc $(NVFLAGS) -o app k.cu\n"
    assert "--offload-arch" not in migrate("Makefile", included).output
    every = ("ifeq ($(DEBUG),1)\nNVFLAGS := -G -arch=sm_80\nelse\nNVFLAGS := -arch=sm_90\nendif\n"
             "BASE := -O2\nBASE += $(NVFLAGS)\napp: k.cu\n\tnvcc $(BASE) -o app k.cu\n")
    out = migrate("Makefile", every).output
    assert "\t$(HIPCC) $(BASE) -o app k.cu\n" in out and out.count("--offload-arch") == 2


def test_make_compile_arch_added_where_a_branch_names_none():
    """llm.c's dev/cuda Makefile: the arch comes from an NVIDIA query tool, and the branch taken without it
    (always, on an AMD machine) gives no target, so hipcc would build for the build machine's GPU or its
    fallback. The compile names the target itself; where the other branch does too, the target is the same."""
    text = ("ifndef GPU_COMPUTE_CAPABILITY\n  GPU_COMPUTE_CAPABILITY = $(shell __nvcc_device_query)\nendif\n"
            "ifeq ($(GPU_COMPUTE_CAPABILITY),)\n  CFLAGS = -O3 --use_fast_math\nelse\n"
            "  CFLAGS = -O3 --use_fast_math --generate-code arch=compute_$(GPU_COMPUTE_CAPABILITY),"
            "code=[compute_$(GPU_COMPUTE_CAPABILITY),sm_$(GPU_COMPUTE_CAPABILITY)]\nendif\n"
            "NVCC := $(shell which nvcc 2>/dev/null)\n%: %.cu\n\t$(NVCC) $(CFLAGS) $< -o $@\n")
    out = migrate("Makefile", text).output
    assert "\t$(HIPCC) --offload-arch=$(HIP_ARCH) $(CFLAGS) $< -o $@\n" in out
    debug_append = ("NVFLAGS := -arch=sm_90\nifeq ($(DEBUG),1)\nEXTRA += -arch=sm_80\nendif\n"
                    "app: k.cu\n\tnvcc $(EXTRA) -o app k.cu\n")
    assert "\t$(HIPCC) --offload-arch=$(HIP_ARCH) $(EXTRA) -o app k.cu\n" in migrate("Makefile", debug_append).output


def test_make_compiler_variable_set_to_nvcc_becomes_hipcc_through_a_variable():
    """The benchmark-suite shape: `CC = nvcc` and `-arch=$(ARCH)` with `ARCH = sm_60`.  The compiler
    becomes $(HIPCC) (hipcc unless `make HIPCC=...`: porter build passes its clang front end for a
    target the installed hipcc lacks) and the NVIDIA target the AMD one, through HIP_ARCH."""
    text = ("CC        = nvcc\nARCH      = sm_60\nCFLAGS := -std=c++14 -Xcompiler -Wall -arch=$(ARCH)\n"
            "main: main.o\n\t$(CC) $(CFLAGS) main.o -o $@\n%.o: %.cu Makefile\n\t$(CC) $(CFLAGS) -c $< -o $@\n")
    m = migrate("Makefile", text)
    out = m.output
    assert "CC        = $(HIPCC)\n" in out and "HIPCC ?= hipcc\n" in out and "HIP_ARCH ?= gfx942\n" in out
    assert "CFLAGS := -std=c++14 -Wall --offload-arch=$(HIP_ARCH)\n" in out
    assert "sm_60" not in out and "ARCH      =" not in out  # the NVIDIA target variable goes with its last use
    assert "\t$(CC) $(CFLAGS) -c $< -o $@\n" in out  # the target comes through CFLAGS: nothing added
    assert not [f for f in m.findings if f.rule == "PORT140"]
    assert migrate("Makefile", out).output == out


def test_make_arch_variable_of_another_kind_stays():
    """-arch=$(ARCH) where ARCH is not an NVIDIA target (set elsewhere, or a host arch) is left alone."""
    text = "ARCH ?= native\napp: a.cpp\n\tg++ -march=$(ARCH) -o app a.cpp\nk: k.cu\n\tnvcc -arch=$(GPU) -c k.cu\n"
    out = migrate("Makefile", text).output
    assert "ARCH ?= native\n" in out and "-arch=$(GPU)" in out


def test_make_host_flags_through_addprefix_and_nvcc_threads_run_in_make(tmp_path):
    """NVIDIA's samples' Makefiles prefix each host flag, `$(addprefix -Xcompiler ,$(CCFLAGS))`, and pass
    `--threads 0` (nvcc's parallel compile of several GPU archs) and `-maxrregcount=N` (a register cap). The migration wrote `$(addprefix $(CCFLAGS))`,
    which make rejects ("insufficient number of arguments"), and kept `--threads`, which clang rejects: every
    sample's build stopped there. Checked by running make on the migrated file."""
    import shutil
    import subprocess

    text = ("NVCC ?= nvcc\nCCFLAGS := -fPIC -Wall\nLDFLAGS := --as-needed\nALL_CCFLAGS :=\n"
            "ALL_CCFLAGS += $(addprefix -Xcompiler ,$(CCFLAGS))\n"
            "ALL_CCFLAGS += -maxrregcount=255 --threads 0 --std=c++11\n"
            "ALL_LDFLAGS := $(ALL_CCFLAGS) $(addprefix -Xlinker ,$(LDFLAGS))\n"
            "print:\n\t@echo $(ALL_LDFLAGS)\n"
            "app.o: app.cu\n\t$(NVCC) $(ALL_CCFLAGS) -arch=sm_80 -c $< -o $@\n")
    out = migrate("Makefile", text, arch="gfx942").output
    assert "$(addprefix ,$(CCFLAGS))" in out and "--threads" not in out and "-Xlinker ,$(LDFLAGS)" in out
    assert "maxrregcount" not in out  # (clang: "unknown argument: '-maxrregcount=255'")
    from required_tools import require

    make = shutil.which("make")
    require(make, "make not installed: cannot run the migrated Makefile")
    (tmp_path / "Makefile").write_text(out)
    r = subprocess.run([make, "-s", "print"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["-fPIC", "-Wall", "--std=c++11", "-Xlinker", "--as-needed"]
