; PORT172: `h = {}` on a __half2 / half2 (the predicate checks the variable's type)
((assignment_expression
   left: (_) @lhs
   operator: "="
   right: (initializer_list) @init) @PORT172)
