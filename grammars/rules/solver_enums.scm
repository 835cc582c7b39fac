; PORT031: a variable or parameter passed to a cuSOLVER call (the predicate checks that it is
; declared with a cuBLAS enum type that the translation leaves a hipBLAS type)
((call_expression
   function: (identifier) @fn
   arguments: (argument_list (identifier) @PORT031))
 (#match? @fn "^cusolver"))
