"""The review app (Textual): files, side-by-side CUDA/HIP diff, findings, log.

Holds no porting logic: it drives porter.project.review and shows the result."""
