"""atomic_write on a path that is not a regular file (porter scan -o /dev/null, a FIFO) writes into it
instead of renaming a new file over it: once, `porter scan -o /dev/null` replaced /dev/null with a file."""

import os
import threading

from porter.project.atomic import atomic_write_text


def test_a_fifo_stays_a_fifo_and_receives_the_text(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    atomic_write_text(fifo, "report\n")
    reader.join(5)
    assert got == ["report\n"]
    assert fifo.is_fifo()


def test_dev_null_stays_a_device():
    atomic_write_text("/dev/null", "findings\n")
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_a_regular_file_is_still_replaced_whole(tmp_path):
    f = tmp_path / "out.txt"
    f.write_text("old")
    atomic_write_text(f, "new")
    assert f.read_text() == "new" and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
