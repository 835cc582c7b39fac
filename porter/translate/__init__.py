"""Translation: CUDA source bytes -> HIP source bytes through byte-span edits.

    >>> from porter.translate import translate
    >>> translate(b"cudaMalloc(&p, n);").output
    b'hipMalloc(&p, n);'
"""

from porter.translate.engine import Edit, Reference, TranslateOptions, Translation, apply_edits, translate

__all__ = ["Edit", "Reference", "TranslateOptions", "Translation", "apply_edits", "translate"]
