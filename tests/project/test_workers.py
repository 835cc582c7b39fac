"""The worker pool behind `porter convert` and `porter scan` of a folder."""

import os
import signal

import pytest

from porter.project.workers import WorkerDied, run_per_file


def _square(context, item):
    return item * item + context


def _die_on_13(context, item):
    if item == 13:
        os.kill(os.getpid(), signal.SIGKILL)  # what the OOM killer or a crash in a C extension does
    return item


def test_results_come_back_in_order_from_several_workers():
    assert list(run_per_file(_square, 1, range(200), jobs=2, chunksize=7)) == [i * i + 1 for i in range(200)]


def test_one_process_runs_in_place():
    assert list(run_per_file(_square, 0, [3, 4], jobs=1)) == [9, 16]


def test_a_dead_worker_is_one_clear_error_naming_unfinished_files():
    with pytest.raises(WorkerDied) as err:
        list(run_per_file(_die_on_13, None, range(64), jobs=2, chunksize=4, name=lambda i: f"file{i}.cu"))
    message = str(err.value)
    first = int(message.split("unfinished: file")[1].split(".cu")[0])
    assert first <= 12 and first % 4 == 0 and "(+1 more)" in message  # a chunk at or before the fatal one
    assert "-j 1" in message
