; PORT001: inline assembly (asm / asm volatile / __asm__); the predicate keeps PTX,
; skips empty compiler barriers and AMDGCN assembly, and offers the idiom table's fix.
(gnu_asm_expression) @PORT001
