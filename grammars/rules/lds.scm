; PORT150: static __shared__ arrays (the predicate adds up a function's arrays against 64 KiB)
(declaration
  (type_qualifier) @q
  type: (_) @type
  declarator: (array_declarator) @decl
  (#eq? @q "__shared__")) @PORT150

; PORT151: dynamic shared memory above 64 KiB (the predicate follows the size to its value):
; the attribute that raises the limit (runtime and driver API)
((call_expression
   function: (identifier) @fn
   arguments: (argument_list (_) (_) @attr (_) @value)) @PORT151
 (#match? @fn "^(cuda|hip)FuncSetAttribute$")
 (#match? @attr "MaxDynamicSharedMemorySize$"))
((call_expression
   function: (identifier) @fn
   arguments: (argument_list (_) (_) @attr (_) @value)) @PORT151
 (#match? @fn "^(cu|hip)FuncSetAttribute$")
 (#match? @attr "^(CU|HIP)_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES$"))
; the size a launch asks for: k<<<grid, block, bytes[, stream]>>>(...)
((call_expression
   (kernel_call_syntax . (_) . (_) . (_) @value) @launch) @PORT151)
; hipLaunchKernelGGL(k, grid, block, bytes, ...), cudaLaunchKernel(k, grid, block, args, bytes, stream), ...
((call_expression
   function: (identifier) @fn
   arguments: (argument_list) @args) @PORT151
 (#match? @fn "^(hipLaunchKernelGGL|cudaLaunchKernel|hipLaunchKernel|cudaLaunchCooperativeKernel|hipLaunchCooperativeKernel|cuLaunchKernel|hipModuleLaunchKernel|cuLaunchCooperativeKernel|hipModuleLaunchCooperativeKernel)$"))
; cudaLaunchConfig_t config; config.dynamicSmemBytes = bytes;
((assignment_expression
   left: (field_expression field: (field_identifier) @field)
   right: (_) @value) @PORT151
 (#eq? @field "dynamicSmemBytes"))
