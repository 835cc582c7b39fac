; PORT050: the WMMA header
((preproc_include path: (_) @path) @PORT050
 (#match? @path "^[<\"](mma\\.h|crt/mma\\.h|cuda/barrier_mma|mma\\.hpp)[>\"]$"))

; PORT051: nvcuda::wmma API uses (the predicate reports the first one per function / scope)
((namespace_identifier) @ns @PORT051
 (#match? @ns "^(nvcuda|wmma)$"))
((using_declaration (identifier) @ns) @PORT051
 (#eq? @ns "nvcuda"))
((using_declaration (qualified_identifier) @ns) @PORT051
 (#match? @ns "^nvcuda::wmma$"))

; PORT052: tensor-core PTX (mma.sync, wgmma, ldmatrix) in inline asm
(gnu_asm_expression) @PORT052
