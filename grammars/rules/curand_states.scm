; cuRAND generator states constructed where hipRAND's constructor cannot run
; (porter/findings/predicates/curand_states.py decides from the declaration's place and qualifiers).

; PORT184: a variable (or array) of a state type
((declaration type: (type_identifier) @type) @PORT184
 (#match? @type "^curandState(XORWOW|Philox4_32_10|MRG32k3a|Mtgp32|Sobol32|ScrambledSobol32|Sobol64|ScrambledSobol64)?(_t)?$"))
; ... or states made with new
((new_expression type: (type_identifier) @type) @PORT184
 (#match? @type "^curandState(XORWOW|Philox4_32_10|MRG32k3a|Mtgp32|Sobol32|ScrambledSobol32|Sobol64|ScrambledSobol64)?(_t)?$"))
