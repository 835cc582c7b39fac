"""The review app (Textual): files, side-by-side CUDA/HIP diff, findings, log.

Holds no porting logic: it drives the review model (porter.project.file_review,
review_project) and shows the result."""
