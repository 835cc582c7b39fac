; Spans the translator must not rewrite: comments and literals.
; An #include path is captured separately: it is the one string that is rewritten.
(comment) @protected
(string_literal) @protected
(raw_string_literal) @protected
(char_literal) @protected
(concatenated_string) @protected
(preproc_include path: (_) @include)
; unparsed #define bodies: the translator finds literals inside them itself
(preproc_arg) @macro
