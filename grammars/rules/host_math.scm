; PORT192: a CUDA math function HIP declares for device code only, called in host code (the names: the
; catalogue's triggers; porter/findings/predicates/host_math.py)
((call_expression function: (identifier) @fn arguments: (argument_list) @args) @PORT192)
