; Calls that compile in CUDA and not against HIP's headers as they are (porter/findings/predicates/hipheaders.py).

; PORT174: min / max with a built-in coordinate (threadIdx.x, blockDim.x ...) and an operand of another
; integer type: ambiguous with HIP 5.2's overloads
((call_expression function: (identifier) @fn arguments: (argument_list) @args) @PORT174
 (#match? @fn "^(min|max)$"))

; PORT175: atomicInc / atomicDec, whose HIP 5.2 definition LLVM 17+ cannot link, and their _block and
; _system forms, which HIP does not declare
((call_expression function: (identifier) @fn arguments: (argument_list) @args) @PORT175
 (#match? @fn "^(atomicInc|atomicDec|atomicInc_block|atomicDec_block|atomicInc_system|atomicDec_system)$"))

; PORT177: CUDA's integer min/max of one type (umin, umax, llmin, llmax, ullmin, ullmax): no HIP header has them
((call_expression function: (identifier) @fn arguments: (argument_list) @args) @PORT177
 (#match? @fn "^(umin|umax|llmin|llmax|ullmin|ullmax)$"))
; (the global one called by its qualified name: `::umin(a, b)`)
((call_expression function: (qualified_identifier !scope name: (identifier) @fn) arguments: (argument_list) @args) @PORT177
 (#match? @fn "^(umin|umax|llmin|llmax|ullmin|ullmax)$"))

; PORT186: __ffs / __ffsll, which HIP declares for a signed and an unsigned argument (CUDA: int, long long)
((call_expression function: (identifier) @fn arguments: (argument_list) @args) @PORT186
 (#match? @fn "^(__ffs|__ffsll)$"))

; PORT187: __popc / __popcll / __ffs / __ffsll, int in CUDA and unsigned int in HIP, in arithmetic the type decides
((call_expression function: (identifier) @fn arguments: (argument_list) @args) @PORT187
 (#match? @fn "^(__popc|__popcll|__ffs|__ffsll)$"))
