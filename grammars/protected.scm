; Spans the translator must not rewrite: comments and literals.
; #include paths (the one string that is rewritten) are found from the text by
; porter.translate.source_index, so that an include next to a syntax error is still seen.
(comment) @protected
(string_literal) @protected
(raw_string_literal) @protected
(char_literal) @protected
(concatenated_string) @protected
; unparsed #define bodies: the translator finds literals inside them itself
(preproc_arg) @macro
