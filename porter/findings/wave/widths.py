"""Which width a maskless HIP shuffle gets when a CUDA ``*_sync`` shuffle is rewritten, and when that
rewrite is safe (never changes what correct code computes on a 64-lane wave).

Facts (HIP's amd_warp_functions.h, CUDA Programming Guide "Warp shuffle functions"): with an
explicit width of 32, HIP's ``__shfl``, ``__shfl_up``, ``__shfl_down`` and ``__shfl_xor`` compute
on each 32-lane half of a wave what CUDA's ``*_sync`` forms with a full mask compute on a 32-lane
warp, for every offset and source lane (tests/warpmodel checks it lane by lane).  So width 32
keeps CUDA's result exactly when nothing else in the code changes value between the platforms,
that is when no native-wave quantity (``warpSize``, ``__lane_id()`` ...) reaches the function.
When the offsets follow ``warpSize`` (``for (o = warpSize / 2; ...)``: 32 on gfx942) the code
is written for the native wave: width 32 would shuffle by 32 inside a 32-lane group (every lane
reads its own value and a sum doubles), and the default width (the whole wave) is the port.

``plan`` returns the decision; the rule page of PORT020 states the same preconditions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from porter.findings import values
from porter.findings.wave.evidence import Evidence
from porter.findings.wave.model import model_of
from porter.findings.wave.offsets import offset_values, value_of

_NATIVE_WORD = re.compile(r"(?<![\w.>])(?:warpSize|__lane_id|__AMDGCN_WAVEFRONT_SIZE)\b")


@dataclass(frozen=True)
class Plan:
    width: str | None  # the width the rewrite writes (None: the default, the whole wave)
    safe: bool
    assumes: str  # what the rewrite assumes, for the fix's description
    mixed: Evidence | None = None  # native evidence that makes a 32-lane place wrong whatever the port
    logical: Evidence | None = None  # 32-lane evidence beside native offsets
    reach: tuple[int, int] | None = None  # (largest offset with warpSize 64, width): offsets reach the width


def _follows_wave(ctx, text: str, unit) -> bool:
    if _NATIVE_WORD.search(text):
        return True
    a, b = value_of(text, unit, 32), value_of(text, unit, 64)
    return a is not None and b is not None and a != b


def plan(ctx, pos: int, fn: str, delta: str, width: str | None, full: bool, call=None, delta_node=None) -> Plan:
    """The rewrite of a ``*_sync`` shuffle named ``fn`` at ``pos`` (its offset or source-lane
    argument's text ``delta``, its width argument's text or None) into HIP's maskless form.  With
    the call's tree node and the argument's, the offsets of an enclosing loop are followed."""
    unit = values.unit_of(ctx)
    if not _may_follow(ctx):  # nothing in the unit follows the wave: no model to build
        if width is not None:
            return Plan(width, full, f"the width `{width}` is kept")
        return Plan("32", full, _NOTHING_NATIVE)
    model = model_of(ctx)
    native = model.native_at(pos)
    logical = model.logical_at(pos)
    s32 = s64 = None
    if call is not None and delta_node is not None:
        s32, s64 = offset_values(ctx, call, delta_node, unit)
    follows = (s32 is not None and s64 is not None and s32 != s64) or _follows_wave(ctx, delta, unit)
    if width is not None:  # an explicit width: kept
        width_text = width
        width_follows = _follows_wave(ctx, width_text, unit)
        w64 = value_of(width_text, unit, 64)
        if not width_follows and w64 is not None and s64 is not None and s64 and max(s64) >= w64 \
                and fn != "__shfl_sync" and (s32 is None or max(s32) < w64):
            return Plan(width_text, False, f"offsets up to {max(s64)} on a 64-lane wave reach the width {w64}: "
                        "every lane would read its own value", native, logical, (max(s64), w64))
        if width_follows and logical is not None:
            return Plan(width_text, False, "the width follows `warpSize` while other code here assumes 32 lanes",
                        None, logical)
        if not width_follows and follows and native is not None:
            return Plan(width_text, False, "the offsets follow `warpSize` but the width is fixed", native, logical)
        if not width_follows and native is not None and w64 == 32:
            return Plan(width_text, False, f"a {w64}-lane shuffle in code that also follows `warpSize`", native,
                        logical)
        return Plan(width_text, full, f"the width `{width_text}` is kept")
    if follows:
        if logical is not None:
            return Plan(None, False, "the offsets follow `warpSize` (the native wave) but other code here assumes "
                        "32 lanes", None, logical)
        return Plan(None, full, "the offsets follow `warpSize`: the code is written for the native wave, so the "
                    "default width (the whole 64-lane wave) keeps it correct")
    if native is not None:
        if fn == "__shfl_sync" and logical is None:
            return Plan(None, full, "the code follows `warpSize` (the native wave): the source lane is a lane of the "
                        "whole 64-lane wave, as it was of the whole warp")
        return Plan("32", False, "32-lane offsets in code that also follows `warpSize`", native, logical)
    return Plan("32", full, _NOTHING_NATIVE)


_NOTHING_NATIVE = ("nothing here depends on `warpSize`, and with width 32 each 32-lane half of the wave computes what "
                   "a CUDA warp computes")


def _may_follow(ctx) -> bool:
    from porter.findings.predicates.warpvalues import may_mix

    return may_mix(ctx)
