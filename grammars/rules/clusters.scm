; PORT073: thread-block clusters and distributed shared memory (sm_90+): no AMD GPU has them.
; The predicate (porter/findings/predicates/clusters.py) reports each place once.

; __cluster_dims__(X, Y, Z) on a kernel: the grammar reads it as a call or a declarator
((identifier) @name @PORT073
 (#eq? @name "__cluster_dims__"))
; ... or a macro whose body holds it
((preproc_def value: (preproc_arg) @body) @PORT073
 (#match? @body "__cluster_dims__"))
((preproc_function_def value: (preproc_arg) @body) @PORT073
 (#match? @body "__cluster_dims__"))

; cg::this_cluster(), cooperative_groups::this_cluster(), this_cluster() under a using-directive
((call_expression function: [(identifier) (qualified_identifier)] @fn) @PORT073
 (#match? @fn "(^|::)this_cluster$"))
; cg::cluster_group::block_rank() and the other static members
((call_expression function: (qualified_identifier) @fn) @PORT073
 (#match? @fn "(^|::)cluster_group::[a-z_]+$"))
; the cluster_group type (a variable, a parameter, a template argument)
((type_identifier) @name @PORT073
 (#eq? @name "cluster_group"))
; the members of a cluster group: cluster.map_shared_rank(p, r), cluster.sync(), cluster.block_rank(), ...
; (the predicate checks that the object is a cluster group)
((call_expression
   function: (field_expression argument: (_) @obj field: [(field_identifier) (template_method)] @member)) @PORT073
 (#match? @member "^(map_shared_rank|query_shared_rank|sync|barrier_arrive|barrier_wait|block_rank|block_index|num_blocks|dim_blocks|thread_rank|thread_index|num_threads|dim_threads)(<.*)?$"))
; cg::sync(cluster)
((call_expression
   function: [(identifier) (qualified_identifier)] @fn
   arguments: (argument_list . (identifier) @obj .)) @PORT073
 (#match? @fn "(^|::)sync$"))

; the cluster API of the runtime and the driver (CUDA's names, and the HIP names a recent HIP declares)
((identifier) @name @PORT073
 (#match? @name "^(cuda|hip)(LaunchAttribute(Preferred)?Cluster(Dimension|SchedulingPolicyPreference)|KernelNodeAttributeCluster(Dimension|SchedulingPolicyPreference)|FuncAttribute(NonPortableClusterSizeAllowed|RequiredCluster(Width|Height|Depth)|ClusterDimMustBeSet|ClusterSchedulingPolicyPreference)|OccupancyMaxActiveClusters|OccupancyMaxPotentialClusterSize|ClusterSchedulingPolicy(Default|Spread|LoadBalancing)|DevAttrClusterLaunch|DeviceAttributeClusterLaunch)$"))
((identifier) @name @PORT073
 (#match? @name "^(CU|HIP)_(LAUNCH_ATTRIBUTE_(PREFERRED_)?CLUSTER_(DIMENSION|SCHEDULING_POLICY_PREFERENCE)|KERNEL_NODE_ATTRIBUTE_CLUSTER_(DIMENSION|SCHEDULING_POLICY_PREFERENCE)|FUNC_ATTRIBUTE_(NON_PORTABLE_CLUSTER_SIZE_ALLOWED|REQUIRED_CLUSTER_(WIDTH|HEIGHT|DEPTH)|CLUSTER_SIZE_MUST_BE_SET|CLUSTER_SCHEDULING_POLICY_PREFERENCE)|CLUSTER_SCHEDULING_POLICY_(DEFAULT|SPREAD|LOAD_BALANCING)|DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)$|^(cu|hip)OccupancyMax(ActiveClusters|PotentialClusterSize)$"))
((type_identifier) @name @PORT073
 (#match? @name "^((cuda|hip)ClusterSchedulingPolicy|CUclusterSchedulingPolicy(_enum)?)$"))
; CUDA's cluster intrinsics (cooperative_groups' cluster_group is built on them)
((identifier) @name @PORT073
 (#match? @name "^(__clusterDim|__clusterIdx|__clusterRelativeBlockIdx|__clusterRelativeBlockRank|__clusterSizeInBlocks|__clusterGridDimInClusters|__clusterDimIsSpecified|__cluster_barrier_arrive|__cluster_barrier_arrive_relaxed|__cluster_barrier_wait|__cluster_map_shared_rank|__cluster_map_shared_multicast|__cluster_query_shared_rank|__isClusterShared|__threadfence_cluster)$"))

; cudaLaunchKernelEx(&config, k, ...) in a function that sets a cluster dimension launch attribute
((call_expression function: [(identifier) (template_function)] @fn) @PORT073
 (#match? @fn "^(cudaLaunchKernelExC?|hipLaunchKernelExC?|cuLaunchKernelEx|hipDrvLaunchKernelEx)(<.*)?$"))
