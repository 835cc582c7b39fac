; PORT189: __half / __half2 arithmetic or comparison in host code (porter/findings/predicates/host_half.py):
; HIP's operators are __device__ only before ROCm 6.4.  Candidates: a function that names half, and a function
; template (whose body need not name half: its instantiation does); the predicate reads the host ones that
; name a half type or that the file instantiates with one, and their operators' operands' declarations.
(function_definition body: (compound_statement)) @PORT189
(template_declaration (function_definition body: (compound_statement))) @PORT189
