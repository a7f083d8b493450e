"""Devices, choosing one per thread, autoinit's choice and cudyn.info()."""

import threading

import pytest

from conftest import run_python

pytestmark = pytest.mark.mock


def test_device_count_and_info():
    import cudyn
    assert cudyn.device_count() == 2
    info = cudyn.device_info(0)
    assert info["name"] == "Mock GPU A"
    assert cudyn.device_info(1)["name"] == "Mock GPU B"
    d = cudyn.Device(1)
    assert d.name == "Mock GPU B" and d.compute_capability == (8, 0)
    assert cudyn.Device(0).compute_capability == (9, 0)
    assert d.info is d.info  # asked once
    with pytest.raises(AttributeError):
        d.no_such_fact
    assert cudyn.Device.count() == 2
    assert cudyn.Device(d) == d and hash(cudyn.Device(1)) == hash(d) and "1" in repr(d)


def test_attributes():
    import cudyn
    attributes = cudyn.Device(0).attributes
    assert isinstance(attributes, dict) and attributes
    name, value = next(iter(attributes.items()))
    assert cudyn.Device(0).attribute(name) == value == cudyn.device_attribute(0, name)
    with pytest.raises((ValueError, KeyError, cudyn.Error)):
        cudyn.device_attribute(0, "no_such_attribute")


def test_device_as_context_manager_restores_the_previous_one():
    import cudyn
    cudyn.Device(0).use()
    with cudyn.Device(1) as d:
        assert cudyn.current_device() == d
        with cudyn.Device(0):
            assert cudyn.device_current() == 0
        assert cudyn.device_current() == 1
    assert cudyn.current_device().ordinal == 0


def test_the_device_is_per_thread():
    import cudyn
    cudyn.Device(0).use()
    seen = []

    def worker():
        cudyn.Device(1).use()
        seen.append(cudyn.device_current())

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [1] and cudyn.device_current() == 0


def test_device_synchronize_and_mem_info():
    import cudyn
    d = cudyn.Device(1)
    d.synchronize()
    free, total = d.mem_info()
    assert 0 < free <= total
    assert d.can_access_peer(0) in (True, False)
    cudyn.Device(0).use()


def test_info_has_the_facts_of_cudainfo():
    import cudyn
    facts = cudyn.info()
    assert facts["cudyn_version"] == cudyn.version()
    assert facts["status"] == "CUDYN_OK" and facts["device_count"] == 2
    assert [d["name"] for d in facts["devices"]] == ["Mock GPU A", "Mock GPU B"]
    assert facts["loader"]["driver_path"]
    assert "cache" in facts


def test_info_without_a_driver_says_why():
    p = run_python("""
        import cudyn
        f = cudyn.info()
        print(f["status"], f["device_count"])
        """, extra={"CUDYN_LIBCUDA": "/nonexistent/libcuda.so.1"})
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["CUDYN_ERROR_DRIVER_NOT_FOUND", "0"]


@pytest.mark.parametrize("env, expected", [
    ({}, 0),
    ({"OMPI_COMM_WORLD_LOCAL_RANK": "1"}, 1),
    ({"SLURM_LOCALID": "3"}, 1),          # 3 % 2 devices
    ({"PMI_LOCAL_RANK": "0", "CUDYN_DEVICE": "1"}, 1),
])
def test_autoinit_picks_the_local_rank_device(env, expected):
    clean = {n: None for n in ("OMPI_COMM_WORLD_LOCAL_RANK", "PALS_LOCAL_RANKID", "MV2_COMM_WORLD_LOCAL_RANK",
                               "PMI_LOCAL_RANK", "SLURM_LOCALID", "CUDYN_DEVICE")}
    clean.update(env)
    p = run_python("""
        import cudyn, cudyn.autoinit
        print(cudyn.autoinit.device.ordinal, cudyn.device_current(), cudyn.autoinit.context is cudyn.autoinit.device)
        """, extra=clean)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [str(expected), str(expected), "True"]
