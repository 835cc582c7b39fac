"""A source file with one byte that is not UTF-8 (a Latin-1 comment, as in about 1% of the files
of a real suite) is converted by the app as `porter convert` converts it, byte for byte; it was
refused and `w` copied it unconverted as an "other file" (issue 33 item 11)."""

from __future__ import annotations

from tui_helpers import SIZE, make_app, notes, open_file, sync

from porter.project.convert import convert_tree

# CUDA runtime calls around a comment written in Latin-1: "café" ends in the byte 0xE9
LATIN1 = (b"#include <cstdio>\n#include <cuda_runtime.h>\n"
          b"// caf\xe9: the buffer lives on the device\n"
          b"__global__ void fill(float *x) { x[threadIdx.x] = 1.0f; }\n"
          b"int main() {\n    float *d = nullptr;\n    cudaMalloc(&d, 32 * sizeof(float));\n"
          b"    fill<<<1, 32>>>(d);\n    cudaDeviceSynchronize();\n    cudaFree(d);\n"
          b"    printf(\"done\\n\");\n    return 0;\n}\n")


@sync
async def test_a_file_with_a_byte_that_is_not_utf8_is_converted_and_written_as_porter_convert_does(tmp_path):
    src = tmp_path / "proj"
    src.mkdir()
    (src / "main.cu").write_bytes(LATIN1)
    cli_out = tmp_path / "by-convert"
    convert_tree(src, cli_out)
    expected = (cli_out / "main.cu").read_bytes()
    assert b"hipMalloc" in expected and b"caf\xe9:" in expected  # the CLI converts it and keeps the byte

    app = make_app(src, out=tmp_path / "by-app")
    async with app.run_test(size=SIZE) as pilot:
        fr = await open_file(app, pilot, "main.cu")
        assert fr.status == "ready" and fr.hunks  # reviewed like any other file, not refused
        assert any("line 3 has a byte that is not UTF-8" in w for w in fr.warnings)
        # on screen the byte is one cell, U+FFFD, as editors draw it (a lone surrogate written to the
        # terminal would come out as a 6-character escape and shift the line)
        drawn = ["".join(seg.text for seg in app.diff.render_line(y)) for y in range(app.diff.size.height)]
        comment = next(line for line in drawn if "the buffer lives on the device" in line)
        assert "caf\ufffd:" in comment and not any(0xD800 <= ord(c) < 0xE000 for c in comment)
        await pilot.press("e")  # the built-in editor would turn the byte into U+FFFD: it says so instead
        await pilot.pause()
        assert type(app.screen).__name__ == "MainScreen"
        assert any("not UTF-8: e would change it" in n for n in notes(app))
        await pilot.press("A", "w")
        await pilot.pause()
        while any(w.group == "write" and w.is_running for w in app.workers):
            await pilot.pause()
    assert (tmp_path / "by-app" / "main.cu").read_bytes() == expected
