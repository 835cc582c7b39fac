; PORT190: a CUdeviceptr (an unsigned long long in CUDA, hipDeviceptr_t, a void*, in HIP) used as an integer:
; given one, stored into one, in arithmetic, compared with one (porter/findings/predicates/driver_pointers.py)
((assignment_expression) @PORT190)
((init_declarator value: (_)) @PORT190)
((binary_expression) @PORT190)
