"""Which files a Makefile's pattern rule lacks when make says "No rule to make target" (porter/buildfiles/make_rules)."""

from porter.buildfiles.make_rules import unmade


def test_the_missing_prerequisites_of_the_matching_pattern_rule(tmp_path):
    (tmp_path / "main.cu").write_text("")
    (tmp_path / "support").mkdir()
    (tmp_path / "support" / "common.h").write_text("")
    (tmp_path / "Makefile").write_text(
        "HDRS = support/common.h \\\n  support/timer.h\n"
        "gen.h: gen.py\n\tpython3 gen.py > $@\n"
        "%.o: %.cu $(HDRS) gen.h Makefile\n\tnvcc -c $< -o $@\n"
        "%.ptx: %.cu missing.h\n\tnvcc -ptx $<\n")
    (u,) = unmade(tmp_path / "Makefile", "main.o")
    # a file another rule makes (gen.h) is not missing; the variable's continued value is read
    # (the Makefile itself exists: it is being read)
    assert u.line == 5 and u.missing == ("support/timer.h",) and u.rule.startswith("%.o: %.cu")
    # the stem: a missing source is named too
    (u,) = unmade(tmp_path / "Makefile", "other.o")
    assert u.missing == ("other.cu", "support/timer.h")
    assert unmade(tmp_path / "Makefile", "main") == []
