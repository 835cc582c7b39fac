; PORT031: an identifier passed to a cuSOLVER call (the predicate checks that it is a cuBLAS enum
; constant, or a variable or parameter declared with a cuBLAS enum type: rules.toml [solver_enums])
((call_expression
   function: (identifier) @fn
   arguments: (argument_list (identifier) @PORT031))
 (#match? @fn "^cusolver"))
