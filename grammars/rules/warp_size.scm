; PORT010: a warp-size macro or constant defined as 32
((preproc_def
   name: (identifier) @name
   value: (preproc_arg) @value) @PORT010
 (#match? @name "[Ww][Aa][Rr][Pp]_?([Ss][Ii][Zz][Ee]|[Ss][Zz]|[Ww][Ii][Dd][Tt][Hh]|[Ll][Aa][Nn][Ee][Ss])$"))
((declaration
   declarator: (init_declarator
     declarator: (identifier) @name
     value: (number_literal) @value)) @PORT010
 (#match? @name "[Ww][Aa][Rr][Pp]_?([Ss][Ii][Zz][Ee]|[Ss][Zz]|[Ww][Ii][Dd][Tt][Hh]|[Ll][Aa][Nn][Ee][Ss])$")
 (#match? @value "^32[uU]?$"))

; PORT011: lane / warp index arithmetic with 31, 32 or 5 (& % >> /); a warp number times 32 (warp * 32);
; a lane test against the last lane or the width of a 32-lane warp (lane == 31, (lane + d) > 31).
; One pattern for all three (each pattern costs every process compile time): the predicate reads the operator.
; (operator: _ with #any-of?, not an alternation ["&" "%" ...] of the 11 tokens: tree-sitter's query analysis
; expands such an alternation per token: 338 M instructions more to compile this file, and slower matching.)
((binary_expression
   left: (_) @lhs
   operator: _ @op
   right: (number_literal) @n) @PORT011
 (#any-of? @op "&" "%" ">>" "/" "*" "==" "!=" ">" ">=" "<" "<=")
 (#match? @n "^((31|0[xX]1[fF]|32|5)[uU]?|32\\.0*[fF]?)$"))
((binary_expression left: (number_literal) @n operator: "*" @op right: (_) @lhs) @PORT011
 (#match? @n "^32[uU]?$"))

; PORT012: a shuffle loop that starts at offset 16 (a 32-lane reduction)
; (one pattern, the two initializers as an alternation: two patterns cost more to compile)
(for_statement
  initializer: [(declaration
                  declarator: (init_declarator declarator: (identifier) @var value: (number_literal) @start))
                (assignment_expression left: (identifier) @var right: (number_literal) @start)]
  body: (_) @body
  (#match? @start "^16[uU]?$")) @PORT012

; PORT012: an unrolled shared-memory scan or reduction whose last step is 16 (s[i] += s[i - 16])
((subscript_expression
   argument: (identifier) @base
   indices: (subscript_argument_list (binary_expression operator: ["-" "+"] right: (number_literal) @n))) @PORT012
 (#match? @n "^16[uU]?$"))

; PORT012: an unrolled reduction whose first shuffle offset is 16
((call_expression
   function: (identifier) @fn
   arguments: (argument_list)) @PORT012
 (#match? @fn "^__shfl_(down|xor)(_sync)?$"))

; PORT013: a __shared__ array with one slot per 32-lane warp
(declaration
  (type_qualifier) @q
  declarator: (array_declarator
    declarator: (identifier) @name
    size: (_) @size)
  (#eq? @q "__shared__")) @PORT013

; PORT013: a pointer into a __shared__ buffer past its first 32 slots (&s_mem[32], s_mem + 32)
; (one pattern, the two values as an alternation: the declaration's analysis is then done once, 118 M instructions less)
(declaration
  declarator: (init_declarator
    declarator: (pointer_declarator declarator: (identifier) @ptr)
    value: [(pointer_expression
              argument: (subscript_expression
                argument: (identifier) @base
                indices: (subscript_argument_list (_) @off)))
            (binary_expression left: (identifier) @base operator: "+" right: (_) @off)])) @PORT013

; PORT014: a loop over the 32 lanes of a warp
(for_statement
  condition: (binary_expression
    left: (identifier) @var
    operator: ["<" "<="] @op
    right: (_) @bound)
  body: (_) @body) @PORT014

; PORT016: launch geometry in rows of 32 threads: dim3 b(32, 8), dim3 b{WARP_SIZE, 4}, dim3(32, 4), <<<g, 32>>>
; (only a literal 32, a macro-style name or a warp-named one can be a warp width: the query filters the rest;
; dim3 b(WARP_SIZE, warps) parses as a function declaration: the second pattern)
((declaration
   type: (type_identifier) @t
   declarator: (init_declarator value: [(argument_list . (_) @first) (initializer_list . (_) @first)] @args)) @PORT016
 (#eq? @t "dim3")
 (#match? @first "^(32[uU]?|[A-Z_][A-Z0-9_]*|[A-Za-z_0-9]*([Ww]arp|WARP|[Ll]ane|LANE)[A-Za-z_0-9]*)$"))
((declaration
   type: (type_identifier) @t
   declarator: (function_declarator parameters: (parameter_list . (_) @first) @args)) @PORT016
 (#eq? @t "dim3")
 (#match? @first "^([A-Z_][A-Z0-9_]*|[A-Za-z_0-9]*([Ww]arp|WARP|[Ll]ane|LANE)[A-Za-z_0-9]*)$"))
((call_expression function: (identifier) @t arguments: (argument_list . (_) @first) @args) @PORT016
 (#eq? @t "dim3")
 (#match? @first "^(32[uU]?|[A-Z_][A-Z0-9_]*|[A-Za-z_0-9]*([Ww]arp|WARP|[Ll]ane|LANE)[A-Za-z_0-9]*)$"))
; (any launch: the predicate also looks for blocks built from 32 (<<<g, 8 * 32>>>, or a variable of the host
; function set so: int threads = 32 * n), grids of one 32-thread warp per item ((n + 7) / 8 blocks of 256)
; and blocks that are no whole wave for a kernel dividing by warpSize)
((kernel_call_syntax . (_) @grid . (_) @first) @args @PORT016)

; PORT016: a warp count computed on the host with 32 lanes (threads / 32, nthreads >> 5)
((binary_expression
   left: (_) @lhs
   operator: ["/" ">>"] @op
   right: (number_literal) @n) @PORT016
 (#match? @n "^(32|5)[uU]?$")
 (#match? @lhs "[Tt]hread|THREAD|[Bb]lock_?[Ss]ize|BLOCK_?SIZE|[Bb]lock[Dd]im|[Bb]dim|BDIM|[Tt]pb|TPB|\\b[Nn][Tt]\\b"))

; PORT016: a host-side block width of 32 under a name (int threads_x = 32; block_x = 32)
((init_declarator declarator: (identifier) @name value: (number_literal) @n) @PORT016
 (#match? @name "^([Tt]hreads?_?[Xx]|[Bb]lock_?[Xx]|[Bb]dim_?[Xx]|[Nn]threads_?[Xx]|THREADS_X|BLOCK_X|BDIM_X)$")
 (#match? @n "^32[uU]?$"))
((assignment_expression left: (identifier) @name right: (number_literal) @n) @PORT016
 (#match? @name "^([Tt]hreads?_?[Xx]|[Bb]lock_?[Xx]|[Bb]dim_?[Xx]|[Nn]threads_?[Xx]|THREADS_X|BLOCK_X|BDIM_X)$")
 (#match? @n "^32[uU]?$"))

; PORT027: a CUB warp collective whose logical warp width is left to its default (32 in CUB, the
; hardware wave in hipCUB: 64 on gfx942): cub::WarpReduce<float>, WarpScan<int>::TempStorage
((template_type name: (type_identifier) @name arguments: (template_argument_list) @args) @PORT027
 (#match? @name "^Warp(Reduce|Scan|Load|Store|Exchange)$"))
((template_function name: (identifier) @name arguments: (template_argument_list) @args) @PORT027
 (#match? @name "^Warp(Reduce|Scan|Load|Store|Exchange)$"))
