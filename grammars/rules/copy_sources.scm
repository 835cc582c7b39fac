; PORT191: a pointer to const host data given to cuMemcpyHtoD / cuMemcpyHtoDAsync, whose HIP forms take `void*`
; before HIP 7.0 (porter/findings/predicates/copy_sources.py)
((call_expression function: (identifier) @fn) @PORT191
 (#match? @fn "^cuMemcpyHtoD(Async)?(_v2)?$"))
