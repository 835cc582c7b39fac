; PORT150: static __shared__ arrays (the predicate adds up a function's arrays against 64 KiB)
(declaration
  (type_qualifier) @q
  type: (_) @type
  declarator: (array_declarator) @decl
  (#eq? @q "__shared__")) @PORT150

; PORT151: dynamic shared memory raised above 64 KiB
((call_expression
   function: (identifier) @fn
   arguments: (argument_list (_) (_) @attr (_) @value)) @PORT151
 (#match? @fn "^(cuda|hip)FuncSetAttribute$")
 (#match? @attr "MaxDynamicSharedMemorySize$"))
