; Storage classes nvcc accepts and HIP's compiler does not (porter/findings/predicates/storage_class.py).

; PORT193: the `register` storage class, which C++17 removed: clang rejects it in C++17 (HIP's default), nvcc
; accepts it (a declaration, a parameter, a for-loop's declaration)
((storage_class_specifier) @PORT193
 (#eq? @PORT193 "register"))
