"""Rule pages link the documents they cite (issue 14): every document named in a rule's `docs`
has an entry page in doc_sites.toml, and `porter explain`, the app's rule page and SARIF show it."""

from __future__ import annotations

import pytest

from porter.findings.catalogue import catalogue, doc_sites


def test_every_cited_document_has_a_link():
    sites = doc_sites()
    missing = sorted({(d.split(":", 1)[0].strip(), rule.id) for rule in catalogue().values() for d in rule.docs
                      if d.split(":", 1)[0].strip() not in sites})
    assert not missing, f"add these documents to porter/findings/doc_sites.toml: {missing}"
    cited = {d.split(":", 1)[0].strip() for rule in catalogue().values() for d in rule.docs}
    assert not set(sites) - cited, "doc_sites.toml names documents no rule cites"


def test_the_rule_page_puts_each_link_under_its_section():
    rule = catalogue()["PORT010"]
    page = rule.page_text().splitlines()
    first = page.index("HIP/ROCm documentation")
    cited = page[first + 2:]
    for title, url in rule.doc_links():
        k = cited.index(f"- {title}")
        assert cited[k + 1] == f"  {url}" and url.startswith("https://")
    assert "  https://rocm.docs.amd.com/projects/HIP/en/latest/" in cited  # the warp-size pages are HIP's


def test_sarif_points_at_the_first_cited_document():
    rule = catalogue()["PORT010"]
    assert rule.as_sarif()["helpUri"] == rule.doc_links()[0][1]


def test_a_link_that_is_not_https_is_refused(tmp_path):
    bad = tmp_path / "sites.toml"
    bad.write_text('[sites]\n"HIP Programming Guide" = "rocm.docs.amd.com/projects/HIP"\n')
    with pytest.raises(ValueError, match="not an https link: HIP Programming Guide"):
        doc_sites.__wrapped__(bad)
