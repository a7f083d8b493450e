"""The GIL around blocking calls, Ctrl-C while synchronising, fork()."""

import threading

import pytest

from conftest import run_python

pytestmark = pytest.mark.mock


def test_gil_is_released_while_synchronising():
    # the mock's cuCtxSynchronize sleeps 2 s: a Python thread must run meanwhile
    p = run_python("""
        import threading, time, cudyn
        cudyn.device_count()
        done = threading.Event()
        ticks = [0]
        def spin():
            while not done.is_set():
                ticks[0] += 1
                time.sleep(0.001)
        t = threading.Thread(target=spin)
        t.start()
        time.sleep(0.05)
        start = ticks[0]
        cudyn.synchronize()
        during = ticks[0] - start
        done.set(); t.join()
        print("ticks", during)
        """, extra={"MOCK_CUDA_HANG": "cuCtxSynchronize:2"})
    assert p.returncode == 0, p.stderr
    ticks = int(p.stdout.split()[-1])
    assert ticks > 10, p.stdout  # a held GIL would give 0 or 1


def test_threads_share_a_module_and_launch_concurrently():
    import numpy as np

    import cudyn
    mod = cudyn.SourceModule('__global__ void empty() {}')
    f = mod.get_function("empty")
    dot_kernel = cudyn.Reduction("float", "0", "a + b", "x[i] * y[i]", "const float *x, const float *y", "dot")
    errors = []

    def work():
        try:
            cudyn.Device(0).use()
            for _ in range(200):
                f(grid=(1,), block=(1,))
            cudyn.synchronize()
            x = cudyn.gpuarray.to_gpu(np.ones(16, np.float32))
            assert float(dot_kernel.run(16, x, x)) == 16  # a kernel of the C library's the mock runs
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_ctrl_c_while_synchronising_raises_keyboard_interrupt():
    # The child sets up the Ctrl-C it is about: an interpreter started with
    # SIGINT ignored (a background job of a script, nohup, some CI runners)
    # keeps it ignored and installs no KeyboardInterrupt handler.
    p = run_python("""
        import os, signal, threading, cudyn
        signal.signal(signal.SIGINT, signal.default_int_handler)
        cudyn.device_count()
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        try:
            cudyn.synchronize()
            print("not interrupted")
        except KeyboardInterrupt:
            print("interrupted")
        """, extra={"MOCK_CUDA_HANG": "cuCtxSynchronize:3"})
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["interrupted"]


def test_fork_child_gets_forked_error():
    p = run_python("""
        import os, cudyn
        cudyn.device_count()
        pid = os.fork()
        if pid == 0:
            try:
                cudyn.device_count()
                os._exit(1)
            except cudyn.ForkedError as e:
                os._exit(0 if e.status_name == "CUDYN_ERROR_FORKED" and e.status == 35 else 2)
            except BaseException:
                os._exit(3)
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status))
        print("parent", cudyn.device_count())
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["child", "0", "parent", "2"]


def test_fork_before_init_works_in_the_child():
    p = run_python("""
        import os, cudyn
        pid = os.fork()
        if pid == 0:
            os._exit(0 if cudyn.device_count() == 2 else 1)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["0"]

