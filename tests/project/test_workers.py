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


def _slow_square(context, item):
    import time

    time.sleep(0.01)  # the work in hand when the caller stops (a file being converted)
    return item * item


def test_an_interrupted_run_leaves_no_pool_thread_to_race_the_interpreter_exit():
    # Ctrl-C while results stream in: when the exception reaches the caller, the pool's manager thread
    # has ended, so Python's exit hook cannot write into the wake-up pipe that thread closes (3.11 prints
    # "OSError: Bad file descriptor" after "porter: interrupted" when it does).
    import threading
    from concurrent.futures.process import _ExecutorManagerThread

    got = []
    with pytest.raises(KeyboardInterrupt):
        for value in run_per_file(_slow_square, None, range(400), jobs=2, chunksize=2):
            got.append(value)
            if len(got) == 20:
                raise KeyboardInterrupt
    assert got == [i * i for i in range(20)]
    assert not [t for t in threading.enumerate() if isinstance(t, _ExecutorManagerThread)]
