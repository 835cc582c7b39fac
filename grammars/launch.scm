; kernel launches: kernel<<<grid, block, shmem, stream>>>(args)
(call_expression
  function: (_) @kernel
  (kernel_call_syntax) @config
  arguments: (argument_list) @args) @launch
