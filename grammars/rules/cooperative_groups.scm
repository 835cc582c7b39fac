; PORT070: grid-wide synchronisation: this_grid() (needs a cooperative launch)
((call_expression function: [(identifier) (qualified_identifier)] @fn) @PORT070
 (#match? @fn "(^|::)this_grid$"))
((call_expression function: [(identifier) (qualified_identifier)] @fn) @PORT070
 (#match? @fn "(^|::)this_multi_grid$"))

; PORT071: cooperative-groups features HIP lacks: reduce/scan, invoke_one, labeled/binary partitions
; (memcpy_async/wait are PORT060's; cluster groups, this_cluster() and cluster_group, are PORT073's: clusters.scm)
((preproc_include path: (_) @path) @PORT071
 (#match? @path "^[<\"]cooperative_groups/(reduce|scan)\\.h[>\"]$"))
((call_expression function: (qualified_identifier) @fn) @PORT071
 (#match? @fn "^(cg|cooperative_groups)::(inclusive_scan|exclusive_scan|invoke_one|invoke_one_broadcast|labeled_partition|binary_partition)$"))
;    cg::reduce under any spelling of the namespace (an alias, a using-directive): the predicate checks the name
((call_expression function: [(identifier) (qualified_identifier)] @fn) @PORT071
 (#match? @fn "(^|::)reduce$"))
((qualified_identifier) @fn @PORT071
 (#match? @fn "^(cg|cooperative_groups)::(plus|less|greater|bit_and|bit_or|bit_xor)$"))
;    tiled_partition<N>(parent), the parent a tile (HIP partitions a thread_block only): the predicate checks the parent
((call_expression function: [(template_function) (qualified_identifier)] @part arguments: (argument_list)) @PORT071
 (#match? @part "(^|::)\\s*tiled_partition\\s*<"))
;    anything of cooperative_groups::experimental (CUDA's tiles of more than 32 threads, before CUDA 12 moved them
;    out of it): HIP has no such namespace; the predicate leaves block_tile_memory and this_thread_block(scratch) to
;    the patterns below, and checks the outer name is cooperative_groups'
((qualified_identifier scope: (namespace_identifier) @ns name: (qualified_identifier scope: (namespace_identifier) @exp)) @PORT071
 (#eq? @exp "experimental"))
((namespace_alias_definition (nested_namespace_specifier (namespace_identifier) @exp .)) @PORT071
 (#eq? @exp "experimental"))
;    block_tile_memory (CUDA's scratch for tiles of more than 32 threads) and this_thread_block(scratch)
((template_type name: (type_identifier) @fn) @PORT071
 (#eq? @fn "block_tile_memory"))
((call_expression function: [(identifier) (qualified_identifier)] @fn arguments: (argument_list (_))) @PORT071
 (#match? @fn "(^|::)this_thread_block$"))

; PORT072: tiled_partition with a warp-sized tile
((template_function name: (identifier) @fn arguments: (template_argument_list (_) @size)) @PORT072
 (#match? @fn "^tiled_partition$"))
((template_type name: (type_identifier) @fn arguments: (template_argument_list (_) @size)) @PORT072
 (#match? @fn "^thread_block_tile$"))

; PORT188: a tile's (or coalesced group's) shuffle: HIP's take integer and floating scalars only (the predicate
; reads the group's and the value's declarations)
((call_expression function: (field_expression field: (field_identifier) @method) arguments: (argument_list) @args) @PORT188
 (#match? @method "^(shfl|shfl_up|shfl_down|shfl_xor)$"))

; PORT194: a tile's (or coalesced group's) vote, which HIP's groups lack before ROCm 7.0 unless
; HIP_ENABLE_WARP_SYNC_BUILTINS is defined (6.2 on): the predicate reads the group's declaration
((call_expression function: (field_expression field: (field_identifier) @method) arguments: (argument_list)) @PORT194
 (#match? @method "^(any|all|ballot|match_any|match_all)$"))
