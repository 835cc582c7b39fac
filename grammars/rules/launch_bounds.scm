; PORT040: __launch_bounds__(MAX_THREADS, MIN_BLOCKS): the second argument means
; something else in HIP (minimum waves per execution unit)
(launch_bounds) @PORT040
