; PORT020: *_sync warp intrinsics that take a 32-bit lane mask
((call_expression
   function: (identifier) @fn
   arguments: (argument_list)) @PORT020
 (#match? @fn "^__(shfl|shfl_up|shfl_down|shfl_xor|ballot|any|all|match_any|match_all|reduce_add|reduce_min|reduce_max|reduce_and|reduce_or|reduce_xor)_sync$"))
; PORT020: the same intrinsics inside a function-like macro (#define SHFL_XOR(v, m) __shfl_xor_sync(...)),
; whose body tree-sitter does not parse: porter.findings.predicates.lanes reads the calls from its text
((preproc_function_def value: (preproc_arg) @PORT020))

; PORT021: __syncwarp
((call_expression function: (identifier) @fn) @PORT021
 (#eq? @fn "__syncwarp"))

; PORT022: __activemask()
((call_expression function: (identifier) @fn) @PORT022
 (#eq? @fn "__activemask"))

; PORT023: a 64-bit ballot (HIP spelling) stored in a 32-bit integer
(declaration
  type: (_) @type
  declarator: (init_declarator
    value: (call_expression function: (identifier) @fn) @PORT023)
  (#match? @fn "^__(ballot(64)?|ballot_sync|match_any_sync|activemask)$"))

; PORT023: a CUDA ballot, match or active mask assigned to a variable declared earlier (int mask; mask = __ballot_sync(...))
(assignment_expression
  left: (identifier) @var
  right: (call_expression function: (identifier) @fn) @PORT023
  (#match? @fn "^__(ballot_sync|match_any_sync|activemask)$"))

; PORT024: __popc / __ffs / __clz of a 64-bit ballot
((call_expression
   function: (identifier) @fn
   arguments: (argument_list . (_) @arg .)) @PORT024
 (#match? @fn "^__(popc|ffs|clz)$"))

; PORT025: 1 << lane: a 32-bit mask for a lane that can be 32..63
((binary_expression
   left: (number_literal) @one
   operator: "<<"
   right: (_) @shift) @PORT025
 (#match? @one "^1[uU]?$"))
; PORT025: an all-ones mask shifted by the lane: -1 << lane, ~0u << lane, 0xffffffff << lane
((binary_expression
   left: [(unary_expression) (number_literal)] @one
   operator: "<<"
   right: (_) @shift) @PORT025
 (#match? @one "^(-\\s*1|~\\s*0[uU]?|0[xX][fF]{8}[uU]?)$"))

; PORT026: a named 32-bit all-lanes mask (#define FULL_MASK 0xffffffff, const unsigned kFull = 0xffffffffu)
((preproc_def name: (identifier) @name value: (preproc_arg) @value) @PORT026
 (#match? @value "0[xX][fF]{8}"))
((declaration
   declarator: (init_declarator declarator: (identifier) @name value: (number_literal) @value)) @PORT026
 (#match? @value "^0[xX][fF]{8}[uU]?[lL]{0,2}$"))

; PORT028: a lane-mask helper declared with a 32-bit result (%lanemask_lt in PTX, (1u << lane) - 1);
; porter.findings.predicates.lanes also reports the calls that keep its result in 32 bits
(function_definition
  type: [(primitive_type) (sized_type_specifier) (type_identifier)] @type
  declarator: (function_declarator declarator: (identifier) @name)
  body: (compound_statement)) @PORT028
