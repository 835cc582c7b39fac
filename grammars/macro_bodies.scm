; Unparsed #define bodies (the findings rules read object-like macros from them;
; launches inside macros are rewritten from them).  Comments and literals, which
; the translator must not rewrite, are found by porter.parse.lexical, not here.
(preproc_arg) @macro
